"""The broker's SCRAM users (KIP-554): salted credentials, never passwords, kept in the
metadata store and cached for the SASL exchanges.

Kafka writes the first credentials when it formats storage (``kafka-storage format
--add-scram 'SCRAM-SHA-256=[name=alice,password=alice-secret]'``); Seaway takes the same
entries from its own broker key ``seaway.scram.credentials`` and stores them at each start,
replacing those users' stored credential for that mechanism. AlterUserScramCredentials adds,
changes and deletes the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Final

from seaway.broker.metadata import MetadataStore
from seaway.config import ConfigException
from seaway.security.scram import (
    MAX_ITERATIONS,
    MECHANISMS,
    MIN_ITERATIONS,
    ScramCredential,
)

__all__ = ["ScramUsers", "parse_add_scram"]

_KEY: Final = "seaway.scram.credentials"
_ENTRY: Final = re.compile(r"\s*([A-Z0-9-]+)=\[([^\]]*)\]\s*[;,]?")
_EXAMPLE: Final = "SCRAM-SHA-256=[name=alice,password=alice-secret];SCRAM-SHA-512=[...]"

Key = tuple[str, str]  # (user, mechanism)


def parse_add_scram(value: str) -> dict[Key, ScramCredential]:
    """``MECHANISM=[name=..,password=..[,iterations=..]]`` entries (``kafka-storage
    --add-scram``'s syntax; quotes around values are dropped) as salted credentials."""
    found: dict[Key, ScramCredential] = {}
    position = 0
    while position < len(value.rstrip()):
        match = _ENTRY.match(value, position)
        if match is None:
            raise ConfigException(f"Cannot parse {_KEY} at {value[position:][:20]!r}...: expected "
                                  f"entries like {_EXAMPLE}")  # fmt: skip
        position = match.end()
        mechanism = MECHANISMS.get(match[1])
        if mechanism is None:
            raise ConfigException(f"Unknown SCRAM mechanism {match[1]} in {_KEY}: use "
                                  f"{' or '.join(MECHANISMS)}")  # fmt: skip
        fields = dict(part.partition("=")[::2] for part in match[2].split(","))
        fields = {k.strip(): v.strip().strip('"') for k, v in fields.items()}
        if not fields.get("name") or not fields.get("password"):
            raise ConfigException(f"Each {_KEY} entry needs a name and a password: {_EXAMPLE}")
        iterations = int(fields.get("iterations") or MIN_ITERATIONS)
        if not MIN_ITERATIONS <= iterations <= MAX_ITERATIONS:
            raise ConfigException(f"{_KEY}: iterations must be between {MIN_ITERATIONS} and "
                                  f"{MAX_ITERATIONS}, got {iterations}")  # fmt: skip
        found[fields["name"], mechanism.name] = ScramCredential.from_password(
            mechanism, fields["password"], iterations
        )
    return found


class ScramUsers:
    """SCRAM credentials by user and mechanism, written through to the metadata store."""

    def __init__(self, store: MetadataStore) -> None:
        self._store = store
        self._credentials = {
            key: ScramCredential.from_text(text) for key, text in store.scram_credentials().items()
        }

    def lookup(self, user: str, mechanism: str) -> ScramCredential | None:
        return self._credentials.get((user, mechanism))

    def users(self) -> dict[str, dict[str, int]]:
        """user -> mechanism -> iterations."""
        found: dict[str, dict[str, int]] = {}
        for (user, mechanism), credential in sorted(self._credentials.items()):
            found.setdefault(user, {})[mechanism] = credential.iterations
        return found

    def alter(self, upserts: Mapping[Key, ScramCredential], deletions: Iterable[Key]) -> None:
        """Store *upserts* and forget *deletions*, atomically."""
        deletions = list(deletions)
        self._store.alter_scram_credentials(
            {key: credential.to_text() for key, credential in upserts.items()}, deletions
        )
        self._credentials.update(upserts)
        for key in deletions:
            self._credentials.pop(key, None)
