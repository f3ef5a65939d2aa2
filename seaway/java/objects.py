"""``String.valueOf`` for the Python values that stand for Java objects.

>>> to_string([1, None, "a", 1e10]), to_string({"k": True})
('[1, null, a, 1.0E10]', '{k=true}')
"""

from __future__ import annotations

import decimal
from collections.abc import Mapping
from typing import Any

from seaway.java.big_decimal import big_decimal_to_string
from seaway.java.numbers import JavaFloat, double_to_string, float_to_string


def to_string(value: Any) -> str:
    """*value* as Java prints the object it stands for.

    None is ``null``, booleans ``true``/``false``, floats ``Double.toString`` (a
    :class:`JavaFloat` ``Float.toString``), Decimals ``BigDecimal.toString``, lists ``[a, b]``
    and maps ``{k=v, k2=v2}`` (Java's collection formats). Unlike Java (``[B@1b6d3586``),
    ``bytes`` are decoded as UTF-8. Anything else (str, int, Struct, ...) is ``str(value)``.
    """
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return float_to_string(value) if isinstance(value, JavaFloat) else double_to_string(value)
    if isinstance(value, decimal.Decimal):
        return big_decimal_to_string(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, list | tuple):
        return "[" + ", ".join(to_string(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{to_string(k)}={to_string(v)}" for k, v in value.items()) + "}"
    return str(value)


__all__ = ["to_string"]
