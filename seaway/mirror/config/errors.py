"""The error an invalid MirrorMaker 2 configuration raises, naming the offending key."""

from __future__ import annotations

from seaway.config import ConfigException
from seaway.mirror.errors import MirrorError


class MirrorConfigError(MirrorError, ConfigException):
    """An invalid MirrorMaker 2 configuration; the message names the offending key."""


def key_error(key: str, message: str) -> MirrorConfigError:
    """An error about *key* whose value is not repeated (it may be a secret)."""
    error = MirrorConfigError(message)
    error.name = key
    return error


def mirror_error(exc: ConfigException, name: str | None = None) -> MirrorConfigError:
    """*exc* as a :class:`MirrorConfigError`, optionally renamed to the key *name*."""
    if exc.name is None:
        return MirrorConfigError(str(exc))
    return MirrorConfigError(name or exc.name, exc.value, exc.reason)
