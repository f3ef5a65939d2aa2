"""Offset stores: one contract for memory, file and topic, plus each one's own guarantees."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from seaway.config import ConfigException
from seaway.connect.api.errors import DataError
from seaway.connect.api.offsets import partition_key
from seaway.connect.runtime.storage import (
    CorruptOffsetFileError,
    FileOffsetStore,
    MemoryOffsetStore,
    OffsetStore,
    OffsetStoreReader,
    TopicOffsetStore,
)
from seaway.connect.runtime.storage.offsets import offset_key, offset_value
from tests.connect.storage_helpers import murmur2_partition, produce, read_raw

FILE = {"filename": "/tmp/test.txt"}
OTHER = {"filename": "/tmp/other.txt"}

Factory = Callable[[], OffsetStore]


def factory(kind: str, tmp_path: Path, props: dict[str, Any], started: Any) -> Factory:
    """Makes started stores of one kind; each call is a worker (re)starting on the same data."""

    def make() -> OffsetStore:
        if kind == "memory":
            return started(MemoryOffsetStore())
        if kind == "file":
            return started(FileOffsetStore(tmp_path / "connect.offsets"))
        return started(TopicOffsetStore.from_worker_config(props))

    return make


@pytest.fixture(params=["memory", "file", "topic"])
def new_store(
    request: pytest.FixtureRequest, tmp_path: Path, props: dict[str, Any], started: Any
) -> Factory:
    return factory(request.param, tmp_path, props, started)


@pytest.fixture(params=["file", "topic"])
def new_durable_store(
    request: pytest.FixtureRequest, tmp_path: Path, props: dict[str, Any], started: Any
) -> Factory:
    return factory(request.param, tmp_path, props, started)


# ---------------------------------------------------------------------- the contract


def test_round_trip(new_store: Factory) -> None:
    store = new_store()
    store.set("src", {partition_key(FILE): {"position": 28}, partition_key(OTHER): {"position": 3}})
    store.flush()
    assert store.get("src", [FILE, OTHER, {"filename": "unknown"}]) == {
        partition_key(FILE): {"position": 28},
        partition_key(OTHER): {"position": 3},
    }
    store.set("src", {partition_key(FILE): {"position": 40}})
    assert store.get("src", [FILE]) == {partition_key(FILE): {"position": 40}}


def test_namespaces_are_separate(new_store: Factory) -> None:
    store = new_store()
    store.set("a", {partition_key(FILE): {"position": 1}})
    store.set("b", {partition_key(FILE): {"position": 2}})
    assert store.get("a", [FILE]) == {partition_key(FILE): {"position": 1}}
    assert store.connector_offsets("b") == {partition_key(FILE): {"position": 2}}
    assert store.connector_offsets("c") == {}


def test_none_deletes_an_offset(new_store: Factory) -> None:
    store = new_store()
    store.set("src", {partition_key(FILE): {"position": 1}, partition_key(OTHER): {"line": 9}})
    store.set("src", {partition_key(FILE): None})
    store.flush()
    assert store.get("src", [FILE, OTHER]) == {partition_key(OTHER): {"line": 9}}
    assert store.connector_offsets("src") == {partition_key(OTHER): {"line": 9}}


def test_partition_key_order_does_not_matter(new_store: Factory) -> None:
    store = new_store()
    store.set("src", {partition_key({"b": 1, "a": "x"}): {"pos": 1}})
    assert store.get("src", [{"a": "x", "b": 1}]) == {'{"a":"x","b":1}': {"pos": 1}}
    store.set("src", {'{"b": 1, "a": "x"}': {"pos": 2}})  # not canonical text: still the same
    assert store.connector_offsets("src") == {'{"a":"x","b":1}': {"pos": 2}}
    with pytest.raises(DataError, match="Not a source partition key"):
        store.set("src", {"not json": {"pos": 3}})


def test_offsets_read_back_as_json(new_store: Factory) -> None:
    store = new_store()
    offset = {"i": 2**40, "f": 1.5, "b": True, "n": None, "s": "ü"}
    store.set("src", {partition_key(FILE): offset})
    store.flush()
    assert store.get("src", [FILE])[partition_key(FILE)] == offset


def test_restarted_worker_sees_flushed_offsets(new_durable_store: Factory) -> None:
    new_store = new_durable_store
    store = new_store()
    store.set("src", {partition_key(FILE): {"position": 28}, partition_key(OTHER): {"p": 1}})
    store.set("src", {partition_key(OTHER): None})
    store.flush()
    store.stop()
    again = new_store()
    assert again.connector_offsets("src") == {partition_key(FILE): {"position": 28}}


def test_offsets_must_be_flat_primitive_maps(new_store: Factory) -> None:
    store = new_store()
    with pytest.raises(DataError, match="primitive types"):
        store.set("src", {partition_key(FILE): {"position": {"nested": 1}}})
    with pytest.raises(DataError, match="primitive types"):
        store.set("src", {partition_key({"file": [1, 2]}): {"position": 1}})
    assert store.connector_offsets("src") == {}


def test_reader_reads_one_namespace(new_store: Factory) -> None:
    store = new_store()
    store.set("src", {partition_key(FILE): {"position": 5}})
    reader = OffsetStoreReader(store, "src")
    assert reader.offset(FILE) == {"position": 5}
    assert reader.offset(OTHER) is None
    assert OffsetStoreReader(store, "other").offset(FILE) is None


# ---------------------------------------------------------------------- the topic store


def test_topic_records_are_kafkas(bootstrap: str, props: dict[str, Any], started: Any) -> None:
    store = started(TopicOffsetStore.from_worker_config(props))
    store.set("local-file-source", {partition_key(FILE): {"position": 28}})
    store.set("local-file-source", {partition_key({"b": 2, "a": 1}): {"offset": 7, "x": 1.0e10}})
    store.flush()
    store.set("local-file-source", {partition_key(FILE): None})
    store.flush()
    records = read_raw(bootstrap, props["offset.storage.topic"])
    key = b'["local-file-source",{"filename":"/tmp/test.txt"}]'
    other = b'["local-file-source",{"a":1,"b":2}]'
    partition = murmur2_partition(key, 3)
    assert [r for r in records[partition] if r[0] == key] == [
        (key, b'{"position":28}'),
        (key, None),
    ]
    assert [r for r in records[murmur2_partition(other, 3)] if r[0] == other] == [
        (other, b'{"offset":7,"x":1.0E10}')
    ]
    assert sum(len(rs) for rs in records.values()) == 3


def test_topic_store_reads_what_a_java_worker_wrote(
    bootstrap: str, props: dict[str, Any], started: Any
) -> None:
    topic = props["offset.storage.topic"]
    started(TopicOffsetStore.from_worker_config(props)).stop()  # creates the topic
    java_key = b'["jdbc",{"table":"t","schema":"s"}]'  # keys in the Java map's order
    produce(
        bootstrap,
        topic,
        [
            (java_key, b'{"incrementing":42}', murmur2_partition(java_key, 3)),
            (b"not json", b"{}"),
            (b'["jdbc",null]', b"{}"),
            (b'["jdbc",{"table":"u"}]', b"[1,2]"),
        ],
    )
    store = started(TopicOffsetStore.from_worker_config(props))
    partition = {"schema": "s", "table": "t"}
    assert store.connector_offsets("jdbc") == {partition_key(partition): {"incrementing": 42}}
    # Rewrites use the stored key bytes, so compaction replaces the Java worker's record.
    store.set("jdbc", {partition_key(partition): {"incrementing": 43}})
    store.flush()
    written = read_raw(bootstrap, topic)[murmur2_partition(java_key, 3)]
    assert written[-1] == (java_key, b'{"incrementing":43}')


def test_two_workers_share_offsets(props: dict[str, Any], started: Any) -> None:
    first = started(TopicOffsetStore.from_worker_config(props))
    second = started(TopicOffsetStore.from_worker_config(props))
    first.set("src", {partition_key(FILE): {"position": 1}})
    first.flush()
    assert second.get("src", [FILE]) == {partition_key(FILE): {"position": 1}}
    second.set("src", {partition_key(FILE): None})
    second.flush()
    assert first.get("src", [FILE]) == {}


# ---------------------------------------------------------------------- the file store


def test_file_is_readable_json(tmp_path: Path, started: Any) -> None:
    path = tmp_path / "offsets" / "connect.offsets"  # the directory is created
    store = started(FileOffsetStore(path))
    store.set("local-file-source", {partition_key(FILE): {"position": 28}})
    store.flush()
    assert json.loads(path.read_text()) == {
        "format": "seaway-connect-offsets",
        "version": 1,
        "offsets": [
            {"connector": "local-file-source", "partition": FILE, "offset": {"position": 28}}
        ],
    }
    assert sorted(p.name for p in path.parent.iterdir()) == ["connect.offsets"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_file_is_written_on_flush_and_stop(tmp_path: Path) -> None:
    path = tmp_path / "connect.offsets"
    store = FileOffsetStore(path)
    store.start()
    store.set("src", {partition_key(FILE): {"position": 1}})
    assert not path.exists()
    store.stop()
    assert FileOffsetStore(path).connector_offsets("src") == {}  # not started: nothing loaded
    again = FileOffsetStore(path)
    again.start()
    assert again.connector_offsets("src") == {partition_key(FILE): {"position": 1}}


def test_file_write_is_atomic(
    tmp_path: Path, started: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "connect.offsets"
    store = started(FileOffsetStore(path))
    store.set("src", {partition_key(FILE): {"position": 1}})
    store.flush()
    before = path.read_bytes()

    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
    store.set("src", {partition_key(FILE): {"position": 2}})
    store.flush()
    assert len(synced) == 2  # the new file, then the directory holding it
    assert json.loads(path.read_bytes())["offsets"][0]["offset"] == {"position": 2}

    def crash(self: Path, target: Any) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(Path, "replace", crash)
    store.set("src", {partition_key(FILE): {"position": 3}})
    with pytest.raises(Exception, match="disk on fire"):
        store.flush()
    assert json.loads(path.read_bytes())["offsets"][0]["offset"] == {"position": 2}
    assert path.read_bytes() != before
    assert [p.name for p in tmp_path.iterdir()] == ["connect.offsets"]  # no temporary left


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "not valid JSON"),
        (b'{"format": "seaway-connect-offsets", "version": 1, "offs', "not valid JSON"),
        (b"\xac\xed\x00\x05sr\x00\x11java.util.HashMap", "Java-serialized"),
        (b"[]", "marker"),
        (b'{"format": "seaway-connect-offsets", "version": 9, "offsets": []}', "version 9"),
        (
            b'{"format": "seaway-connect-offsets", "version": 1, "offsets": [{"connector": 1}]}',
            "entry 0",
        ),
    ],
)
def test_corrupt_file_is_an_error_not_a_reset(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "connect.offsets"
    path.write_bytes(content)
    store = FileOffsetStore(path)
    with pytest.raises(CorruptOffsetFileError) as info:
        store.start()
    message = str(info.value)
    assert str(path) in message and problem in message
    assert "offset.storage.file.filename" in message and "delete it" in message
    assert path.read_bytes() == content


def test_file_store_from_worker_config(tmp_path: Path) -> None:
    path = tmp_path / "x.offsets"
    store = FileOffsetStore.from_worker_config({"offset.storage.file.filename": str(path)})
    assert store.path == path
    with pytest.raises(ConfigException, match=r"offset\.storage\.file\.filename"):
        FileOffsetStore.from_worker_config({})


def test_record_format_helpers() -> None:
    assert offset_key("local-file-source", FILE) == (
        b'["local-file-source",{"filename":"/tmp/test.txt"}]'
    )
    assert offset_value({"position": 28}) == b'{"position":28}'
    assert offset_value(None) is None
