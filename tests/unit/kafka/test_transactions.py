"""write_range's rules over a fake producer: skip, sequence fence, marker commit, abort."""

from __future__ import annotations

from typing import Any

import pytest

from seaway.kafka import transactions
from seaway.kafka.transactions import Marker, TransactionFenced, write_range


class FakeProducer:
    transactional_id = "txn-1"

    def __init__(self, fail_commit: BaseException | None = None) -> None:
        self.calls: list[Any] = []
        self.fail_commit = fail_commit

    def begin(self) -> None:
        self.calls.append("begin")

    def send_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]) -> None:
        self.calls.append(("offsets", group_id, offsets))

    def commit(self) -> None:
        if self.fail_commit is not None:
            raise self.fail_commit
        self.calls.append("commit")

    def abort(self) -> None:
        self.calls.append("abort")

    def fatal_error(self) -> None:
        return None


@pytest.fixture
def committed(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    values: dict[str, int] = {}
    monkeypatch.setattr(transactions, "committed", lambda _c, group, *_: values.get(group, -1))
    return values


def test_batch_marker_commits_with_the_records(committed: dict[str, int]) -> None:
    producer = FakeProducer()
    seen: list[int] = []
    marker = Marker("g", "t", next=5)
    assert write_range(producer, marker, lambda c: seen.append(c) or 5, {})
    assert seen == [-1]
    assert producer.calls == ["begin", ("offsets", "g", {("t", 0): 5}), "commit"]


def test_a_committed_batch_is_skipped(committed: dict[str, int]) -> None:
    committed["g"] = 5
    producer = FakeProducer()
    assert not write_range(producer, Marker("g", "t", next=5), lambda c: 5, {})
    assert producer.calls == []


def test_no_marker_no_read_and_no_offsets(committed: dict[str, int]) -> None:
    producer = FakeProducer()
    assert write_range(producer, None, lambda c: None, {})
    assert producer.calls == ["begin", "commit"]


@pytest.mark.parametrize(("value", "written"), [(-1, True), (1, False)])
def test_sequence_fence_goes_on_from_its_previous_value(
    committed: dict[str, int], value: int, written: bool
) -> None:
    committed["g"] = value
    producer = FakeProducer()
    assert write_range(producer, Marker("g", "t", next=1, previous=0), lambda c: 1, {}) is written


def test_sequence_fence_overtaken_writes_nothing(committed: dict[str, int]) -> None:
    committed["g"] = 3
    producer = FakeProducer()
    with pytest.raises(TransactionFenced, match="batch 3 is committed"):
        write_range(producer, Marker("g", "t", next=2, previous=1), lambda c: 2, {})
    assert producer.calls == []


def test_two_runs_planning_from_one_batch_never_take_the_others_commit(
    committed: dict[str, int],
) -> None:
    """A frozen worker's run and its successor's both plan from the committed batch 7:
    whichever commits first, the other is fenced; it never skips its range as written
    (different ranges: the skip would lose the records of one of them)."""
    from seaway.connect.runtime.queries.source import next_batch_id

    committed["g"] = 7
    zombie, owner = next_batch_id(), next_batch_id()
    assert zombie != owner and min(zombie, owner) > 0
    assert write_range(
        FakeProducer(), Marker("g", "t", next=owner, previous=7), lambda c: owner, {}
    )
    committed["g"] = owner
    producer = FakeProducer()
    with pytest.raises(TransactionFenced, match=f"batch {owner} is committed"):
        write_range(producer, Marker("g", "t", next=zombie, previous=7), lambda c: zombie, {})
    assert producer.calls == []
    # the owner's own batch, retried by Spark after its commit, is skipped
    assert not write_range(
        FakeProducer(), Marker("g", "t", next=owner, previous=7), lambda c: owner, {}
    )


def test_a_failed_write_aborts(committed: dict[str, int]) -> None:
    producer = FakeProducer()

    def write(_committed: int) -> int:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        write_range(producer, Marker("g", "t"), write, {})
    assert producer.calls == ["begin", "abort"]


def test_a_fenced_commit_under_a_sequence_fence(committed: dict[str, int]) -> None:
    from confluent_kafka import KafkaError, KafkaException

    producer = FakeProducer(KafkaException(KafkaError(KafkaError._FENCED)))
    with pytest.raises(TransactionFenced, match="taken over"):
        write_range(producer, Marker("g", "t", next=1, previous=0), lambda c: 1, {})
    assert producer.calls[-1] == "abort"


def test_a_fenced_flush_under_a_sequence_fence(committed: dict[str, int]) -> None:
    """librdkafka raises a fatal error inside flush(), where a delivery report then fails."""
    from confluent_kafka import KafkaError, KafkaException

    def write(_committed: int) -> int:
        try:
            raise KafkaException(KafkaError(KafkaError._FENCED))
        except KafkaException:
            raise SystemError("returned a result with an exception set")  # noqa: B904

    with pytest.raises(TransactionFenced):
        write_range(FakeProducer(), Marker("g", "t", next=1, previous=0), write, {})


@pytest.mark.parametrize(("cause", "fenced"), [("_FENCED", True), ("_INVALID_ARG", False)])
def test_a_fatal_produce_error_is_fenced_when_its_cause_is(
    committed: dict[str, int], cause: str, fenced: bool
) -> None:
    """librdkafka's ``produce()`` raises only "Fatal error"; the cause comes through the
    producer's error callback (here: another incarnation re-initialized the id)."""
    from confluent_kafka import KafkaError, KafkaException

    class FatalProducer(FakeProducer):
        def fatal_error(self) -> KafkaError:
            return KafkaError(getattr(KafkaError, cause), fatal=True)

    def write(_committed: int) -> int:
        raise KafkaException(KafkaError(KafkaError._FATAL))

    expected = TransactionFenced if fenced else KafkaException
    with pytest.raises(expected):
        write_range(FatalProducer(), Marker("g", "t", next=1, previous=0), write, {})
