"""MM2 internal-topic records: golden bytes written out from Kafka's Struct layouts."""

from __future__ import annotations

import random

import pytest

from seaway.connect.api.structs import OffsetAndMetadata, TopicPartition
from seaway.mirror.formats import (
    Checkpoint,
    Heartbeat,
    OffsetSync,
    SchemaError,
    unwrap_offset,
    unwrap_partition,
    wrap_offset,
    wrap_partition,
)


def h(text: str) -> bytes:
    """Hex with spaces for readability."""
    return bytes.fromhex(text.replace(" ", ""))


# The expected bytes below are written by hand from the schemas: STRING = INT16 length +
# UTF-8, INT32/INT64 big-endian, INT16 version 0 before Checkpoint and Heartbeat values.
# "topic-1" = 74 6f 70 69 63 2d 31; "group-1" = 67 72 6f 75 70 2d 31; and so on.


class TestOffsetSyncBytes:
    def test_kafka_offset_sync_test_values(self) -> None:
        # OffsetSyncTest: OffsetSync(TopicPartition("topic-1", 2), 3, 4)
        sync = OffsetSync("topic-1", 2, 3, 4)
        assert sync.record_key() == h("0007 746f7069632d31 00000002")
        assert sync.record_value() == h("0000000000000003 0000000000000004")

    def test_mm2_reference_vector(self) -> None:
        sync = OffsetSync("topic1", 2, 3, 4)
        assert sync.record_key() == h("0006746f7069633100000002")
        assert sync.record_value() == h("00000000000000030000000000000004")

    def test_no_version_header_and_full_long_range(self) -> None:
        sync = OffsetSync("t", 0x7FFFFFFF, -1, 0x7FFFFFFFFFFFFFFF)
        assert sync.record_key() == h("0001 74 7fffffff")
        assert sync.record_value() == h("ffffffffffffffff 7fffffffffffffff")

    def test_round_trip(self) -> None:
        sync = OffsetSync("topic-1", 2, 3, 4)
        assert OffsetSync.from_record(sync.record_key(), sync.record_value()) == sync

    def test_decodes_bytes_like(self) -> None:
        key, value = h("0001 61 00000005"), h("0000000000000001 0000000000000002")
        expected = OffsetSync("a", 5, 1, 2)
        assert OffsetSync.from_record(bytearray(key), memoryview(value)) == expected

    def test_topic_partition_and_str(self) -> None:
        sync = OffsetSync("topic-1", 2, 3, 4)
        assert sync.topic_partition == TopicPartition("topic-1", 2)
        assert (
            str(sync)
            == "OffsetSync{topicPartition=topic-1-2, upstreamOffset=3, downstreamOffset=4}"
        )


class TestCheckpointBytes:
    def test_kafka_checkpoint_test_values(self) -> None:
        # CheckpointTest: Checkpoint("group-1", TopicPartition("topic-2", 3), 4, 5, "metadata-6")
        checkpoint = Checkpoint("group-1", "topic-2", 3, 4, 5, "metadata-6")
        assert checkpoint.record_key() == h("0007 67726f75702d31 0007 746f7069632d32 00000003")
        assert checkpoint.record_value() == h(
            "0000 0000000000000004 0000000000000005 000a 6d657461646174612d36"
        )

    def test_empty_metadata_and_utf8(self) -> None:
        checkpoint = Checkpoint("gé", "src.tö", 0, 0, 1)
        assert checkpoint.record_key() == h("0003 67c3a9 0007 7372632e74c3b6 00000000")
        assert checkpoint.record_value() == h("0000 0000000000000000 0000000000000001 0000")

    def test_round_trip(self) -> None:
        checkpoint = Checkpoint("group-1", "topic-2", 3, 4, 5, "metadata-6")
        decoded = Checkpoint.from_record(checkpoint.record_key(), checkpoint.record_value())
        assert decoded == checkpoint

    def test_offset_and_metadata_is_the_downstream_offset(self) -> None:
        checkpoint = Checkpoint("g", "source.t", 1, 40, 50, "meta")
        assert checkpoint.offset_and_metadata() == OffsetAndMetadata(50, "meta")
        assert checkpoint.topic_partition == TopicPartition("source.t", 1)

    def test_connect_partition_and_offset(self) -> None:
        checkpoint = Checkpoint("g", "source.t", 1, 40, 50)
        partition = checkpoint.connect_partition()
        assert partition == {"group": "g", "topic": "source.t", "partition": 1}
        # Java HashMap iteration order, as Kafka's JsonConverter writes the map.
        assert list(partition) == ["partition", "topic", "group"]
        assert checkpoint.connect_offset() == {"offset": 0}
        assert Checkpoint.unwrap_group(partition) == "g"

    def test_str(self) -> None:
        checkpoint = Checkpoint("group-1", "topic-2", 3, 4, 5, "metadata-6")
        assert str(checkpoint) == (
            "Checkpoint{consumerGroupId=group-1, topicPartition=topic-2-3, upstreamOffset=4, "
            "downstreamOffset=5, metadata=metadata-6}"
        )


class TestHeartbeatBytes:
    def test_kafka_heartbeat_test_values(self) -> None:
        # HeartbeatTest: Heartbeat("source-1", "target-2", 1234567890L); 1234567890 = 0x499602d2
        heartbeat = Heartbeat("source-1", "target-2", 1234567890)
        assert heartbeat.record_key() == h("0008 736f757263652d31 0008 7461726765742d32")
        assert heartbeat.record_value() == h("0000 00000000499602d2")

    def test_round_trip(self) -> None:
        heartbeat = Heartbeat("source-1", "target-2", 1_700_000_000_123)
        decoded = Heartbeat.from_record(heartbeat.record_key(), heartbeat.record_value())
        assert decoded == heartbeat

    def test_connect_partition_and_offset(self) -> None:
        heartbeat = Heartbeat("a", "b", 1)
        partition = heartbeat.connect_partition()
        assert partition == {"sourceClusterAlias": "a", "targetClusterAlias": "b"}
        assert list(partition) == ["sourceClusterAlias", "targetClusterAlias"]
        assert heartbeat.connect_offset() == {"offset": 0}

    def test_str(self) -> None:
        assert str(Heartbeat("a", "b", 7)) == (
            "Heartbeat{sourceClusterAlias=a, targetClusterAlias=b, timestamp=7}"
        )


class TestSourcePartitionMaps:
    def test_wrap_partition_in_hash_map_order(self) -> None:
        wrapped = wrap_partition(TopicPartition("topic1", 3), "primary")
        assert wrapped == {"cluster": "primary", "topic": "topic1", "partition": 3}
        assert list(wrapped) == ["cluster", "partition", "topic"]
        assert unwrap_partition(wrapped) == TopicPartition("topic1", 3)

    def test_wrap_offset(self) -> None:
        assert wrap_offset(41) == {"offset": 41}
        assert unwrap_offset({"offset": 41}) == 41
        assert unwrap_offset(None) == -1  # Kafka: no stored offset
        assert unwrap_offset({"offset": None}) == -1
        assert unwrap_offset({}) == -1


class TestLenientReading:
    """What Kafka's Schema.read accepts, this accepts."""

    def test_trailing_bytes_are_ignored(self) -> None:
        key = h("0001 61 00000001 ff")
        value = h("0000 0000000000000002 0000000000000003 0000 deadbeef")
        assert Checkpoint.from_record(h("0001 67") + key, value) == Checkpoint("g", "a", 1, 2, 3)

    def test_invalid_utf8_is_replaced_like_java(self) -> None:
        sync = OffsetSync.from_record(h("0002 61ff 00000000"), h("00" * 16))
        assert sync.topic == "a\ufffd"

    def test_unpaired_surrogate_is_written_as_question_mark_like_java(self) -> None:
        assert OffsetSync("a\ud800", 0, 0, 0).record_key() == h("0002 613f 00000000")


class TestMalformedRecords:
    def _error(self, cls: type, key: object, value: object) -> str:
        with pytest.raises(SchemaError) as info:
            cls.from_record(key, value)
        return str(info.value)

    def test_truncated_string(self) -> None:
        message = self._error(OffsetSync, h("0007 746f70"), h("00" * 16))
        assert "OffsetSync key" in message
        assert "'topic'" in message
        assert "7" in message and "3 remain" in message

    def test_missing_partition(self) -> None:
        message = self._error(OffsetSync, h("0001 61 0000"), h("00" * 16))
        assert "OffsetSync key: field 'partition' needs 4 bytes (INT32)" in message

    def test_short_value(self) -> None:
        message = self._error(OffsetSync, h("0001 61 00000000"), h("00" * 12))
        assert "OffsetSync value: field 'offset' needs 8 bytes (INT64) at byte 8" in message

    def test_negative_string_length(self) -> None:
        message = self._error(Checkpoint, h("ffff"), h("0000" + "00" * 16 + "0000"))
        assert "Checkpoint key: field 'group' has string length -1" in message
        assert "not nullable" in message

    def test_unknown_version(self) -> None:
        message = self._error(Checkpoint, h("0001 67 0001 74 00000000"), h("0001" + "00" * 18))
        assert message == "Checkpoint value: unsupported version 1 (only version 0 exists)"
        message = self._error(Heartbeat, h("0001 61 0001 62"), h("ffff" + "00" * 8))
        assert "Heartbeat value: unsupported version -1" in message

    def test_missing_version(self) -> None:
        message = self._error(Heartbeat, h("0001 61 0001 62"), h("00"))
        assert "Heartbeat value: field 'version' needs 2 bytes (INT16)" in message

    def test_null_key_or_value(self) -> None:
        assert (
            self._error(Heartbeat, h("0001 61 0001 62"), None)
            == "Heartbeat value is missing (null)"
        )
        assert self._error(OffsetSync, None, h("00" * 16)) == "OffsetSync key is missing (null)"

    def test_not_bytes(self) -> None:
        message = self._error(OffsetSync, "0001", h("00" * 16))
        assert message == "OffsetSync key must be bytes, not str"


class TestUnencodableValues:
    def test_partition_beyond_int32(self) -> None:
        with pytest.raises(
            SchemaError, match=r"field 'partition' = 2147483648 does not fit in INT32"
        ):
            OffsetSync("t", 2**31, 0, 0).record_key()

    def test_offset_beyond_int64(self) -> None:
        with pytest.raises(SchemaError, match=r"Checkpoint value: field 'upstreamOffset'"):
            Checkpoint("g", "t", 0, 2**63, 0).record_value()

    def test_null_string(self) -> None:
        with pytest.raises(SchemaError, match=r"field 'metadata' is null; STRING is not nullable"):
            Checkpoint("g", "t", 0, 0, 0, None).record_value()  # type: ignore[arg-type]

    def test_string_length_limit(self) -> None:
        assert len(Heartbeat("a" * 32767, "b", 0).record_key()) == 2 + 32767 + 2 + 1
        with pytest.raises(SchemaError, match=r"is 32768 UTF-8 bytes, longer than the STRING"):
            Heartbeat("a" * 32768, "b", 0).record_key()

    def test_wrong_types(self) -> None:
        with pytest.raises(SchemaError, match=r"field 'timestamp' must be an int"):
            Heartbeat("a", "b", 1.5).record_value()  # type: ignore[arg-type]
        with pytest.raises(SchemaError, match=r"field 'partition' must be an int"):
            OffsetSync("t", True, 0, 0).record_key()
        with pytest.raises(SchemaError, match=r"field 'topic' must be a str"):
            OffsetSync(b"t", 0, 0, 0).record_key()  # type: ignore[arg-type]


def test_random_round_trips() -> None:
    rng = random.Random(7)

    def text() -> str:
        return "".join(rng.choice("abc.-_é€😀") for _ in range(rng.randint(0, 20)))

    def long() -> int:
        return rng.randint(-(2**63), 2**63 - 1)

    for _ in range(300):
        partition = rng.randint(-(2**31), 2**31 - 1)
        records = [
            OffsetSync(text(), partition, long(), long()),
            Checkpoint(text(), text(), partition, long(), long(), text()),
            Heartbeat(text(), text(), long()),
        ]
        for record in records:
            assert type(record).from_record(record.record_key(), record.record_value()) == record
