"""Avro schema compatibility: whether data written with one schema can be read with another.

The rules are Avro's schema resolution (the specification's "Schema Resolution" section),
as Confluent's registry checks them (``AvroCompatibilityChecker``): names of named types
match (or an alias does), numeric types promote (int -> long -> float -> double,
string <-> bytes), a record field missing from the writer needs a default in the reader,
enum symbols the writer may send must be known to the reader (or the reader has a default
symbol), and a union reads what any of its branches reads. The levels are Confluent's:
BACKWARD (the new schema reads data of the last), FORWARD (the last reads the new), FULL
(both), their ``_TRANSITIVE`` forms against every earlier version, and NONE.

fastavro parses and validates schemas but does not decide compatibility, hence this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

__all__ = ["LEVELS", "incompatibilities"]

LEVELS: Final = (
    "NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE",
    "FULL", "FULL_TRANSITIVE",
)  # fmt: skip

_PROMOTIONS: Final = {
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
    "string": {"bytes"},
    "bytes": {"string"},
}
_NAMED: Final = ("record", "enum", "fixed", "error")


class _Names:
    """Named types of one schema, by full name, to resolve references."""

    def __init__(self) -> None:
        self.types: dict[str, dict[str, Any]] = {}

    def collect(self, schema: Any, namespace: str = "") -> None:
        if isinstance(schema, list):
            for branch in schema:
                self.collect(branch, namespace)
        elif isinstance(schema, dict):
            kind = schema.get("type")
            if kind in _NAMED:
                name = _full_name(schema, namespace)
                self.types[name] = schema
                namespace = name.rpartition(".")[0]
                for item in schema.get("fields", ()):
                    self.collect(item.get("type"), namespace)
            elif kind == "array":
                self.collect(schema.get("items"), namespace)
            elif kind == "map":
                self.collect(schema.get("values"), namespace)
            elif isinstance(kind, (dict, list)):
                self.collect(kind, namespace)

    def resolve(self, schema: Any, namespace: str = "") -> Any:
        """*schema* with a reference to a named type replaced by its definition."""
        if isinstance(schema, str) and schema not in _PRIMITIVES:
            full = schema if "." in schema or not namespace else f"{namespace}.{schema}"
            return self.types.get(full, self.types.get(schema, schema))
        if isinstance(schema, dict) and schema.get("type") not in _COMPLEX:
            inner = schema.get("type")
            return self.resolve(inner, namespace) if inner is not None else schema
        return schema


_PRIMITIVES: Final = frozenset(
    {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
)
_COMPLEX: Final = frozenset({"record", "error", "enum", "array", "map", "fixed"})


def _full_name(schema: dict[str, Any], namespace: str) -> str:
    name = str(schema.get("name", ""))
    if "." in name:
        return name
    ns = schema.get("namespace", namespace) or ""
    return f"{ns}.{name}" if ns else name


def _kind(schema: Any) -> str:
    if isinstance(schema, list):
        return "union"
    if isinstance(schema, dict):
        return str(schema.get("type"))
    return str(schema)


class _Checker:
    def __init__(self, reader: Any, writer: Any) -> None:
        self.readers, self.writers = _Names(), _Names()
        self.readers.collect(reader)
        self.writers.collect(writer)
        self.seen: set[tuple[int, int]] = set()
        self.problems: list[str] = []

    def check(self, reader: Any, writer: Any, path: str) -> bool:
        reader, writer = self.readers.resolve(reader), self.writers.resolve(writer)
        key = (id(reader), id(writer))
        if key in self.seen:  # recursive types: assume compatible while checking
            return True
        self.seen.add(key)
        r, w = _kind(reader), _kind(writer)
        if w == "union":
            return all(self.check(reader, b, f"{path}/{i}") for i, b in enumerate(writer))
        if r == "union":
            for branch in reader:
                sub = _Checker.__new__(_Checker)
                sub.readers, sub.writers, sub.seen = self.readers, self.writers, set(self.seen)
                sub.problems = []
                if sub.check(branch, writer, path):
                    return True
            return self._fail(path, f"reader union lacks a branch for the writer's {w}")
        if r in _PRIMITIVES or w in _PRIMITIVES:
            if r == w or r in _PROMOTIONS.get(w, ()):
                return True
            return self._fail(path, f"reader type {r} cannot read writer type {w}")
        if r != w and not ({r, w} <= {"record", "error"}):
            return self._fail(path, f"reader type {r} cannot read writer type {w}")
        if r in _NAMED and not _same_name(reader, writer):
            return self._fail(
                path, f"reader name {reader.get('name')} does not match {writer.get('name')}"
            )
        if r == "fixed":
            if reader.get("size") != writer.get("size"):
                return self._fail(path, f"fixed size {reader.get('size')} != {writer.get('size')}")
            return True
        if r == "enum":
            missing = set(writer.get("symbols", ())) - set(reader.get("symbols", ()))
            if missing and "default" not in reader:
                return self._fail(path, f"reader enum lacks symbols {sorted(missing)}")
            return True
        if r == "array":
            return self.check(reader.get("items"), writer.get("items"), f"{path}/items")
        if r == "map":
            return self.check(reader.get("values"), writer.get("values"), f"{path}/values")
        return self._record(reader, writer, path)

    def _record(self, reader: dict[str, Any], writer: dict[str, Any], path: str) -> bool:
        written = {}
        for item in writer.get("fields", ()):
            written[item["name"]] = item
        ok = True
        for item in reader.get("fields", ()):
            names = [item["name"], *item.get("aliases", ())]
            source = next((written[n] for n in names if n in written), None)
            where = f"{path}/fields/{item['name']}"
            if source is None:
                if "default" not in item:
                    ok = self._fail(where, f"reader field '{item['name']}' has no default and "
                                    "the writer does not have it")  # fmt: skip
                continue
            ok = self.check(item.get("type"), source.get("type"), where) and ok
        return ok

    def _fail(self, path: str, message: str) -> bool:
        self.problems.append(f"{path or '/'}: {message}")
        return False


def _same_name(reader: dict[str, Any], writer: dict[str, Any]) -> bool:
    def short(name: Any) -> str:
        return str(name or "").rpartition(".")[2]

    names = {short(reader.get("name")), *(short(a) for a in reader.get("aliases", ()))}
    return short(writer.get("name")) in names


def _can_read(reader: Any, writer: Any) -> list[str]:
    checker = _Checker(reader, writer)
    checker.check(reader, writer, "")
    return checker.problems


def incompatibilities(level: str, new: Any, previous: Sequence[Any]) -> list[str]:
    """Why *new* (a parsed Avro schema) breaks *level* against *previous* (oldest first);
    empty when it is compatible."""
    level = level.upper()
    if level == "NONE" or not previous:
        return []
    against = previous if level.endswith("_TRANSITIVE") else previous[-1:]
    problems: list[str] = []
    for old in reversed(against):
        if level.startswith(("BACKWARD", "FULL")):
            problems += [f"reading old data: {p}" for p in _can_read(new, old)]
        if level.startswith(("FORWARD", "FULL")):
            problems += [f"old readers: {p}" for p in _can_read(old, new)]
    return problems
