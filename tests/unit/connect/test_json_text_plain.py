"""The C-encoder path of JSON text writes the bytes the Jackson-compatible writer writes, for
every tree without Java-printed numbers (random trees with every awkward character), and the
JsonConverter takes it exactly for such schemas."""

from __future__ import annotations

import random

import pytest

from seaway.connect.api.data import Schema, SchemaBuilder, Struct
from seaway.connect.api.data.logical import Decimal
from seaway.connect.converters.json_converter import JsonConverter
from seaway.connect.converters.json_text import dumps, dumps_plain

AWKWARD = ['"', "\\", "\b", "\t", "\n", "\f", "\r", "\x00", "\x1f", "\x7f", "é", "€", "😀",
           "\u2028", "/", "\\u001f", "a"]  # fmt: skip


def _tree(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.randrange(-(2**70), 2**70)
    if kind == 2:
        return "".join(rng.choice(AWKWARD) for _ in range(rng.randrange(6)))
    if kind == 3:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(5)))
    if kind == 4:
        return rng.choice(["", "plain", "x" * 40])
    if kind == 5:
        return [_tree(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        "".join(rng.choice(AWKWARD) for _ in range(rng.randrange(4))): _tree(rng, depth + 1)
        for _ in range(rng.randrange(4))
    }


@pytest.mark.parametrize("seed", range(20))
def test_plain_trees_are_written_byte_for_byte_alike(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(200):
        tree = _tree(rng)
        assert dumps_plain(tree) == dumps(tree), tree


def test_a_lone_surrogate_fails_alike() -> None:
    for write in (dumps, dumps_plain):
        with pytest.raises(UnicodeEncodeError):
            write({"t": "\ud800"})


def test_the_converter_uses_it_only_without_java_numbers() -> None:
    converter = JsonConverter()
    converter.configure({"schemas.enable": "false"}, False)
    plain = SchemaBuilder.struct().field("s", Schema.STRING_SCHEMA).field(
        "d", Decimal.schema(2)).build()  # fmt: skip
    floats = SchemaBuilder.struct().field("f", Schema.FLOAT64_SCHEMA).build()
    assert converter._plain_tree(plain) and not converter._plain_tree(floats)
    numeric = JsonConverter()
    numeric.configure({"schemas.enable": "false", "decimal.format": "NUMERIC"}, False)
    assert not numeric._plain_tree(plain)
    value = Struct(floats).put("f", 1e16)
    assert converter.from_connect_data("t", floats, value) == b'{"f":1.0E16}'  # Java's print
