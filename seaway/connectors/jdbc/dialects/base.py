"""What every database dialect shares: a column's Connect schema from its JDBC type (as
Confluent's ``GenericDatabaseDialect.addFieldToSchema`` maps it), timestamps read and bound
in ``db.timezone``, table names, and running SQL through a DB-API connection."""

from __future__ import annotations

import datetime as dt
import decimal
import logging
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar
from urllib.parse import parse_qsl, unquote, urlsplit
from zoneinfo import ZoneInfo

from seaway.connect.api import ConnectError, Schema
from seaway.connect.api.data import SchemaBuilder, SchemaType
from seaway.connect.api.data.logical import Date, Decimal, Time, Timestamp

__all__ = ["Column", "ConnectionSettings", "Dialect", "sanitized_url"]

log = logging.getLogger(__name__)

#: Confluent's ``connect.decimal.precision`` schema parameter.
DECIMAL_PRECISION = "connect.decimal.precision"
_MAX_INTEGER_PRECISION = 18
_PLAIN_TYPES = frozenset(SchemaType) - {SchemaType.STRUCT, SchemaType.MAP, SchemaType.ARRAY}
_PASSWORD = re.compile(r"(password=)[^&;]*", re.IGNORECASE)


def sanitized_url(url: str) -> str:
    """*url* with its password masked, for logs and errors (Confluent's ``sanitizedUrl``)."""
    masked = _PASSWORD.sub(r"\1****", url)
    return re.sub(r"//([^/:@]*):[^/@]*@", r"//\1:****@", masked)


@dataclass(frozen=True)
class Column:
    """A column of a table or query: its name, its position in the row, its Connect schema
    and how its values convert."""

    name: str
    index: int
    schema: Schema
    convert: Callable[[Any], Any]


@dataclass(frozen=True)
class ConnectionSettings:
    """A ``jdbc:<subprotocol>://`` URL taken apart, with ``connection.user``/``password``
    taking precedence over the URL's own."""

    host: str
    port: int | None
    database: str
    user: str | None
    password: str | None
    params: Mapping[str, str]

    @classmethod
    def parse(cls, url: str, user: str | None, password: str | None) -> ConnectionSettings:
        parts = urlsplit(url.removeprefix("jdbc:"))
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        host = (parts.hostname or "localhost").split(",")[0]
        return cls(
            host=host,
            port=parts.port,
            database=unquote(parts.path.lstrip("/")),
            user=user or params.pop("user", None) or (unquote(parts.username or "") or None),
            password=password or params.pop("password", None)
            or (unquote(parts.password or "") or None),
            params={k: v for k, v in params.items() if k not in ("user", "password")},
        )  # fmt: skip


def _same(value: Any) -> Any:
    return value


def _as_time(value: Any) -> dt.time:
    if isinstance(value, dt.timedelta):  # PyMySQL reads TIME as a duration
        return (dt.datetime.min + value).time()
    return value if isinstance(value, dt.time) else dt.time.fromisoformat(str(value))


def _as_date(value: Any) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    return value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value)[:10])


def _as_bytes(value: Any) -> bytes:
    return value.encode() if isinstance(value, str) else bytes(value)


class Dialect:
    """A database: how to connect, list tables, quote names, map columns, handle time.

    Subclasses set :attr:`name` (Confluent's dialect name), :attr:`placeholder` (the
    driver's parameter marker) and :attr:`quote_char`, and implement :meth:`open`,
    :meth:`tables` and :meth:`columns`. SQL given to :meth:`execute` always has the
    driver's parameter syntax: user-written SQL goes through :meth:`literal_sql` first.
    """

    name: ClassVar[str]
    placeholder: ClassVar[str] = "%s"
    quote_char: ClassVar[str] = '"'

    def __init__(
        self, url: str, user: str | None = None, password: str | None = None,
        numeric_mapping: str | None = None, timezone: str = "UTC", attempts: int = 1,
        backoff_ms: int = 0,
    ) -> None:  # fmt: skip
        self.url = url
        self.attempts, self.backoff_ms = max(1, attempts), backoff_ms
        self.user, self.password = user, password
        self.numeric_mapping = (numeric_mapping or "none").lower()
        try:
            self.timezone = ZoneInfo(timezone)
        except (KeyError, ValueError):
            raise ConnectError(
                f"Invalid value {timezone} for configuration db.timezone: give an IANA time "
                "zone such as UTC or Europe/Berlin"
            ) from None

    # --- connections and statements -----------------------------------------------------------

    def connect(self) -> Any:
        """A DB-API connection in autocommit mode (each query sees the latest commits), tried
        ``connection.attempts`` times ``connection.backoff.ms`` apart."""
        for attempt in range(1, self.attempts + 1):
            try:
                return self.open()
            except Exception as error:
                message = f"Cannot connect to {sanitized_url(self.url)}: {error}"
                if attempt == self.attempts:
                    raise ConnectError(message) from None
                log.info("%s (attempt %d of %d)", message, attempt, self.attempts)
                time.sleep(self.backoff_ms / 1000)
        raise AssertionError("unreachable")

    def open(self) -> Any:
        """One attempt at a connection (the driver's errors propagate)."""
        raise NotImplementedError

    def execute(self, connection: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run *sql* (with :attr:`placeholder` markers) and return the cursor."""
        cursor = connection.cursor()
        cursor.execute(sql, tuple(params))
        return cursor

    @contextmanager
    def transaction(self, connection: Any) -> Iterator[None]:
        """One transaction: committed when the block ends, rolled back when it raises."""
        connection.begin()
        try:
            yield
        except BaseException:
            connection.rollback()
            raise
        connection.commit()

    def literal_sql(self, sql: str) -> str:
        """User-written SQL made safe to combine with parameter markers."""
        return sql.replace("%", "%%") if self.placeholder == "%s" else sql

    # --- names ------------------------------------------------------------------------------

    def quote(self, name: str) -> str:
        q = self.quote_char
        return q + name.replace(q, q + q) + q

    def quote_list(self, names: Sequence[str]) -> str:
        """``"a", "b"``: column names quoted, comma-separated."""
        return ", ".join(self.quote(name) for name in names)

    def quote_table(self, table: str) -> str:
        """A table's qualified name (``db.table``, ``schema.table``) quoted part by part."""
        return ".".join(self.quote(part) for part in table.split("."))

    @staticmethod
    def simple_name(table: str) -> str:
        """The table name without its database or schema (topics and schemas use it)."""
        return table.rsplit(".", 1)[-1]

    def tables(self, connection: Any) -> list[str]:
        """The qualified names of the database's tables, sorted."""
        raise NotImplementedError

    def columns(self, connection: Any, table: str | None, query: str) -> list[Column]:
        """The columns of ``query`` (``SELECT * FROM`` *table*, or the user's query)."""
        raise NotImplementedError

    #: SQL for the connection's current database (MySQL) or schema (PostgreSQL).
    current_namespace: ClassVar[str] = "current_schema()"

    def table_columns(self, connection: Any, table: str) -> dict[str, bool] | None:
        """A table's columns (name -> nullable), or None when there is no such table. A name
        without a database or schema is looked up in the connection's current one."""
        namespace, _, name = table.rpartition(".")
        rows = self.execute(connection,
            "SELECT column_name, is_nullable FROM information_schema.columns WHERE "
            f"table_schema = COALESCE({self.placeholder}, {self.current_namespace}) AND "
            f"table_name = {self.placeholder} ORDER BY ordinal_position",
            [namespace or None, name]).fetchall()  # fmt: skip
        return {row[0]: row[1] == "YES" for row in rows} or None

    # --- statements of the sink -------------------------------------------------------------

    #: The column type of each Connect type (logical names first), for ``auto.create``.
    SQL_TYPES: ClassVar[Mapping[str, str]] = {}

    def sql_type(self, schema: Schema, key: bool = False) -> str:
        """The column type ``auto.create`` and ``auto.evolve`` give a Connect schema."""
        if schema.name == Decimal.LOGICAL_NAME:
            return self.SQL_TYPES["decimal"].format(scale=Decimal.scale(schema))
        name = schema.name
        kind = name if name is not None and name in self.SQL_TYPES else schema.type.value
        if kind not in self.SQL_TYPES:
            raise ConnectError(
                f"{self.name} has no column type for Connect {schema.type.value} "
                f"{schema.name or ''}: leave the field out (fields.whitelist) or convert it"
            )
        return self.SQL_TYPES[f"{kind}_key"] if key and f"{kind}_key" in self.SQL_TYPES else (
            self.SQL_TYPES[kind])  # fmt: skip

    def insert_sql(self, table: str, keys: Sequence[str], others: Sequence[str]) -> str:
        names = self.quote_list((*keys, *others))
        marks = ", ".join([self.placeholder] * (len(keys) + len(others)))
        return f"INSERT INTO {self.quote_table(table)} ({names}) VALUES ({marks})"

    def upsert_sql(self, table: str, keys: Sequence[str], others: Sequence[str]) -> str:
        raise NotImplementedError

    def update_sql(self, table: str, keys: Sequence[str], others: Sequence[str]) -> str:
        p = self.placeholder
        sets = ", ".join(f"{self.quote(c)} = {p}" for c in others)
        where = " AND ".join(f"{self.quote(c)} = {p}" for c in keys)
        return f"UPDATE {self.quote_table(table)} SET {sets} WHERE {where}"

    def copy_rows(
        self, connection: Any, table: str, keys: Sequence[str], others: Sequence[str],
        rows: Sequence[Sequence[Any]], upsert: bool,
    ) -> bool:  # fmt: skip
        """Write *rows* (the key columns' values, then the others') with the database's bulk
        load, leaving what the insert (or with *upsert*, the upsert) statement run row by
        row would; False where there is none (the statements run then)."""
        return False

    def delete_sql(self, table: str, keys: Sequence[str]) -> str:
        where = " AND ".join(f"{self.quote(c)} = {self.placeholder}" for c in keys)
        return f"DELETE FROM {self.quote_table(table)} WHERE {where}"

    def create_sql(self, table: str, columns: Sequence[tuple[str, Schema]], keys: Sequence[str]
                   ) -> list[str]:  # fmt: skip
        """``CREATE TABLE`` with one line per column and the primary key."""
        lines = [self._column_definition(name, schema, name in keys) for name, schema in columns]
        if keys:
            lines.append(f"PRIMARY KEY({self.quote_list(keys)})")
        body = ",\n".join(lines)
        return [f"CREATE TABLE {self.quote_table(table)} (\n{body})"]

    def alter_sql(self, table: str, columns: Sequence[tuple[str, Schema]]) -> list[str]:
        """``ALTER TABLE ... ADD`` for missing columns, as one statement."""
        adds = ", ".join(f"ADD {self._column_definition(n, s, False)}" for n, s in columns)
        return [f"ALTER TABLE {self.quote_table(table)} {adds}"]

    def _column_definition(self, name: str, schema: Schema, key: bool) -> str:
        text = f"{self.quote(name)} {self.sql_type(schema, key)}"
        text += " NULL" if schema.is_optional and not key else " NOT NULL"
        if schema.default_value is not None:
            text += f" DEFAULT {self._literal(schema, schema.default_value)}"
        return text

    def _literal(self, schema: Schema, value: Any) -> str:
        if schema.type is SchemaType.BOOLEAN:
            return "TRUE" if value else "FALSE"
        if isinstance(value, (int, float, decimal.Decimal)):
            return str(value)
        if isinstance(value, str):
            return "'" + value.replace("'", "''") + "'"
        return "'" + str(self.bind(schema, value)).replace("'", "''") + "'"

    def bind(self, schema: Schema | None, value: Any) -> Any:
        """A Connect value as the driver takes it: timestamps as wall-clock time in
        ``db.timezone``; structs, maps and arrays are refused."""
        if value is None:
            return None
        if isinstance(value, dt.datetime):
            return self.timestamp_param(value if value.tzinfo else value.replace(tzinfo=dt.UTC))
        if isinstance(value, (dict, list)) or hasattr(value, "schema"):
            raise ConnectError(
                f"A {type(value).__name__} value cannot be written to a column: flatten it "
                "first (the Flatten transform) or leave the field out (fields.whitelist)"
            )
        return value

    def bind_column(self, schema: Schema, values: list[Any]) -> list[Any]:
        """:meth:`bind` of every value of one column of *schema*: the values as they are
        where :meth:`bind` keeps them (plain values, decimals, dates and times)."""
        if schema.type in _PLAIN_TYPES and schema.name != Timestamp.LOGICAL_NAME:
            return values
        return [self.bind(schema, v) for v in values]

    # --- types ------------------------------------------------------------------------------

    def column(
        self, name: str, index: int, jdbc_type: str, nullable: bool, precision: int = 0,
        scale: int = 0,
    ) -> Column | None:  # fmt: skip
        """The Connect column for a JDBC type name (``INTEGER``, ``NUMERIC``, ``STRING``,
        ``BYTES``, ...); None for types Confluent's connector skips (arrays, structs)."""
        convert: Callable[[Any], Any] = _same
        if jdbc_type in ("DECIMAL", "NUMERIC"):
            builder, convert = self._numeric(jdbc_type, precision, scale)
        elif jdbc_type in ("TINYINT", "BIT"):
            builder, convert = SchemaBuilder.int8(), int
        elif jdbc_type == "SMALLINT":
            builder, convert = SchemaBuilder.int16(), int
        elif jdbc_type == "INTEGER":
            builder, convert = SchemaBuilder.int32(), int
        elif jdbc_type == "BIGINT":
            builder, convert = SchemaBuilder.int64(), int
        elif jdbc_type == "BOOLEAN":
            builder, convert = SchemaBuilder.boolean(), bool
        elif jdbc_type == "REAL":
            builder, convert = SchemaBuilder.float32(), float
        elif jdbc_type == "DOUBLE":
            builder, convert = SchemaBuilder.float64(), float
        elif jdbc_type == "STRING":
            builder, convert = SchemaBuilder.string(), str
        elif jdbc_type == "BYTES":
            builder, convert = SchemaBuilder.bytes(), _as_bytes
        elif jdbc_type == "DATE":
            builder, convert = Date.builder(), _as_date
        elif jdbc_type == "TIME":
            builder, convert = Time.builder(), _as_time
        elif jdbc_type == "TIMESTAMP":
            builder, convert = Timestamp.builder(), self.to_datetime
        else:
            return None
        if nullable:
            builder.optional()
        return Column(name, index, builder.build(), convert)

    def _numeric(
        self, jdbc_type: str, precision: int, scale: int
    ) -> tuple[SchemaBuilder, Callable[[Any], Any]]:
        """``numeric.mapping`` for NUMERIC (Confluent maps DECIMAL to Decimal always)."""
        mapping = self.numeric_mapping if jdbc_type == "NUMERIC" else "none"
        integral = mapping != "none" and precision <= _MAX_INTEGER_PRECISION and (
            scale == 0 if mapping == "precision_only" else -84 <= scale <= 0)  # fmt: skip
        if integral:
            for limit, make in ((2, SchemaBuilder.int8), (4, SchemaBuilder.int16),
                                (9, SchemaBuilder.int32), (18, SchemaBuilder.int64)):  # fmt: skip
                if precision <= limit:
                    return make(), int
        floating = scale > 0 and (
            mapping == "best_fit_eager_double"
            or (mapping == "best_fit" and precision <= _MAX_INTEGER_PRECISION)
        )
        if floating:
            return SchemaBuilder.float64(), float
        builder = Decimal.builder(scale)
        if precision:
            builder.parameter(DECIMAL_PRECISION, str(precision))
        quantum = decimal.Decimal(1).scaleb(-scale)
        context = decimal.Context(prec=max(precision, 38) + scale + 1)

        def convert(value: Any) -> decimal.Decimal:
            return decimal.Decimal(str(value)).quantize(quantum, context=context)

        return builder, convert

    # --- time -------------------------------------------------------------------------------

    def to_datetime(self, value: Any) -> dt.datetime:
        """A TIMESTAMP value as an aware datetime: naive values are in ``db.timezone``."""
        if isinstance(value, (int, float)):
            return dt.datetime.fromtimestamp(value / 1000, dt.UTC)
        if isinstance(value, dt.datetime):
            moment: dt.datetime = value
        else:
            text = str(value).strip().replace("T", " ").removesuffix("Z")
            moment = dt.datetime.fromisoformat(text)
        return moment if moment.tzinfo else moment.replace(tzinfo=self.timezone)

    def timestamp_expression(self, column: str) -> str:
        """A timestamp column as the database compares it."""
        return self.quote(column)

    def timestamp_param(self, moment: dt.datetime) -> Any:
        """A bound for a timestamp column: wall-clock time in ``db.timezone``, naive."""
        return moment.astimezone(self.timezone).replace(tzinfo=None)

    def now(self, connection: Any) -> dt.datetime:
        """The database's ``CURRENT_TIMESTAMP``, read in ``db.timezone``."""
        (value,) = self.execute(connection, self.now_query).fetchone()
        return self.to_datetime(value)

    now_query: ClassVar[str] = "SELECT CURRENT_TIMESTAMP"
