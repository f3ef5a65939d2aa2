"""Offset-sync emission and translation: Kafka's MirrorSourceTaskTest (sync rule),
OffsetSyncWriterTest and OffsetSyncStoreTest, plus replication simulations checking that a
translated offset is never ahead of the consumer's real position."""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Iterable, Iterator

import pytest

from seaway.connect.api.structs import TopicPartition
from seaway.mirror.formats import OffsetSync
from seaway.mirror.offset_syncs import (
    SYNCS_PER_PARTITION,
    OffsetSyncStore,
    OffsetSyncWriter,
    PartitionState,
)

TP = TopicPartition("topic1", 2)
LONG_MAX = (1 << 63) - 1


def sync(upstream: int, downstream: int, tp: TopicPartition = TP) -> OffsetSync:
    return OffsetSync(tp.topic, tp.partition, upstream, downstream)


def translate(store: OffsetSyncStore, upstream: int) -> int | None:
    return store.translate_downstream(None, TP, upstream)


# --- When syncs are emitted (MirrorSourceTaskTest.testOffsetSync / testZeroOffsetSync) ---


def test_partition_state_sync_rule() -> None:
    state = PartitionState(50)
    assert state.update(0, 100), "always emit offset sync on first update"
    assert state.should_sync_offsets
    state.reset()
    assert not state.should_sync_offsets
    assert state.update(2, 102), "upstream offset skipped -> resync"
    state.reset()
    assert not state.update(3, 152), "no sync"
    state.reset()
    assert state.update(4, 153), "one past target offset"
    state.reset()
    assert not state.update(5, 154), "no sync"
    state.reset()
    assert not state.update(6, 203), "no sync"
    state.reset()
    assert state.update(7, 204), "one past target offset"
    state.reset()
    assert state.update(2, 206), "upstream reset"
    state.reset()
    assert not state.update(3, 207), "no sync"
    state.reset()
    assert state.update(4, 3), "downstream reset"
    state.reset()
    assert not state.update(5, 4), "no sync"
    assert state.update(7, 6), "upstream skipped"
    assert state.update(7, 6), "repeated upstream offset"
    assert state.update(8, 7), "sticky until reset"
    assert state.update(10, 57), "upstream skipped"
    state.reset()
    assert not state.update(11, 58), "no sync"
    assert not state.should_sync_offsets


def test_zero_offset_lag_always_syncs() -> None:
    state = PartitionState(0)
    pairs = [(0, 100), (2, 102), (3, 153), (4, 154), (5, 155), (6, 207), (2, 208), (3, 209)]
    pairs += [(4, 3), (5, 4), (7, 6), (7, 6), (8, 7), (10, 57), (11, 58)]
    for upstream, downstream in pairs:
        assert state.update(upstream, downstream), (upstream, downstream)
        state.reset()


def test_partition_state_tracks_offsets() -> None:
    state = PartitionState(10)
    state.update(5, 50)
    state.reset()
    state.update(6, 51)
    assert state == PartitionState(10, 6, 51, 50, False)


def test_stale_translation_bound_counts_one_past_the_sync() -> None:
    # Translation lands one past a sync, so the sync is due when downstream reaches
    # last sync + 1 + offset.lag.max.
    state = PartitionState(3)
    assert state.update(0, 10)
    state.reset()
    assert [state.update(u, 10 + u) for u in (1, 2, 3)] == [False, False, False]
    assert state.update(4, 14)


# --- OffsetSyncWriterTest ---


def test_maybe_queue_offset_syncs() -> None:
    writer = OffsetSyncWriter(max_offset_lag=2)
    tp = TopicPartition("topic", 0)
    assert writer.maybe_queue_offset_syncs(tp, 0, 1)
    assert tp not in writer.delayed_offset_syncs
    assert writer.pending_offset_syncs[tp] == OffsetSync("topic", 0, 0, 1)
    assert writer.partition_states[tp].last_sync_downstream_offset == 1

    assert not writer.maybe_queue_offset_syncs(tp, 1, 2)
    assert writer.delayed_offset_syncs[tp] == OffsetSync("topic", 0, 1, 2)
    assert writer.partition_states[tp].last_sync_downstream_offset == 1


def test_take_pending_offset_syncs_with_a_limit() -> None:
    # testFirePendingOffsetSyncs: with one send outstanding, later syncs wait.
    writer = OffsetSyncWriter(max_offset_lag=1)
    first, second = TopicPartition("topic", 0), TopicPartition("topic", 1)
    writer.maybe_queue_offset_syncs(first, 0, 100)
    assert writer.partition_states[first].last_sync_downstream_offset == 100
    assert writer.take_pending_offset_syncs(1) == [OffsetSync("topic", 0, 0, 100)]
    writer.maybe_queue_offset_syncs(first, 2, 102)
    writer.maybe_queue_offset_syncs(second, 7, 9)
    assert writer.partition_states[first].last_sync_downstream_offset == 102
    assert writer.take_pending_offset_syncs(0) == []
    assert writer.take_pending_offset_syncs(1) == [OffsetSync("topic", 0, 2, 102)]
    assert writer.take_pending_offset_syncs() == [OffsetSync("topic", 1, 7, 9)]
    assert writer.take_pending_offset_syncs() == []


def test_promote_delayed_offset_syncs() -> None:
    writer = OffsetSyncWriter(max_offset_lag=50)
    tp = TopicPartition("topic", 0)
    writer.maybe_queue_offset_syncs(tp, 0, 100)
    writer.maybe_queue_offset_syncs(tp, 1, 101)
    writer.promote_delayed_offset_syncs()
    assert writer.delayed_offset_syncs == {}
    assert writer.pending_offset_syncs == {tp: OffsetSync("topic", 0, 1, 101)}


def test_immediate_sync_replaces_the_delayed_one_and_keeps_queue_order() -> None:
    writer = OffsetSyncWriter(max_offset_lag=10)
    a, b = TopicPartition("a", 0), TopicPartition("b", 0)
    writer.maybe_queue_offset_syncs(a, 0, 0)
    writer.maybe_queue_offset_syncs(b, 0, 0)
    writer.maybe_queue_offset_syncs(a, 1, 1)  # delayed
    writer.maybe_queue_offset_syncs(a, 5, 5)  # skipped upstream: immediate, replaces a's pending
    assert writer.delayed_offset_syncs == {}
    assert list(writer.pending_offset_syncs.items()) == [
        (a, OffsetSync("a", 0, 5, 5)),
        (b, OffsetSync("b", 0, 0, 0)),
    ]


def test_writer_defaults_and_plain_tuple_partitions() -> None:
    writer = OffsetSyncWriter()
    assert writer.max_offset_lag == 100
    writer.maybe_queue_offset_syncs(("t", 3), 0, 0)  # type: ignore[arg-type]
    assert writer.take_pending_offset_syncs() == [OffsetSync("t", 3, 0, 0)]


def _acked_runs(rng: random.Random) -> list[tuple[TopicPartition, list[int], list[int]]]:
    """Random acknowledged runs over two partitions: contiguous stretches, upstream gaps
    (compaction, markers, restarts), downstream jumps and truncations."""
    runs = []
    position = {TopicPartition("t", 0): [0, 0], TopicPartition("t", 1): [50, 7]}
    for _ in range(40):
        tp = rng.choice(list(position))
        up_down = position[tp]
        ups, downs = [], []
        clean = rng.random() < 0.3  # a long run without gaps (the rule's fast path)
        for _ in range(rng.randrange(100, 400) if clean else rng.randrange(0, 60)):
            roll = 1.0 if clean else rng.random()
            if roll < 0.05:
                up_down[0] += rng.randrange(2, 30)  # upstream gap
            elif roll < 0.08:
                up_down[1] += rng.randrange(2, 300)  # others wrote to the remote partition
            elif roll < 0.09:
                up_down[1] = max(0, up_down[1] - rng.randrange(1, 50))  # truncated remote
            ups.append(up_down[0])
            downs.append(up_down[1])
            up_down[0] += 1
            up_down[1] += 1
        runs.append((tp, ups, downs))
    return runs


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("lag", [0, 1, 7, 100])
def test_queue_offset_syncs_run_equals_the_per_record_rule(seed: int, lag: int) -> None:
    rng = random.Random(seed)
    per_record, by_run = OffsetSyncWriter(lag), OffsetSyncWriter(lag)
    sent_per_record: list[OffsetSync] = []
    sent_by_run: list[OffsetSync] = []
    for tp, ups, downs in _acked_runs(rng):
        for up, down in zip(ups, downs, strict=True):
            if per_record.maybe_queue_offset_syncs(tp, up, down):
                sent_per_record += per_record.take_pending_offset_syncs()
        sent_by_run += by_run.queue_offset_syncs_run(tp, ups, downs)
        assert sent_by_run == sent_per_record
        assert by_run.delayed_offset_syncs == per_record.delayed_offset_syncs
        assert by_run.pending_offset_syncs == per_record.pending_offset_syncs
        assert by_run.partition_states == per_record.partition_states
        if rng.random() < 0.2:  # an offset commit now and then
            for writer, sent in ((per_record, sent_per_record), (by_run, sent_by_run)):
                writer.promote_delayed_offset_syncs()
                sent += writer.take_pending_offset_syncs()
    assert any(s.upstream_offset != s.downstream_offset for s in sent_by_run)


def test_queue_offset_syncs_run_needs_both_offsets_of_every_record() -> None:
    writer = OffsetSyncWriter()
    assert writer.queue_offset_syncs_run(TopicPartition("t", 0), [], []) == []
    with pytest.raises(ValueError, match="2 upstream offsets but 1 downstream"):
        writer.queue_offset_syncs_run(TopicPartition("t", 0), [1, 2], [5])


# --- OffsetSyncStoreTest ---


def test_offset_translation() -> None:
    store = OffsetSyncStore()
    store.start(True)
    store.update(sync(100, 200))
    assert translate(store, 150) == 201  # no dead reckoning: one past the sync
    store.update(sync(150, 251))
    assert translate(store, 150) == 251  # exact
    assert translate(store, 5) == -1  # before every sync
    store.update(sync(200, 10))
    assert translate(store, 200) == 10  # downstream reset
    store.update(sync(20, 20))
    assert translate(store, 20) == 20  # upstream reset


def test_no_translation_if_store_not_started() -> None:
    store = OffsetSyncStore()
    assert not store.ready
    for offset in (0, 100, 200):
        assert translate(store, offset) is None

    def read_to_end() -> Iterator[OffsetSync]:
        yield sync(100, 200)
        for offset in (0, 100, 200):  # read, but the store is still starting
            assert translate(store, offset) is None

    store.start(True, read_to_end())
    assert store.ready
    assert translate(store, 0) == -1
    assert translate(store, 100) == 200
    assert translate(store, 200) == 201


def test_no_translation_if_no_offset_sync() -> None:
    store = OffsetSyncStore()
    store.start(True)
    assert translate(store, 0) is None
    store.update(sync(0, 0, TopicPartition("other", 0)))
    assert translate(store, 0) is None


def assert_sparse_sync_invariant(store: OffsetSyncStore, tp: TopicPartition = TP) -> None:
    """Invariants B and C for every pair of distinct slots, as Kafka's test checks them."""
    ups = [store.sync_for(tp, i).upstream_offset for i in range(SYNCS_PER_PARTITION)]
    for j in range(SYNCS_PER_PARTITION):
        j_up = ups[j]
        for i in range(j):
            i_up = ups[i]
            if i_up == j_up:
                continue
            lower = j_up + (1 << max(i - 2, 0))
            if lower > LONG_MAX:  # negative in Java
                continue
            assert i_up >= lower, f"Invariant C({i},{j}): {i_up} < {lower}"
            upper = j_up + (1 << j) - (1 << i)
            if upper > LONG_MAX:
                continue
            assert i_up <= upper, f"Invariant B({i},{j}): {i_up} > {upper}"


def assert_sparse_sync(store: OffsetSyncStore, sync_offset: int, previous_offset: int) -> None:
    expected_before = -1 if previous_offset == -1 else previous_offset + 1
    assert translate(store, sync_offset - 1) == expected_before
    assert translate(store, sync_offset) == sync_offset
    assert translate(store, sync_offset + 1) == sync_offset + 1
    assert translate(store, sync_offset + 2) == sync_offset + 1


def initial_syncs(store: OffsetSyncStore, offsets: Iterable[int]) -> Iterator[OffsetSync]:
    for offset in offsets:
        yield sync(offset, offset)
        assert_sparse_sync_invariant(store)


def test_past_offset_translation() -> None:
    store = OffsetSyncStore()
    store.start(True, initial_syncs(store, range(0, 1001, 10)))
    # Only the last sync read at startup can be used.
    assert_sparse_sync(store, 1000, -1)
    for offset in range(1010, 10001, 10):
        store.update(sync(offset, offset))
        assert_sparse_sync_invariant(store)
    # Invariant D: the last startup sync is still the earliest one.
    assert_sparse_sync(store, 1000, -1)
    # Older offsets are translated less precisely.
    retained = [1000, 4840, 6760, 8680, 9160, 9640, 9880, 9940, 9970, 9990, 10000]
    for previous, offset in itertools.pairwise(retained):
        assert_sparse_sync(store, offset, previous)
    assert [s.upstream_offset for s in store.distinct_syncs(TP)] == retained[::-1]
    # Rewinding upstream offsets clears every older sync.
    store.update(sync(1500, 11000))
    assert_sparse_sync_invariant(store)
    assert translate(store, 1499) == -1
    assert translate(store, 1500) == 11000
    assert translate(store, 2000) == 11001


def test_past_offset_translation_without_initialization_read_to_end() -> None:
    # KAFKA-15905: with the previous checkpoints loaded, the startup history is kept.
    store = OffsetSyncStore()
    store.start(False, initial_syncs(store, range(0, 1001, 10)))
    assert_sparse_sync(store, 480, 0)
    assert_sparse_sync(store, 720, 480)
    assert_sparse_sync(store, 1000, 990)
    for offset in range(1000, 10001, 10):
        store.update(sync(offset, offset))
        assert_sparse_sync_invariant(store)
    retained = [0, 3840, 7680, 8640, 9120, 9600, 9840, 9900, 9960, 9990, 10000]
    for previous, offset in itertools.pairwise(retained):
        assert_sparse_sync(store, offset, previous)
    store.update(sync(1500, 11000))
    assert_sparse_sync_invariant(store)
    assert translate(store, 1499) == -1
    assert translate(store, 1500) == 11000
    assert translate(store, 2000) == 11001


def assert_sync_spacing_has_bounded_expirations(
    first_offset: int, steps: Iterable[int], maximum_expirations: int
) -> None:
    """Each new sync expires at most *maximum_expirations* distinct stored syncs."""
    store = OffsetSyncStore()
    store.start(True)
    store.update(sync(first_offset, first_offset))
    offset = first_offset
    last_count = 1
    for step in steps:
        offset += step
        assert 0 <= offset <= LONG_MAX, "test is invalid: offset overflowed"
        store.update(sync(offset, offset))
        assert store.sync_for(TP, 0).upstream_offset == offset  # invariant A
        assert store.sync_for(TP, 63).upstream_offset == first_offset  # invariant D
        count = len(store.distinct_syncs(TP))
        expired = last_count - count + 1
        assert expired <= maximum_expirations, f"expired {expired} syncs after {offset}"
        last_count = count


def test_consistently_spaced_syncs() -> None:
    iterations = 100
    max_step = LONG_MAX // iterations
    step = 1
    while step < max_step:  # steps 2^k - 1, like offset.lag.max settings
        for first_offset in (0, 1, 2, 3, 6, 13, 29):  # Kafka tries 0..29
            assert_sync_spacing_has_bounded_expirations(first_offset, [step] * iterations, 1)
        step = step * 2 + 1


def test_randomly_spaced_syncs() -> None:
    rng = random.Random(0)
    iteration_bits = 10
    iterations = 1 << iteration_bits
    for n in range(1, 64 - iteration_bits, 4):  # Kafka tries every n
        # Gaps with n bits of variance expire at most n + 2 syncs at once.
        maximum_difference = 1 << n
        steps = [rng.randrange(0, maximum_difference) for _ in range(iterations)]
        assert_sync_spacing_has_bounded_expirations(0, steps, n + 2)
        # ... also with a large minimum gap, as offset.lag.max makes it.
        offset_lag_max = 1 << 16
        steps = [offset_lag_max + rng.randrange(0, maximum_difference) for _ in range(iterations)]
        assert_sync_spacing_has_bounded_expirations(0, steps, n + 2)


def test_dropped_syncs_spacing() -> None:
    # Half the gaps are offset.lag.max, half twice that (one sync dropped): at most 2 expire.
    rng = random.Random(0)
    steps = [(2 if rng.random() < 0.5 else 1) * 100 for _ in range(10000)]
    assert_sync_spacing_has_bounded_expirations(0, steps, 2)


def test_each_partition_has_its_own_syncs() -> None:
    store = OffsetSyncStore()
    other = TopicPartition("topic1", 3)
    store.start(True, [sync(10, 100), sync(10, 500, other)])
    assert translate(store, 11) == 101
    assert store.translate_downstream("g", other, 11) == 501
    assert store.translate_downstream("g", ("topic1", 3), 10) == 500  # type: ignore[arg-type]


def test_start_must_read_to_end_keeps_only_the_last_sync() -> None:
    store = OffsetSyncStore()
    store.start(True, [sync(0, 0), sync(100, 100), sync(200, 200)])
    assert [s.upstream_offset for s in store.distinct_syncs(TP)] == [200]
    assert translate(store, 150) == -1
    assert store.describe(TP) == "[200:200]"


def test_sync_for_and_describe() -> None:
    store = OffsetSyncStore()
    store.start(False, [sync(0, 5), sync(1, 6)])
    assert store.sync_for(TP, 0) == sync(1, 6)
    assert store.sync_for(TP, 63) == sync(0, 5)
    assert store.describe(TP) == "[1:6,0:5]"
    assert store.describe(TopicPartition("none", 0)) == "[]"
    with pytest.raises(KeyError, match="No syncs present for none-0"):
        store.sync_for(TopicPartition("none", 0), 0)


def test_equal_syncs_are_still_distinct_syncs() -> None:
    # Kafka tells stored syncs apart by identity: a repeated (equal) sync is a new sync.
    store = OffsetSyncStore()
    store.start(True)
    repeated = sync(0, 0)
    for _ in range(3):
        store.update(repeated)
    assert translate(store, 0) == 0
    assert_sparse_sync_invariant(store)


def test_translation_is_monotonic_for_a_fixed_store() -> None:
    rng = random.Random(3)
    store = OffsetSyncStore()
    store.start(True)
    upstream = downstream = 0
    for _ in range(2000):
        upstream += rng.randint(1, 300)
        downstream += rng.randint(1, 300)
        store.update(sync(upstream, downstream))
    previous = -1
    for offset in range(0, upstream + 10, 37):
        translated = translate(store, offset)
        assert translated is not None
        assert translated >= previous
        previous = translated


# --- Simulated replication: the translation guarantees ---


class Replication:
    """One source partition replicated with the emission rule, syncs fed to a store.

    Upstream offsets have gaps (compaction, transaction markers); downstream offsets have gaps
    too (markers of an exactly-once producer). Syncs reach the store in order but late.
    """

    def __init__(self, rng: random.Random, lag: int, eager: bool = False) -> None:
        self.rng = rng
        self.lag = lag
        self.eager = eager  # a fast producer: every queued sync is sent before the next record
        self.writer = OffsetSyncWriter(lag)
        self.store = OffsetSyncStore()
        self.store.start(True)
        self.upstream: list[int] = []
        self.downstream: list[int] = []
        self.emitted: list[OffsetSync] = []  # syncs delivered to the store, in order
        self.in_flight: list[OffsetSync] = []
        self.next_upstream = rng.randint(0, 1000)
        self.next_downstream = rng.randint(0, 50)

    def replicate(self, records: int) -> None:
        rng = self.rng
        for _ in range(records):
            up, down = self.next_upstream, self.next_downstream
            self.upstream.append(up)
            self.downstream.append(down)
            self.writer.maybe_queue_offset_syncs(TP, up, down)
            self.next_upstream = up + (1 if rng.random() < 0.97 else rng.randint(2, 40))
            self.next_downstream = down + (1 if rng.random() < 0.98 else rng.randint(2, 5))
            if rng.random() < 0.01:  # a task offset commit
                self.writer.promote_delayed_offset_syncs()
            if self.eager:
                self.flush(include_delayed=False)
            elif rng.random() < 0.3:
                self.in_flight += self.writer.take_pending_offset_syncs(rng.randint(1, 10))
            if self.in_flight and rng.random() < 0.3:
                self.deliver(rng.randint(1, len(self.in_flight)))

    def deliver(self, count: int | None = None) -> None:
        count = len(self.in_flight) if count is None else count
        for offset_sync in self.in_flight[:count]:
            self.store.update(offset_sync)
            self.emitted.append(offset_sync)
        del self.in_flight[:count]

    def flush(self, include_delayed: bool) -> None:
        if include_delayed:
            self.writer.promote_delayed_offset_syncs()
        self.in_flight += self.writer.take_pending_offset_syncs()
        self.deliver()

    def true_position(self, upstream_offset: int) -> int:
        """Where a consumer at *upstream_offset* is downstream: the first replicated record
        at or after it, or the downstream end."""
        index = bisect.bisect_left(self.upstream, upstream_offset)
        if index == len(self.upstream):
            return self.downstream[-1] + 1
        return self.downstream[index]

    def assert_never_ahead(self, samples: int) -> None:
        end = self.upstream[-1] + 2
        offsets = [self.rng.randint(0, end) for _ in range(samples)] + self.upstream[-5:]
        for offset in offsets:
            translated = translate(self.store, offset)
            if translated is None or translated == -1:
                continue
            assert translated <= self.true_position(offset), (offset, self.store.describe(TP))

    def reread(self, upstream_offset: int) -> int | None:
        """Records a failed-over consumer reads again, if the offset can be translated: the
        replicated records from the translated offset up to its true position."""
        translated = translate(self.store, upstream_offset)
        if translated is None or translated == -1:
            return None
        first = bisect.bisect_left(self.downstream, translated)
        return bisect.bisect_left(self.downstream, self.true_position(upstream_offset)) - first


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lag", [0, 1, 10, 100])
def test_translation_is_never_ahead_of_the_consumer(seed: int, lag: int) -> None:
    replication = Replication(random.Random(seed * 1000 + lag), lag)
    for _ in range(20):
        replication.replicate(300)
        replication.assert_never_ahead(60)
    replication.flush(include_delayed=True)
    replication.assert_never_ahead(200)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lag", [0, 1, 10, 100])
def test_rereads_are_bounded_by_offset_lag_max(seed: int, lag: int) -> None:
    replication = Replication(random.Random(seed * 7919 + lag), lag)
    for _ in range(10):
        replication.replicate(500)
        # Immediate syncs delivered, delayed ones not: a consumer past the newest sync reads
        # again at most offset.lag.max records, fewer unless it is at the very end.
        replication.flush(include_delayed=False)
        newest = replication.store.sync_for(TP, 0)
        start = bisect.bisect_left(replication.upstream, newest.upstream_offset)
        for offset in replication.upstream[start:]:
            reread = replication.reread(offset)
            assert reread is not None
            assert reread < max(lag, 1), (offset, reread, lag)
        at_end = replication.reread(replication.upstream[-1] + 1)
        assert at_end is not None and at_end <= lag
    # After a full sync (delayed syncs flushed too), even a consumer at the end.
    replication.flush(include_delayed=True)
    end_reread = replication.reread(replication.upstream[-1] + 1)
    assert end_reread == 0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("lag", [0, 1, 10, 100])
def test_rereads_are_bounded_where_the_nearest_sync_is_retained(seed: int, lag: int) -> None:
    # Every sync reaches the store (none coalesced in the pending queue). Wherever the newest
    # emitted sync at or before a consumer is still stored, it re-reads < offset.lag.max.
    replication = Replication(random.Random(seed * 31 + lag), lag, eager=True)
    replication.replicate(5000)
    replication.flush(include_delayed=True)
    stored = {id(s) for s in replication.store.distinct_syncs(TP)}
    emitted_ups = [s.upstream_offset for s in replication.emitted]
    checked = 0
    for index, offset in enumerate(replication.upstream):
        nearest = bisect.bisect_right(emitted_ups, offset) - 1
        if nearest < 0 or id(replication.emitted[nearest]) not in stored:
            continue
        reread = replication.reread(offset)
        assert reread is not None
        assert reread < max(lag, 1), (index, offset, reread)
        checked += 1
    assert checked > 0
