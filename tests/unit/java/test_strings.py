"""seaway.java.strings: String.trim, String.length, Character.digit and charsets."""

from __future__ import annotations

import pytest

from seaway.java.strings import JavaCharset, digit, trim, utf16_length


def test_trim_strips_control_characters_and_spaces_only() -> None:
    assert trim("\x00\t a b \x1f") == "a b"
    assert trim("\u2003a\xa0") == "\u2003a\xa0"


def test_length_counts_utf16_units() -> None:
    assert utf16_length("") == 0 and utf16_length("a\U0001f600") == 3


def test_digit() -> None:
    assert [digit(c) for c in "09\u0663\uff15"] == [0, 9, 3, 5]
    assert digit("a") is None and digit("\U0001d7ce") is None  # a surrogate pair in Java


def test_charset() -> None:
    utf16 = JavaCharset("UTF-16")
    assert utf16.encode("hi") == b"\xfe\xff\x00h\x00i" and utf16.encode("") == b""
    assert utf16.decode(b"\x00h\x00i") == utf16.decode(b"\xff\xfeh\x00i\x00") == "hi"
    assert JavaCharset("ISO-8859-1").encode("é€") == b"\xe9?"
    assert JavaCharset("UTF-8").decode(b"a\xffb") == "a\ufffdb"
    with pytest.raises(ValueError, match="Unsupported encoding nope"):
        JavaCharset("nope")
