"""Java regular expressions and replacement strings, run on Python's :mod:`re`.

Connect configs hold Java regexes (``RegexRouter.regex``, ``TopicNameMatches.pattern``) and
Java replacement strings (``$1``, ``${name}``). :func:`compile_java_regex` translates the
Java-only syntax the two engines spell differently: named groups ``(?<name>...)``, ``\\k<name>``,
``\\Q...\\E`` quoting, ``\\z``/``\\Z``, ``\\h``, ``\\R``, ``\\x{...}`` and the POSIX classes
``\\p{Alpha}`` etc. Like Java, ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are ASCII-only. Nested or
intersected character classes (``[a-z&&[^b]]``) are not supported and raise :class:`re.error`.

>>> pattern = compile_java_regex("(?<db>\\\\w+)\\\\.(?<table>\\\\w+)")
>>> JavaReplacement("${table}_$1", pattern).replace_first(pattern, "shop.orders")
'orders_shop'
"""

from __future__ import annotations

import re
from typing import Final

_POSIX_CLASSES: Final = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": "\\x00-\\x7f",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": "!-/:-@\\[-`{-~",
    "Graph": "!-~",
    "Print": " -~",
    "Blank": " \\t",
    "Cntrl": "\\x00-\\x1f\\x7f",
    "XDigit": "0-9a-fA-F",
    "Space": " \\t\\n\\x0b\\f\\r",
}
_HORIZONTAL_SPACE: Final = " \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000"
_GROUP_NAME = re.compile(r"[a-zA-Z][a-zA-Z0-9]*")


def _posix_class(name: str) -> str:
    content = _POSIX_CLASSES.get(name) or _POSIX_CLASSES.get(name.removeprefix("Is"))
    if content is None:
        raise re.error(f"Unknown character property name {{{name}}}")
    return content


def translate_java_regex(pattern: str) -> str:
    """The Python :mod:`re` spelling of Java regex *pattern*; :class:`re.error` if unsupported."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n:
                raise re.error("Unexpected internal error near index " + str(n))
            e = pattern[i + 1]
            i += 2
            if e == "Q":
                end = pattern.find("\\E", i)
                quoted = pattern[i:] if end < 0 else pattern[i:end]
                i = n if end < 0 else end + 2
                out.append("".join("\\" + ch if not ch.isalnum() else ch for ch in quoted))
            elif e == "z":
                out.append("\\Z")
            elif e == "Z":
                out.append("(?=\\n?\\Z)")
            elif e in "hH":
                if in_class:
                    if e == "H":
                        raise re.error("\\H inside a character class is not supported")
                    out.append(_HORIZONTAL_SPACE)
                else:
                    out.append(("[^" if e == "H" else "[") + _HORIZONTAL_SPACE + "]")
            elif e == "R" and not in_class:
                out.append("(?:\\r\\n|[\\n\\x0b\\f\\r\\x85\\u2028\\u2029])")
            elif e == "e":
                out.append("\\x1b")
            elif e in "pP":
                if i < n and pattern[i] == "{":
                    end = pattern.find("}", i)
                    if end < 0:
                        raise re.error("Unclosed character family")
                    name, i = pattern[i + 1 : end], end + 1
                else:
                    if i >= n:
                        raise re.error("Illegal character family")
                    name, i = pattern[i], i + 1
                content = _posix_class(name)
                negated = e == "P"
                if in_class:
                    if negated:
                        raise re.error(f"\\P{{{name}}} inside a character class is not supported")
                    out.append(content)
                else:
                    out.append(("[^" if negated else "[") + content + "]")
            elif e == "x" and i < n and pattern[i] == "{":
                end = pattern.find("}", i)
                if end < 0:
                    raise re.error("Unclosed hexadecimal escape sequence")
                code = int(pattern[i + 1 : end], 16)
                out.append(f"\\U{code:08x}")
                i = end + 1
            elif e == "k" and i < n and pattern[i] == "<":
                end = pattern.find(">", i)
                if end < 0:
                    raise re.error("named capturing group is missing trailing '>'")
                out.append(f"(?P={pattern[i + 1 : end]})")
                i = end + 1
            elif e in "GX":
                raise re.error(f"\\{e} is not supported")
            else:
                out.append("\\" + e)
            continue
        if in_class:
            if c == "[":
                raise re.error("nested character classes are not supported")
            if c == "&" and pattern.startswith("&&", i):
                raise re.error("character class intersections are not supported")
            if c == "]":
                in_class = False
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            out.append(c)
            i += 1
            # A ']' right after '[' or '[^' is a literal in both engines.
            if pattern.startswith("^", i):
                out.append("^")
                i += 1
            if pattern.startswith("]", i):
                out.append("\\]")
                i += 1
            continue
        if c == "(" and pattern.startswith("(?<", i) and i + 3 < n and pattern[i + 3].isalpha():
            out.append("(?P<")
            i += 3
            continue
        out.append(c)
        i += 1
    if in_class:
        raise re.error("Unclosed character class")
    return "".join(out)


def compile_java_regex(pattern: str) -> re.Pattern[str]:
    """Compile Java regex *pattern*; raises :class:`re.error` (or TypeError) when invalid."""
    if not isinstance(pattern, str):
        raise TypeError(f"expected a regular expression string, got {pattern!r}")
    return re.compile(translate_java_regex(pattern), re.ASCII)


class JavaReplacement:
    """A ``Matcher.replaceFirst`` replacement: ``$n`` and ``${name}`` refer to groups and
    a backslash quotes the next character.

    Unlike Java, which fails on each replacement, an invalid reference raises
    :class:`ValueError` here, on construction.
    """

    __slots__ = ("_parts", "template")

    def __init__(self, template: str, pattern: re.Pattern[str]) -> None:
        self.template = template
        self._parts: list[str | int] = []
        literal: list[str] = []
        i, n = 0, len(template)
        while i < n:
            c = template[i]
            if c == "\\":
                if i + 1 >= n:
                    raise ValueError("character to be escaped is missing")
                literal.append(template[i + 1])
                i += 2
            elif c == "$":
                i += 1
                if i >= n:
                    raise ValueError("Illegal group reference: group index is missing")
                if literal:
                    self._parts.append("".join(literal))
                    literal = []
                if template[i] == "{":
                    match = _GROUP_NAME.match(template, i + 1)
                    if match is None:
                        raise ValueError(
                            "named capturing group has 0 length name"
                            if template.startswith("}", i + 1)
                            else "Illegal character in group name"
                        )
                    name = match.group()
                    if not template.startswith("}", match.end()):
                        raise ValueError("named capturing group is missing trailing '}'")
                    if name not in pattern.groupindex:
                        raise ValueError(f"No group with name {{{name}}}")
                    self._parts.append(pattern.groupindex[name])
                    i = match.end() + 1
                elif template[i].isdigit() and template[i].isascii():
                    ref = int(template[i])
                    i += 1
                    while i < n and template[i].isascii() and template[i].isdigit():
                        longer = ref * 10 + int(template[i])
                        if longer > pattern.groups:
                            break
                        ref, i = longer, i + 1
                    if ref > pattern.groups:
                        raise ValueError(f"No group {ref}")
                    self._parts.append(ref)
                else:
                    raise ValueError("Illegal group reference")
            else:
                literal.append(c)
                i += 1
        if literal:
            self._parts.append("".join(literal))

    def expand(self, match: re.Match[str]) -> str:
        """The replacement text for *match* (groups that did not take part add nothing)."""
        return "".join(
            part if isinstance(part, str) else (match.group(part) or "") for part in self._parts
        )

    def replace_first(self, pattern: re.Pattern[str], text: str) -> str:
        """*text* with the first match of *pattern* replaced (Java's ``replaceFirst``)."""
        match = pattern.search(text)
        if match is None:
            return text
        return text[: match.start()] + self.expand(match) + text[match.end() :]


__all__ = ["JavaReplacement", "compile_java_regex", "translate_java_regex"]
