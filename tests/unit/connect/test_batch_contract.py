"""The batch contract gives exactly what the per-record path gives.

Converters' whole-column conversions against ``from_connect_data`` / ``to_connect_data``
value by value; FileStreamSource's ``read_batches`` against ``read`` (every terminator,
terminators split across chunks, invalid UTF-8); FileStreamSink's ``put_batch`` against
``put``; the source runtime's Kafka rows from a batch against those from its records.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from seaway.connect.api import Schema, SchemaBuilder, Struct
from seaway.connect.api.batches import SinkBatch, SourceBatch
from seaway.connect.api.data.arrow import structs_to_table
from seaway.connect.converters.byte_array_converter import ByteArrayConverter
from seaway.connect.converters.json_converter import JsonConverter
from seaway.connect.converters.string_converter import StringConverter
from seaway.connect.runtime.queries.conversion import ConversionSpec, ConverterSpec, RecordConverter
from seaway.connect.runtime.queries.source import kafka_rows, source_records
from seaway.connectors.file import source as file_source
from seaway.connectors.file.sink import FileStreamSinkTask
from tests.unit.connectors.connector_helpers import source_task

TEXTS = ["plain line", "", "é ü 漢字 🎉", "tab\there", 'quote " inside', "back\\slash", "x" * 300]


def _json(schemas: bool) -> JsonConverter:
    converter = JsonConverter()
    converter.configure({"schemas.enable": str(schemas).lower()}, is_key=False)
    return converter


def _string() -> StringConverter:
    converter = StringConverter()
    converter.configure({}, is_key=False)
    return converter


CONVERTERS = {
    "string": _string,
    "json-schemas": lambda: _json(True),
    "json-plain": lambda: _json(False),
}


@pytest.mark.parametrize("name", list(CONVERTERS))
@pytest.mark.parametrize("texts", [TEXTS[:3], TEXTS, ["a", None]])
def test_text_columns_convert_as_records_do(name: str, texts: list[Any]) -> None:
    converter = CONVERTERS[name]()
    schema = Schema.OPTIONAL_STRING_SCHEMA if None in texts else Schema.STRING_SCHEMA
    column = converter.from_connect_column("t", schema, pa.array(texts, pa.string()))
    expected = [converter.from_connect_data("t", schema, text) for text in texts]
    if column is not None:
        assert column.to_pylist() == expected
    else:  # only where the per-record path must decide: escapes, nulls in JSON
        assert name.startswith("json") and (None in texts or texts == TEXTS)
    back = converter.to_connect_column("t", pa.array(expected, pa.binary()))
    records = [converter.to_connect_data("t", value) for value in expected]
    if back is not None:
        assert back[1].to_pylist() == [r.value for r in records]
        assert {back[0]} == {r.schema for r in records if r.value is not None} | (
            {back[0]} if all(r.value is None for r in records) else set()
        )
    else:
        assert name.startswith("json") and (None in texts or texts == TEXTS)


def test_json_columns_of_plain_text_take_the_column_path() -> None:
    converter = _json(True)
    column = converter.from_connect_column("t", Schema.STRING_SCHEMA, pa.array(TEXTS[:3]))
    assert column is not None
    assert converter.to_connect_column("t", column) is not None


def test_bytes_and_invalid_utf8() -> None:
    raw = [b"\x00\xff", b"", None]
    converter = ByteArrayConverter()
    column = converter.from_connect_column("t", Schema.OPTIONAL_BYTES_SCHEMA, pa.array(raw))
    assert column is not None and column.to_pylist() == raw
    assert converter.to_connect_column("t", pa.array(raw)) == (Schema.OPTIONAL_BYTES_SCHEMA, column)
    # StringConverter replaces invalid UTF-8 with U+FFFD record by record: no column path.
    assert _string().to_connect_column("t", pa.array([b"ok", b"\xff"])) is None
    assert (
        ByteArrayConverter().from_connect_column("t", Schema.STRING_SCHEMA, pa.array(raw)) is None
    )


@pytest.mark.parametrize("batch_bytes", [7, 64, 1 << 20])
def test_file_source_batches_are_its_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch_bytes: int
) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(
        b"one\ntwo\r\nthree\rfour\r\n\nbad \xff byte\n\xe6\xbc\xa2\xe5\xad\x97\r\n" * 5 + b"end\r"
    )
    monkeypatch.setattr(file_source, "BATCH_BYTES", batch_bytes)
    task = source_task(path, batch_size=1000)
    end = task.plan({})[next(iter(task.plan({})))]
    records = list(task.read(task.partition, None, end))
    batches = list(task.read_batches(task.partition, None, end))
    assert all(
        b.topic == "connect-test" and b.value_schema is Schema.STRING_SCHEMA for b in batches
    )
    assert [v for b in batches for v in b.records["value"].to_pylist()] == [
        r.value for r in records
    ]
    middle = records[9].source_offset
    assert [v for b in task.read_batches(task.partition, middle, end) for v in
            b.records["value"].to_pylist()] == [r.value for r in records[10:]]  # fmt: skip


def test_file_source_batches_refuse_a_rewritten_file(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_bytes(b"a\nb\n")
    task = source_task(path)
    with pytest.raises(Exception, match="changed"):
        list(task.read_batches(task.partition, None, {"position": 3}))


def test_file_sink_batch_writes_what_put_writes() -> None:
    records = pa.RecordBatch.from_pydict(
        {
            "offset": [5, 6, 7],
            "timestamp": [1, 2, None],
            "key": [None, None, None],
            "value": ["a", None, "é"],
        }
    )
    batch = SinkBatch("t", 0, records, None, Schema.OPTIONAL_STRING_SCHEMA)
    by_batch, by_records = io.StringIO(), io.StringIO()
    for out, put in ((by_batch, "put_batch"), (by_records, "put")):
        task = FileStreamSinkTask(out)
        task.start({})
        getattr(task, put)(batch if put == "put_batch" else batch.sink_records())
    assert by_batch.getvalue() == by_records.getvalue() == "a\nnull\né\n"


def _conversion(value: str) -> ConversionSpec:
    string = ConverterSpec("org.apache.kafka.connect.storage.StringConverter", {})
    return ConversionSpec(
        connector="c",
        key=string,
        value=ConverterSpec(value, {"schemas.enable": "true"}),
        header=ConverterSpec("org.apache.kafka.connect.storage.SimpleHeaderConverter", {}),
        connector_config={},
    )


@pytest.mark.parametrize(
    "value",
    [
        "org.apache.kafka.connect.json.JsonConverter",
        "org.apache.kafka.connect.storage.StringConverter",
    ],
)
def test_source_rows_from_a_batch_are_the_rows_of_its_records(value: str) -> None:
    converter = RecordConverter(_conversion(value))
    records = pa.RecordBatch.from_pydict(
        {"value": TEXTS[:3], "timestamp": [1_700_000_000_000, 1_700_000_000_001, None]}
    )
    batch = SourceBatch("topic", records, Schema.STRING_SCHEMA)
    rows = kafka_rows(converter, batch)
    assert rows is not None
    expected = [converter.source_rows(r) for r in source_records(batch)]
    got = rows.to_pylist()
    assert [
        (r["topic"], r["partition"], r["key"], r["value"], r["headers"] or []) for r in got
    ] == [(e[0], e[1], e[2], e[3], e[4]) for e in expected]
    assert [None if r["timestamp"] is None else int(r["timestamp"].timestamp() * 1000)
            for r in got] == [e[5] for e in expected]  # fmt: skip


@pytest.mark.parametrize("with_float", [False, True], ids=["columns", "records"])
def test_struct_batches_give_the_rows_of_their_records(with_float: bool) -> None:
    """A batch of Struct values (the JDBC source's): JsonConverter writes the column whole,
    or (a FLOAT64 field, which Java prints its own way) the runtime goes record by record
    with the values turned back into Structs; the Kafka rows are the same either way."""
    builder = (SchemaBuilder.struct().name("events").field("id", Schema.INT64_SCHEMA)
               .field("name", Schema.OPTIONAL_STRING_SCHEMA))  # fmt: skip
    if with_float:
        builder.field("ratio", Schema.FLOAT64_SCHEMA)
    schema = builder.build()
    values = [Struct(schema).put("id", i).put("name", None if i % 2 else f"n{i}") for i in range(3)]
    if with_float:
        values = [v.put("ratio", 1e10 * i) for i, v in enumerate(values)]
    records = pa.RecordBatch.from_arrays(
        [structs_to_table(schema, values).to_struct_array().combine_chunks()], names=["value"]
    )
    batch = SourceBatch("topic", records, schema)
    converter = RecordConverter(_conversion("org.apache.kafka.connect.json.JsonConverter"))
    rows = kafka_rows(converter, batch)
    assert (rows is None) == with_float
    from_records = [converter.source_rows(r) for r in source_records(batch)]
    assert [r[3] for r in from_records] == [
        _json(True).from_connect_data("topic", schema, v) for v in values
    ]
    if rows is not None:
        assert rows.column("value").to_pylist() == [r[3] for r in from_records]
