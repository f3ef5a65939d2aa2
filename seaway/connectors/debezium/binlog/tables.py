"""The table model: a captured table's columns and primary key, as the server describes them
(``information_schema``) or as a binlog TableMapEvent carries them (``binlog_row_metadata=FULL``),
and as Debezium's ``tableChanges`` JSON writes them (schema history and schema change topics).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

__all__ = ["Column", "Table", "TableId", "table_from_binlog", "table_from_json"]

TableId = tuple[str, str]
"""(database, table)."""

_BINARY_CHARSET: Final = 63  # the ``binary`` collation id in a TableMapEvent

# MySQL's column type codes (include/mysql_com.h) for binlog-only models.
_BINLOG_TYPES: Final = {
    1: "TINYINT", 2: "SMALLINT", 3: "INT", 4: "FLOAT", 5: "DOUBLE", 7: "TIMESTAMP",
    8: "BIGINT", 9: "MEDIUMINT", 10: "DATE", 11: "TIME", 12: "DATETIME", 13: "YEAR",
    15: "VARCHAR", 16: "BIT", 17: "TIMESTAMP", 18: "DATETIME", 19: "TIME", 245: "JSON",
    246: "DECIMAL", 247: "ENUM", 248: "SET", 249: "BLOB", 250: "BLOB", 251: "BLOB",
    252: "BLOB", 253: "VARCHAR", 254: "CHAR", 255: "GEOMETRY",
}  # fmt: skip

# java.sql.Types of the type names (Debezium's MySqlDefaultValueConverter/column jdbcType).
_JDBC_TYPES: Final = {
    "BIT": -7, "TINYINT": -6, "SMALLINT": 5, "MEDIUMINT": 4, "INT": 4, "INTEGER": 4,
    "BIGINT": -5, "FLOAT": 7, "DOUBLE": 8, "REAL": 8, "DECIMAL": 3, "NUMERIC": 2,
    "CHAR": 1, "VARCHAR": 12, "TINYTEXT": 12, "TEXT": 12, "MEDIUMTEXT": 12,
    "LONGTEXT": 12, "BINARY": -2, "VARBINARY": -3, "TINYBLOB": -3, "BLOB": 2004,
    "MEDIUMBLOB": 2004, "LONGBLOB": 2004, "DATE": 91, "TIME": 92, "DATETIME": 93,
    "TIMESTAMP": 2014, "YEAR": 4, "ENUM": 1, "SET": 1, "JSON": 1, "GEOMETRY": 1111,
}  # fmt: skip


@dataclass(frozen=True)
class Column:
    """One column: its MySQL type name (upper case, no modifiers) and what its events need."""

    name: str
    position: int
    type_name: str
    unsigned: bool = False
    length: int | None = None  # characters, precision, fractional second digits or bits
    scale: int | None = None
    optional: bool = True
    auto_incremented: bool = False
    charset: str | None = None
    enum_values: tuple[str, ...] = ()
    type_expression: str | None = None  # the column type as SHOW CREATE TABLE writes it
    default_expression: str | None = None

    @property
    def binary(self) -> bool:
        """A byte string rather than text (BINARY, VARBINARY, BLOB types)."""
        return self.type_name in ("BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB",
                                  "LONGBLOB")  # fmt: skip

    @property
    def full_type_name(self) -> str:
        """The type name Debezium shows: ``INT UNSIGNED``, ``VARCHAR``."""
        return f"{self.type_name} UNSIGNED" if self.unsigned else self.type_name

    def json(self) -> dict[str, Any]:
        """The column in Debezium's ``tableChanges`` JSON (``JsonTableChangeSerializer``)."""
        out: dict[str, Any] = {
            "name": self.name,
            "jdbcType": _JDBC_TYPES.get(self.type_name, 1111),
            "typeName": self.full_type_name,
            "typeExpression": self.full_type_name,
            "charsetName": self.charset,
        }
        if self.length is not None:
            out["length"] = self.length
        if self.scale is not None:
            out["scale"] = self.scale
        out.update(
            position=self.position,
            optional=self.optional,
            autoIncremented=self.auto_incremented,
            generated=self.auto_incremented,
        )
        if self.default_expression is not None:
            out["defaultValueExpression"] = self.default_expression
        out["enumValues"] = list(self.enum_values)
        return out


@dataclass(frozen=True)
class Table:
    """A table's columns in order and its primary key columns."""

    id: TableId
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    default_charset: str | None = None
    create_ddl: str | None = field(default=None, compare=False)

    @property
    def names(self) -> tuple[str, ...]:
        """The column names in order."""
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        """The column named *name*."""
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)

    def only(self, keep: Iterable[str]) -> Table:
        """The table with only the columns in *keep* (the primary key is always kept)."""
        kept = set(keep) | set(self.primary_key)
        return replace(self, columns=tuple(c for c in self.columns if c.name in kept))

    def json(self) -> dict[str, Any]:
        """The ``table`` of a ``tableChanges`` element."""
        return {
            "defaultCharsetName": self.default_charset,
            "primaryKeyColumnNames": list(self.primary_key),
            "columns": [c.json() for c in self.columns],
            "attributes": [],
        }


def quoted_id(table_id: TableId) -> str:
    """Debezium's ``TableId.toDoubleQuotedString``: ``"db"."table"``."""
    return f'"{table_id[0]}"."{table_id[1]}"'


def _enum_values(column_type: str) -> tuple[str, ...]:
    """The values of ``enum('a','b')`` or ``set('x','y')``."""
    inner = column_type[column_type.index("(") + 1 : column_type.rindex(")")]
    values, current, quoted, i = [], [], False, 0
    while i < len(inner):
        ch = inner[i]
        if quoted:
            if ch == "'" and i + 1 < len(inner) and inner[i + 1] == "'":
                current.append("'")
                i += 1
            elif ch == "'":
                quoted = False
                values.append("".join(current))
                current = []
            else:
                current.append(ch)
        elif ch == "'":
            quoted = True
        i += 1
    return tuple(values)


def column_from_schema(row: Mapping[str, Any]) -> Column:
    """A column from an ``information_schema.COLUMNS`` row (keys as the view names them)."""
    data_type = str(row["DATA_TYPE"]).upper()
    column_type = str(row["COLUMN_TYPE"])
    length: int | None
    scale: int | None = None
    if data_type in ("DECIMAL", "NUMERIC"):
        length, scale = row["NUMERIC_PRECISION"], row["NUMERIC_SCALE"]
    elif data_type in ("DATETIME", "TIMESTAMP", "TIME"):
        length = row["DATETIME_PRECISION"] or 0
    elif data_type == "BIT" or ("(" in column_type and data_type.endswith("INT")):
        length = int(column_type[column_type.index("(") + 1 : column_type.index(")")])
    elif row["CHARACTER_MAXIMUM_LENGTH"] is not None and data_type not in ("ENUM", "SET"):
        length = int(row["CHARACTER_MAXIMUM_LENGTH"])
    else:
        length = None
    enum_values = _enum_values(column_type) if data_type in ("ENUM", "SET") else ()
    default = row["COLUMN_DEFAULT"]
    if isinstance(default, str) and default.upper() == "NULL":
        default = None
    elif isinstance(default, str) and len(default) >= 2 and default[0] == default[-1] == "'":
        default = default[1:-1].replace("''", "'")
    return Column(
        name=str(row["COLUMN_NAME"]),
        position=int(row["ORDINAL_POSITION"]),
        type_name=data_type,
        unsigned="unsigned" in column_type.lower(),
        length=length,
        scale=scale,
        optional=str(row["IS_NULLABLE"]).upper() == "YES",
        auto_incremented="auto_increment" in str(row["EXTRA"]).lower(),
        charset=row["CHARACTER_SET_NAME"],
        enum_values=enum_values,
        type_expression=column_type,
        default_expression=None if default is None else str(default),
    )


def table_from_binlog(table_id: TableId, columns: Sequence[Any]) -> Table:
    """A model from the columns of a TableMapEvent with full row metadata (pymysqlreplication's
    ``Column``\\ s): used for a row whose columns differ from the table model (a DDL the model
    has not seen yet). Nullability is not carried: only key columns are required."""
    made = []
    key = tuple(c.name for c in columns if getattr(c, "is_primary", False))
    for position, c in enumerate(columns, 1):
        type_name = _BINLOG_TYPES.get(c.type, "VARCHAR")
        binary = getattr(c, "charset_id", None) == _BINARY_CHARSET
        if type_name == "BLOB":
            type_name = "BLOB" if binary else "TEXT"
        elif type_name in ("VARCHAR", "CHAR") and binary:
            type_name = "VARBINARY" if type_name == "VARCHAR" else "BINARY"
        length = None
        if type_name == "DECIMAL":
            length = c.precision
        elif type_name in ("DATETIME", "TIMESTAMP", "TIME"):
            length = getattr(c, "fsp", 0)
        elif type_name == "BIT":
            length = c.bits
        values = tuple(getattr(c, "enum_values", None) or getattr(c, "set_values", None) or ())
        made.append(
            Column(
                name=c.name,
                position=position,
                type_name=type_name,
                unsigned=bool(c.unsigned),
                length=length,
                scale=getattr(c, "decimals", None) if type_name == "DECIMAL" else None,
                optional=c.name not in key,
                enum_values=values,
            )
        )
    return Table(table_id, tuple(made), key)


def table_from_json(table_id: TableId, data: Mapping[str, Any]) -> Table:
    """A model back from a ``tableChanges`` element's ``table`` (schema history recovery)."""
    columns = tuple(
        Column(
            name=c["name"],
            position=c["position"],
            type_name=c["typeName"].upper().removesuffix(" UNSIGNED"),
            unsigned=c["typeName"].upper().endswith(" UNSIGNED"),
            length=c.get("length"),
            scale=c.get("scale"),
            optional=c.get("optional", True),
            auto_incremented=c.get("autoIncremented", False),
            charset=c.get("charsetName"),
            enum_values=tuple(c.get("enumValues") or ()),
            default_expression=c.get("defaultValueExpression"),
        )
        for c in data["columns"]
    )
    return Table(
        table_id, columns, tuple(data.get("primaryKeyColumnNames") or ()),
        data.get("defaultCharsetName"),
    )  # fmt: skip
