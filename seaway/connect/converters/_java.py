"""How Java prints numbers and encodes strings, for byte-compatible converters (private).

Kafka's converters run on the JVM: Jackson writes doubles with ``Double.toString`` and
floats with ``Float.toString``, and ``StringConverter`` encodes with a Java charset.
"""

from __future__ import annotations

import codecs
import math
import struct
from collections.abc import Callable
from decimal import Decimal

_FLOAT32_MAX = struct.unpack(">f", b"\x7f\x7f\xff\xff")[0]


def to_float32(value: float) -> float:
    """*value* rounded to the nearest IEEE single (overflowing to infinity, like Java)."""
    try:
        return struct.unpack(">f", struct.pack(">f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def _significant_digits(text: str) -> int:
    return len(Decimal(text).normalize().as_tuple().digits)


def _closest_short_digits(value: float, shortest: str, round_trip: Callable[[float], float]) -> str:
    """Java's choice among short decimals: when one digit suffices, a closer two-digit one wins.

    (So ``Double.MIN_VALUE`` prints as ``4.9E-324`` where Python's repr says ``5e-324``.)
    """
    if _significant_digits(shortest) != 1:
        return shortest
    two = f"{value:.2g}"
    exact = Decimal(value)
    if round_trip(float(two)) == value and abs(Decimal(two) - exact) < abs(
        Decimal(shortest) - exact
    ):
        return two
    return shortest


def _shortest_float32_digits(value: float) -> str:
    """The shortest decimal that rounds back to the float32 *value* (repr-style)."""
    for precision in range(1, 10):
        text = f"{value:.{precision}g}"
        if to_float32(float(text)) == value:
            return text
    return repr(value)


def _java_format(shortest: str, value: float) -> str:
    """Lay out shortest digits the way ``Double.toString``/``Float.toString`` do."""
    sign, digits, exponent = Decimal(shortest).as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits)).rstrip("0") or "0"
    point = len(digits) + exponent  # digits before the decimal point
    prefix = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if point <= 0:
            return f"{prefix}0.{'0' * -point}{text}"
        whole = text[:point].ljust(point, "0")
        return f"{prefix}{whole}.{text[point:] or '0'}"
    return f"{prefix}{text[0]}.{text[1:] or '0'}E{point - 1}"


def java_double_str(value: float) -> str:
    """``Double.toString(value)`` (JDK 19+ shortest-digit form), e.g. ``1.0E7``, ``0.001``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    return _java_format(_closest_short_digits(value, repr(value), float), value)


def java_float_str(value: float) -> str:
    """``Float.toString((float) value)`` (JDK 19+ shortest-digit form)."""
    value = to_float32(value)
    if math.isnan(value) or math.isinf(value) or value == 0:
        return java_double_str(value)
    shortest = _shortest_float32_digits(value)
    return _java_format(_closest_short_digits(value, shortest, to_float32), value)


def java_to_string(value: object) -> str:
    """Java's ``toString`` for the values a converter may be handed."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_str(value)
    return str(value)


class JavaCharset:
    """Encode and decode like a Java ``Charset`` (unmappable -> ``?``, malformed -> U+FFFD).

    ``UTF-16`` and ``UTF-32`` follow Java: written big-endian (``UTF-16`` with a byte order
    mark), read big-endian unless a byte order mark says otherwise.
    """

    def __init__(self, name: str) -> None:
        try:
            info = codecs.lookup(name)
        except LookupError:
            raise ValueError(f"Unsupported encoding {name}") from None
        if not getattr(info, "_is_text_encoding", True):
            raise ValueError(f"Unsupported encoding {name}")
        self.name = name
        self._codec = info.name
        self._bom = {"utf-16": codecs.BOM_UTF16_BE}.get(self._codec, b"")

    def encode(self, text: str) -> bytes:
        """*text* as bytes."""
        if self._codec in ("utf-16", "utf-32"):
            body = text.encode(self._codec + "-be", "replace")
            return self._bom + body if body else body
        return text.encode(self._codec, "replace")

    def decode(self, data: bytes) -> str:
        """*data* as text."""
        if self._codec == "utf-16" and not data.startswith(
            (codecs.BOM_UTF16_BE, codecs.BOM_UTF16_LE)
        ):
            return data.decode("utf-16-be", "replace")
        if self._codec == "utf-32" and not data.startswith(
            (codecs.BOM_UTF32_BE, codecs.BOM_UTF32_LE)
        ):
            return data.decode("utf-32-be", "replace")
        return data.decode(self._codec, "replace")


__all__ = [
    "JavaCharset",
    "java_double_str",
    "java_float_str",
    "java_to_string",
    "to_float32",
]
