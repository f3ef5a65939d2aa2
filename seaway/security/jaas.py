"""JAAS configuration as Kafka reads it: ``sasl.jaas.config`` values and static JAAS files.

An entry is ``<LoginModuleClass> <flag> (<key>=<value>)* ;``, the flag one of ``required``,
``requisite``, ``sufficient``, ``optional`` (any case); values are quoted with ``"`` or ``'``
(Java escapes honoured) or bare words of letters, digits and ``. - _ $`` starting with a
letter. ``//`` and ``/* */`` comments are allowed. A file wraps entries in named contexts,
``KafkaServer { ... };``. The error messages are Kafka's (``JaasConfig``).

>>> parse_jaas_config('org.apache.kafka.common.security.plain.PlainLoginModule required '
...                   'username="admin" password="admin-secret" user_alice="alice-secret";')
LoginModule(name='org.apache.kafka.common.security.plain.PlainLoginModule', flag='required', \
options={'username': 'admin', 'password': 'admin-secret', 'user_alice': 'alice-secret'})
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from seaway.config import ConfigException

__all__ = [
    "LoginModule",
    "jaas_file_contexts",
    "jaas_file_path",
    "parse_jaas_config",
    "parse_jaas_file",
]

_FLAGS: Final = ("required", "requisite", "sufficient", "optional")
_TOKEN: Final = re.compile(
    r"""\s+|//[^\n]*|/\*.*?\*/"""  # blanks and comments: skipped
    r"""|(?P<quoted>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')"""
    r"""|(?P<word>[A-Za-z_$][\w.$-]*)"""
    r"""|(?P<number>[-.\d][\w.$-]*)"""
    r"""|(?P<punct>[={};])""",
    re.DOTALL,
)
_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}
_FILE_OPTION: Final = "-Djava.security.auth.login.config="


@dataclass(frozen=True)
class LoginModule:
    """One login module entry: its class name, control flag and options."""

    name: str
    flag: str
    options: dict[str, str] = field(default_factory=dict)


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text[1:-1])


def _tokens(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ConfigException(f"Unexpected character {text[pos]!r} in JAAS config")
        pos = match.end()
        kind = match.lastgroup
        if kind == "quoted":
            tokens.append(("value", _unquote(match.group())))
        elif kind is not None:
            tokens.append((kind, match.group()))
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str] | None:
        token = self.peek()
        self.pos += token is not None
        return token

    def modules(self, end: str | None) -> list[LoginModule]:
        """Entries up to *end* (``}``) or the end of the text."""
        found = []
        while (token := self.peek()) is not None and token != ("punct", end):
            found.append(self.module())
        return found

    def module(self) -> LoginModule:
        kind, name = self.take() or ("", "")
        if kind != "word":
            raise ConfigException(f"Invalid JAAS config: expected a login module, got {name!r}")
        kind, flag = self.take() or ("", "")
        if flag.lower() not in _FLAGS:
            raise ConfigException(f"Invalid login module control flag '{flag}' in JAAS config")
        options: dict[str, str] = {}
        while (token := self.take()) != ("punct", ";"):
            if token is None:
                raise ConfigException("JAAS config entry not terminated by semi-colon")
            key = token[1]
            if token[0] != "word" or self.take() != ("punct", "="):
                raise ConfigException(f"Invalid JAAS config near {key!r}: expected key=value")
            value = self.take()
            if value is None or value[0] not in ("value", "word"):
                raise ConfigException(f"Value not specified for key '{key}' in JAAS config")
            options[key] = value[1]
        return LoginModule(name, flag.lower(), options)


def parse_jaas_config(value: str) -> LoginModule:
    """The single login module of a ``sasl.jaas.config`` value."""
    modules = _Parser(value).modules(None)
    if len(modules) != 1:
        raise ConfigException(
            f"JAAS config property contains {len(modules)} login modules, should be 1 module"
        )
    return modules[0]


def parse_jaas_file(text: str) -> dict[str, list[LoginModule]]:
    """The contexts of a static JAAS file (``-Djava.security.auth.login.config``)."""
    parser, contexts = _Parser(text), {}
    while (token := parser.take()) is not None:
        if token[0] != "word" or parser.take() != ("punct", "{"):
            raise ConfigException(f"Invalid JAAS file near {token[1]!r}: expected Name {{ ... }};")
        contexts[token[1]] = parser.modules("}")
        if parser.take() != ("punct", "}") or parser.take() != ("punct", ";"):
            raise ConfigException(f"JAAS file context {token[1]} not terminated by '}};'")
    return contexts


def jaas_file_path(environ: Mapping[str, str] | None = None) -> Path | None:
    """The static JAAS file ``KAFKA_OPTS`` names (``-Djava.security.auth.login.config=``)."""
    words = shlex.split((os.environ if environ is None else environ).get("KAFKA_OPTS", ""))
    paths = [w[len(_FILE_OPTION) :] for w in words if w.startswith(_FILE_OPTION)]
    return Path(paths[-1]) if paths else None  # the JVM keeps the last -D of a name


def jaas_file_contexts(environ: Mapping[str, str] | None = None) -> dict[str, list[LoginModule]]:
    """The contexts of the JAAS file ``KAFKA_OPTS`` names; none without one."""
    path = jaas_file_path(environ)
    if path is None:
        return {}
    try:
        return parse_jaas_file(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigException(f"Cannot read the JAAS file {path}: {error}") from None
