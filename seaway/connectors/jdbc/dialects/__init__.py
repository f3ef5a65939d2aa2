"""Database dialects of the JDBC connectors: SQLite, MySQL/MariaDB and PostgreSQL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.connect.api import ConnectError
from seaway.connectors.jdbc.dialects.base import Column, Dialect, sanitized_url
from seaway.connectors.jdbc.dialects.mysql import MySqlDialect
from seaway.connectors.jdbc.dialects.postgres import PostgresDialect
from seaway.connectors.jdbc.dialects.sqlite import SqliteDialect

__all__ = ["Column", "Dialect", "MySqlDialect", "PostgresDialect", "SqliteDialect",
           "dialect_for", "sanitized_url"]  # fmt: skip

#: ``connection.url`` subprotocols and ``dialect.name`` values -> dialects.
_BY_SUBPROTOCOL: dict[str, type[Dialect]] = {
    "sqlite": SqliteDialect, "mysql": MySqlDialect, "mariadb": MySqlDialect,
    "postgresql": PostgresDialect,
}  # fmt: skip
_BY_NAME = {d.name.lower(): d for d in _BY_SUBPROTOCOL.values()}


def dialect_for(url: str, name: str = "", **options: Any) -> Dialect:
    """The dialect of a ``connection.url`` (or the one ``dialect.name`` names), with
    *options* (user, password, numeric_mapping, timezone, attempts, backoff_ms)."""
    if name:
        if name.lower() not in _BY_NAME:
            known = ", ".join(sorted(d.name for d in _BY_NAME.values()))
            raise ConnectError(
                f"Invalid value {name} for configuration dialect.name: use one of {known}"
            )
        return _BY_NAME[name.lower()](url, **options)
    subprotocol = url.split(":", 2)[1] if url.startswith("jdbc:") and url.count(":") >= 2 else ""
    if subprotocol not in _BY_SUBPROTOCOL:
        raise ConnectError(
            f"connection.url {sanitized_url(url)!r} is not supported: use "
            "jdbc:mysql://host:port/db, jdbc:mariadb://..., jdbc:postgresql://host:port/db or "
            "jdbc:sqlite:<path>"
        )
    return _BY_SUBPROTOCOL[subprotocol](url, **options)


def dialect_from_config(values: Mapping[str, Any]) -> Dialect:
    """The dialect a connector's parsed configuration asks for."""
    from seaway.connectors.jdbc import config as c

    password = values.get(c.CONNECTION_PASSWORD)
    return dialect_for(
        values[c.CONNECTION_URL],
        values.get(c.DIALECT_NAME) or "",
        user=values.get(c.CONNECTION_USER),
        password=password.value if password is not None else None,
        numeric_mapping=values.get(c.NUMERIC_MAPPING),
        timezone=values.get(c.DB_TIMEZONE, "UTC"),
        attempts=values.get(c.CONNECTION_ATTEMPTS, 1),
        backoff_ms=values.get(c.CONNECTION_BACKOFF, 0),
    )
