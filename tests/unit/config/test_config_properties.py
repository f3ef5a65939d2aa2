"""Java .properties parsing (separators, comments, continuations, escapes) and dumping."""

from __future__ import annotations

from pathlib import Path

import pytest

from seaway.config import dump_properties, load_properties, parse_properties


class TestSeparators:
    @pytest.mark.parametrize(
        "line",
        [
            "key=value",
            "key = value",
            "key:value",
            "key : value",
            "key value",
            "key\t \tvalue",
            "   key=value",
            "\t\fkey = value",
            "key =value",
            "key  :  value",
        ],
    )
    def test_forms(self, line: str) -> None:
        assert parse_properties(line) == {"key": "value"}

    def test_only_first_separator_counts(self) -> None:
        assert parse_properties("a=b=c") == {"a": "b=c"}
        assert parse_properties("a = :b") == {"a": ":b"}
        assert parse_properties("url: http://x:8080/") == {"url": "http://x:8080/"}
        assert parse_properties("a b = c") == {"a": "b = c"}

    def test_key_without_value(self) -> None:
        assert parse_properties("lonely\nempty=\ncolon:") == {
            "lonely": "",
            "empty": "",
            "colon": "",
        }

    def test_value_trailing_whitespace_kept(self) -> None:
        assert parse_properties("a = b  ") == {"a": "b  "}

    def test_empty_key(self) -> None:
        assert parse_properties("=v") == {"": "v"}


class TestCommentsAndBlankLines:
    def test_comments(self) -> None:
        text = "# comment\n! bang comment\n   # indented\na=1 # not a comment\n\n\t\nb=#2\n"
        assert parse_properties(text) == {"a": "1 # not a comment", "b": "#2"}

    def test_comment_backslash_does_not_continue(self) -> None:
        assert parse_properties("# comment \\\na=1") == {"a": "1"}

    def test_line_endings(self) -> None:
        assert parse_properties("a=1\r\nb=2\rc=3\n") == {"a": "1", "b": "2", "c": "3"}

    def test_empty_and_whitespace_only(self) -> None:
        assert parse_properties("") == {}
        assert parse_properties("  \n\t\n# only comment") == {}


class TestContinuations:
    def test_joins_and_strips_leading_whitespace(self) -> None:
        text = "fruits = apple, banana, \\\n          pear, \\\n    cantaloupe\n"
        assert parse_properties(text) == {"fruits": "apple, banana, pear, cantaloupe"}

    def test_continuation_with_crlf(self) -> None:
        assert parse_properties("a=1\\\r\n  2\r\nb=3") == {"a": "12", "b": "3"}

    def test_even_backslashes_do_not_continue(self) -> None:
        assert parse_properties("path=C:\\\\\nnext=1") == {"path": "C:\\", "next": "1"}

    def test_continued_line_starting_with_hash_is_not_comment(self) -> None:
        assert parse_properties("a=1\\\n#2") == {"a": "1#2"}

    def test_blank_line_ends_continuation(self) -> None:
        assert parse_properties("a=1\\\n\nb=2") == {"a": "1", "b": "2"}

    def test_trailing_backslash_at_eof_dropped(self) -> None:
        assert parse_properties("a=1\\") == {"a": "1"}

    def test_continuation_in_key(self) -> None:
        assert parse_properties("long\\\n   key=v") == {"longkey": "v"}


class TestEscapes:
    def test_standard_escapes(self) -> None:
        assert parse_properties(r"a=tab\there\nnl\rcr\fff\\bs") == {
            "a": "tab\there\nnl\rcr\fff\\bs"
        }

    def test_unicode_escapes(self) -> None:
        assert parse_properties(r"greet=\u00e9t\u00C9") == {"greet": "étÉ"}
        assert parse_properties(r"emoji=\ud83d\ude00") == {"emoji": "\U0001f600"}

    def test_malformed_unicode(self) -> None:
        with pytest.raises(ValueError):
            parse_properties(r"a=\u12")
        with pytest.raises(ValueError):
            parse_properties(r"a=\uzzzz")

    def test_escaped_separators_and_spaces_in_key(self) -> None:
        assert parse_properties(r"a\=b\:c\ d = v") == {"a=b:c d": "v"}
        assert parse_properties(r"key=\ leading") == {"key": " leading"}

    def test_unknown_escape_yields_char(self) -> None:
        assert parse_properties(r"a=\q\#\!") == {"a": "q#!"}


def test_last_definition_wins() -> None:
    assert parse_properties("a=1\nb=2\na=3") == {"a": "3", "b": "2"}


def test_kafka_style_file(tmp_path: Path) -> None:
    path = tmp_path / "connect-file-source.properties"
    path.write_text(
        "\ufeff# Licensed to the ASF\n"
        "name=local-file-source\n"
        "connector.class=FileStreamSource\n"
        "tasks.max=1\n"
        "file=/tmp/t\u00e9st.txt\n"
        "topic=connect-test\n",
        encoding="utf-8",
    )
    assert load_properties(path) == {
        "name": "local-file-source",
        "connector.class": "FileStreamSource",
        "tasks.max": "1",
        "file": "/tmp/t\u00e9st.txt",
        "topic": "connect-test",
    }


class TestDump:
    TRICKY = {
        "simple": "value",
        "key with spaces": "  leading and trailing  ",
        "sep=:#!": "a=b:c#d!e",
        "ctl": "tab\tnl\ncr\rff\f\x01",
        "back\\slash": "\\\\",
        "uni": "caf\u00e9 \U0001f600",
        "": "",
        "#notcomment": "!",
    }

    def test_round_trip(self) -> None:
        assert parse_properties(dump_properties(self.TRICKY)) == self.TRICKY

    def test_format(self) -> None:
        assert dump_properties({"a b": " x y", "c": "1=2"}) == "a\\ b=\\ x y\nc=1\\=2\n"
        assert dump_properties({"u": "\u00e9\U0001f600"}) == "u=\u00e9\U0001f600\n"

    def test_rejects_non_strings(self) -> None:
        with pytest.raises(TypeError):
            dump_properties({"a": 1})  # type: ignore[dict-item]
