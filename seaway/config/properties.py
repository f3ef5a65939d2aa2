"""Java ``.properties`` files: parse, load and dump (``java.util.Properties`` rules)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

logger = logging.getLogger(__name__)

_WHITESPACE = " \t\f"
_EOL = "\r\n"
_SEPARATORS = "=:"
_SIMPLE_ESCAPES = {"t": "\t", "r": "\r", "n": "\n", "f": "\f"}
_HEX = "0123456789abcdefABCDEF"


def _logical_lines(text: str) -> Iterator[str]:
    """Yield logical lines: comments and blank lines dropped, continuations joined.

    Leading whitespace is stripped from each natural line; a line ending in an odd
    number of backslashes continues on the next one (the backslash is dropped).
    """
    buf: list[str] = []
    skip_whitespace = True
    continuing = False  # just joined a continuation: a blank line now ends it
    preceding_backslash = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        i += 1
        if skip_whitespace:
            if c in _WHITESPACE or (not continuing and c in _EOL):
                continue
            skip_whitespace = continuing = False
        if not buf and c in "#!":
            while i < n and text[i] not in _EOL:
                i += 1
            skip_whitespace = True
            continue
        if c not in _EOL:
            buf.append(c)
            preceding_backslash = not preceding_backslash if c == "\\" else False
            continue
        if not buf:
            skip_whitespace = True
            continue
        if preceding_backslash:
            buf.pop()
            preceding_backslash = False
            skip_whitespace = continuing = True
            if c == "\r" and i < n and text[i] == "\n":
                i += 1
        else:
            yield "".join(buf)
            buf.clear()
            skip_whitespace = True
    if preceding_backslash:
        buf.pop()
    if buf:
        yield "".join(buf)


def _unescape(raw: str) -> str:
    """Resolve ``\\uXXXX``, ``\\t \\r \\n \\f`` and ``\\<char>`` escapes."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        i += 1
        if c != "\\":
            out.append(c)
            continue
        if i >= n:
            break  # a lone trailing backslash is dropped
        c = raw[i]
        i += 1
        if c == "u":
            digits = raw[i : i + 4]
            if len(digits) < 4 or any(d not in _HEX for d in digits):
                raise ValueError(f"Malformed \\uxxxx encoding in {raw!r}")
            out.append(chr(int(digits, 16)))
            i += 4
        else:
            out.append(_SIMPLE_ESCAPES.get(c, c))
    result = "".join(out)
    if any("\ud800" <= ch <= "\udfff" for ch in result):
        # Join UTF-16 surrogate pairs written as two \\u escapes; keep lone ones.
        result = result.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return result


def _split_line(line: str) -> tuple[str, str]:
    """Split a logical line into raw (still escaped) key and value."""
    n = len(line)
    key_len, value_start = 0, n
    has_separator = preceding_backslash = False
    while key_len < n:
        c = line[key_len]
        if c in _SEPARATORS and not preceding_backslash:
            value_start, has_separator = key_len + 1, True
            break
        if c in _WHITESPACE and not preceding_backslash:
            value_start = key_len + 1
            break
        preceding_backslash = not preceding_backslash if c == "\\" else False
        key_len += 1
    while value_start < n:
        c = line[value_start]
        if c not in _WHITESPACE:
            if has_separator or c not in _SEPARATORS:
                break
            has_separator = True
        value_start += 1
    return line[:key_len], line[value_start:]


def parse_properties(text: str) -> dict[str, str]:
    """Parse ``.properties`` text into a dict; later definitions of a key win.

    Supports ``#``/``!`` comments, ``key=value``, ``key: value`` and ``key value``
    forms, backslash line continuations and Java escapes. Raises ``ValueError`` on a
    malformed ``\\uXXXX`` escape.
    """
    result: dict[str, str] = {}
    for line in _logical_lines(text):
        raw_key, raw_value = _split_line(line)
        result[_unescape(raw_key)] = _unescape(raw_value)
    return result


def load_properties(path: str | os.PathLike[str], encoding: str = "utf-8") -> dict[str, str]:
    """Read and parse a ``.properties`` file.

    Java reads ``InputStream``s as ISO-8859-1; UTF-8 is the default here (ASCII files,
    and files using ``\\uXXXX`` escapes, read the same either way). A BOM is ignored.
    """
    text = Path(path).read_text(encoding=encoding)
    props = parse_properties(text.removeprefix("\ufeff"))
    logger.debug("Loaded %d properties from %s", len(props), path)
    return props


def _escape(text: str, *, is_key: bool, escape_unicode: bool) -> str:
    out: list[str] = []
    for i, c in enumerate(text):
        if c == "\\":
            out.append("\\\\")
        elif c == " ":
            out.append("\\ " if is_key or i == 0 else " ")
        elif c in "\t\n\r\f":
            out.append("\\" + {"\t": "t", "\n": "n", "\r": "r", "\f": "f"}[c])
        elif c in "=:#!":
            out.append("\\" + c)
        elif ord(c) < 0x20 or (escape_unicode and ord(c) > 0x7E):
            data = c.encode("utf-16-be", "surrogatepass")
            for j in range(0, len(data), 2):
                out.append(f"\\u{int.from_bytes(data[j : j + 2], 'big'):04X}")
        else:
            out.append(c)
    return "".join(out)


def dump_properties(
    props: Mapping[str, str], *, header: str | None = None, escape_unicode: bool = False
) -> str:
    """Render *props* as ``.properties`` text that :func:`parse_properties` reads back.

    Keys and values must be strings. *header* lines become ``#`` comments. With
    *escape_unicode*, non-ASCII characters are written as ``\\uXXXX`` escapes.
    """
    lines: list[str] = []
    if header is not None:
        lines.extend(f"# {line}".rstrip() for line in header.splitlines())
    for key, value in props.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"properties keys and values must be strings, got {key!r}: {value!r}")
        lines.append(
            _escape(key, is_key=True, escape_unicode=escape_unicode)
            + "="
            + _escape(value, is_key=False, escape_unicode=escape_unicode)
        )
    return "".join(line + "\n" for line in lines)
