"""seaway.java.regex: Java regexes and replacement strings on Python's re."""

from __future__ import annotations

import re

import pytest

from seaway.java.regex import JavaReplacement, compile_java_regex


@pytest.mark.parametrize(
    ("java", "text", "matches"),
    [
        ("(?<name>a+)\\k<name>", "aaaa", True),
        ("\\Qa.b\\E", "a.b", True),
        ("\\Qa.b\\E", "axb", False),
        ("\\p{Alpha}+\\P{Digit}", "abc-", True),
        ("[\\p{Digit}x]+", "1x2", True),
        ("\\d+", "\u0661", False),  # ASCII digits only, as in Java
        ("a\\z", "a", True),
        ("[]a]+", "]a", True),
        ("\\x{41}\\h\\e", "A \x1b", True),
    ],
)
def test_java_regex(java: str, text: str, matches: bool) -> None:
    assert (compile_java_regex(java).fullmatch(text) is not None) is matches


@pytest.mark.parametrize("java", ["[a-z&&[^b]]", "[a[b]]", "\\G", "\\p{Nope}", "(", "[a"])
def test_unsupported_or_invalid_java_regex(java: str) -> None:
    with pytest.raises(re.error):
        compile_java_regex(java)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ("$", "group index is missing"),
        ("$x", "Illegal group reference"),
        ("${nope}", "No group with name {nope}"),
        ("${a", "missing trailing '}'"),
        ("\\", "character to be escaped is missing"),
        ("$3", "No group 3"),
    ],
)
def test_java_replacement_errors(template: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        JavaReplacement(template, compile_java_regex("(?<a>x)(y)"))
