"""JSON request bodies, read as Kafka's Jackson reads them: its coercions, and its messages
(answered 500) for what it cannot map."""

from __future__ import annotations

import json
from typing import Any, NoReturn

from seaway.connect.rest.responses import MappingError

__all__ = ["connector_offsets", "create_request", "required", "string_map", "task_configs"]

# Java types, as Jackson names them in its messages.
_ENTITIES = "org.apache.kafka.connect.runtime.rest.entities"
_CREATE_REQUEST = f"{_ENTITIES}.CreateConnectorRequest"
_INITIAL_STATE = f"{_CREATE_REQUEST}$InitialState"
_OFFSETS = f"{_ENTITIES}.ConnectorOffsets"
_OFFSET = f"{_ENTITIES}.ConnectorOffset"
_OFFSET_LIST = f"java.util.ArrayList<{_OFFSET}>"
_STRING = "java.lang.String"
_STRING_MAP = "java.util.LinkedHashMap<java.lang.String,java.lang.String>"
_OBJECT_MAP = "java.util.LinkedHashMap<java.lang.String,java.lang.Object>"
_MAP = "java.util.LinkedHashMap"
_LIST = "java.util.ArrayList"

_INITIAL_STATES = ("RUNNING", "PAUSED", "STOPPED")


class _JsonInt(str):
    """A JSON integer, kept as written until the target type is known."""


class _JsonFloat(str):
    """A JSON floating-point number, kept as written."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Non-standard token '{name}'")


_DECODER = json.JSONDecoder(
    parse_int=_JsonInt, parse_float=_JsonFloat, parse_constant=_reject_constant
)
_NO_CONTENT = "No content to map due to end-of-input"


def _read_json(body: bytes) -> Any:
    """The body's first JSON value (trailing content is ignored, as Jackson does); None if
    the body is empty or ``null``."""
    try:
        text = body.decode(json.detect_encoding(body))
    except UnicodeDecodeError as exc:
        raise MappingError(f"Invalid UTF-8 in request body: {exc}") from None
    start = len(text) - len(text.lstrip(" \t\r\n"))
    if start == len(text):
        return None
    try:
        value, _ = _DECODER.raw_decode(text, start)
    except ValueError as exc:
        where = ""
        if isinstance(exc, json.JSONDecodeError):
            exc_msg, where = exc.msg, f"; line: {exc.lineno}, column: {exc.colno}"
        else:
            exc_msg = str(exc)
        message = f"Unexpected JSON input: {exc_msg}\n at [Source: REST request{where}]"
        raise MappingError(message) from None
    return value


def _token(value: Any) -> tuple[str, str]:
    """How Jackson names the JSON token of *value*: (shape, token)."""
    if value is None:
        return "Null", "VALUE_NULL"
    if isinstance(value, bool):
        return "Boolean", "VALUE_TRUE" if value else "VALUE_FALSE"
    if isinstance(value, _JsonInt):
        return "Integer", "VALUE_NUMBER_INT"
    if isinstance(value, _JsonFloat):
        return "Floating-point", "VALUE_NUMBER_FLOAT"
    if isinstance(value, str):
        return "String", "VALUE_STRING"
    if isinstance(value, list):
        return "Array", "START_ARRAY"
    return "Object", "START_OBJECT"


def _mismatch(
    java_type: str, value: Any, chain: tuple[tuple[str, str | int], ...] = ()
) -> NoReturn:
    shape, token = _token(value)
    raise MappingError(
        f"Cannot deserialize value of type `{java_type}` from {shape} value "
        f"(token `JsonToken.{token}`)",
        chain,
    )


def _unrecognized(java_class: str, field: str, known: tuple[str, ...]) -> NoReturn:
    if len(known) == 1:
        props = f'one known property: "{known[0]}"'
    else:
        props = f"{len(known)} known properties: " + ", ".join(f'"{k}"' for k in known)
    raise MappingError(
        f'Unrecognized field "{field}" (class {java_class}), not marked as ignorable ({props}])',
        ((java_class, field),),
    )


def _string(value: Any, chain: tuple[tuple[str, str | int], ...]) -> str | None:
    """A Java ``String``: scalars coerce to their JSON text, null stays null."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):  # _JsonInt and _JsonFloat included: their text as written
        return str(value)
    _mismatch(_STRING, value, chain)


def string_map(
    value: Any, chain: tuple[tuple[str, str | int], ...] = (), *, nulls: bool = False
) -> dict[str, Any]:
    """A ``Map<String,String>`` body; null values only when *nulls* (else a 500)."""
    if not isinstance(value, dict):
        _mismatch(_STRING_MAP, value, chain)
    out: dict[str, Any] = {}
    for key, item in value.items():
        where = (*chain, (_MAP, key))
        text = _string(item, where)
        if text is None and not nulls:
            raise MappingError(f"Cannot map `null` into type `{_STRING}`", where)
        out[key] = text
    return out


def _plain(value: Any) -> Any:
    """A JSON value as a ``Map<String,?>`` holds it: numbers become int or float."""
    if isinstance(value, _JsonInt):
        return int(value)
    if isinstance(value, _JsonFloat):
        return float(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _object_map(value: Any, chain: tuple[tuple[str, str | int], ...]) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        _mismatch(_OBJECT_MAP, value, chain)
    return {k: _plain(v) for k, v in value.items()}


def required(body: bytes) -> Any:
    value = _read_json(body)
    if value is None:
        raise MappingError(_NO_CONTENT)
    return value


def create_request(body: bytes) -> tuple[str | None, dict[str, str] | None, str | None]:
    """``CreateConnectorRequest``: (name, config, initial_state)."""
    value = required(body)
    if not isinstance(value, dict):
        _mismatch(_CREATE_REQUEST, value)
    name = config = state = None
    for field, item in value.items():
        chain = ((_CREATE_REQUEST, field),)
        if field == "name":
            name = _string(item, chain)
        elif field == "config":
            config = None if item is None else string_map(item, chain)
        elif field == "initial_state":
            state = _initial_state(item, chain)
        else:
            _unrecognized(_CREATE_REQUEST, field, ("name", "config", "initial_state"))
    return name, config, state


def _initial_state(value: Any, chain: tuple[tuple[str, str | int], ...]) -> str | None:
    if value is None:
        return None
    if isinstance(value, dict | list):
        _mismatch(_INITIAL_STATE, value, chain)
    text = (_string(value, chain) or "").upper()
    if text not in _INITIAL_STATES:
        raise MappingError(
            f"Cannot construct instance of `{_INITIAL_STATE}`, problem: No enum constant "
            f"{_INITIAL_STATE.replace('$', '.')}.{text}",
            chain,
        )
    return text


def connector_offsets(body: bytes) -> list[dict[str, Any]] | None:
    """``ConnectorOffsets.offsets``: ``[{"partition": ..., "offset": ...}]`` or None."""
    value = required(body)
    if not isinstance(value, dict):
        _mismatch(_OFFSETS, value)
    offsets = None
    for field, item in value.items():
        if field != "offsets":
            _unrecognized(_OFFSETS, field, ("offsets",))
        chain: tuple[tuple[str, str | int], ...] = ((_OFFSETS, field),)
        if item is None:
            offsets = None
            continue
        if not isinstance(item, list):
            _mismatch(_OFFSET_LIST, item, chain)
        offsets = [_connector_offset(entry, (*chain, (_LIST, i))) for i, entry in enumerate(item)]
    return offsets


def _connector_offset(value: Any, chain: tuple[tuple[str, str | int], ...]) -> dict[str, Any]:
    if not isinstance(value, dict):
        _mismatch(_OFFSET, value, chain)
    out: dict[str, Any] = {"partition": None, "offset": None}
    for field, item in value.items():
        if field not in out:
            _unrecognized(_OFFSET, field, ("partition", "offset"))
        out[field] = _object_map(item, (*chain, (_OFFSET, field)))
    return out


def task_configs(body: bytes) -> list[dict[str, str]]:
    """``List<Map<String,String>>``: the task configs a connector's owner sends the leader."""
    configs = required(body)
    if not isinstance(configs, list):
        _mismatch(f"java.util.ArrayList<{_STRING_MAP}>", configs)
    return [string_map(c, ((_LIST, i),)) for i, c in enumerate(configs)]
