"""Java's text rules: ``String.trim``, ``String.length``, ``Character.digit`` and charsets.

>>> trim("\\t a b \\x00"), utf16_length("a\\U0001f600"), digit("\\u0663")
('a b', 3, 3)
"""

from __future__ import annotations

import codecs
import unicodedata
from typing import Final

_TRIMMED: Final = "".join(chr(c) for c in range(0x21))  # what String.trim() strips


def trim(text: str) -> str:
    """``String.trim()``: strip every character up to U+0020 (and nothing else) from both ends."""
    return text.strip(_TRIMMED)


def utf16_length(text: str) -> int:
    """``String.length()``: UTF-16 code units."""
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def digit(char: str) -> int | None:
    """``Character.digit(char, 10)`` of one UTF-16 unit (any Unicode decimal digit), or None."""
    if "0" <= char <= "9":
        return ord(char) - 48
    if ord(char) > 0xFFFF:  # a surrogate pair in Java: neither half is a digit
        return None
    return unicodedata.decimal(char, None)


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


__all__ = ["JavaCharset", "digit", "trim", "utf16_length"]
