"""Offset syncs: when MM2 emits them, and how it translates group offsets with them.

**Emission** (Kafka's ``OffsetSyncWriter`` and its ``PartitionState``). For every replicated
record whose write was acknowledged, the source task knows its upstream offset and the
downstream offset it landed at. :meth:`PartitionState.update` decides, per source partition
and task lifetime, whether the pair must be synced at once. It must if any of these holds:

1. it is the first record of this task lifetime;
2. ``downstream - (last synced downstream + 1) >= offset.lag.max``: translation lands one
   past a sync, so this keeps the translation error below ``offset.lag.max``;
3. the upstream offset is not the previous one + 1 (a compaction gap, transaction marker,
   seek or restart);
4. the downstream offset went backwards (the target topic was truncated or recreated).

The decision is sticky until :meth:`PartitionState.reset`. :class:`OffsetSyncWriter` queues
an immediate sync as *pending*; any other pair replaces the partition's *delayed* sync, which
the task promotes to pending on each offset commit, so an idle partition still converges
to an exact sync (KAFKA-15906). Only the latest sync per partition is kept in either queue.

**Translation** (Kafka's ``OffsetSyncStore``: KAFKA-14666, with KAFKA-15202 and KAFKA-15905).
The store keeps 64 syncs per source partition, newest first, spaced about exponentially:

* A: ``syncs[0]`` is the latest sync;
* B: for i < j, ``syncs[i].up <= syncs[j].up + 2^j - 2^i`` (later slots are not too old);
* C: for i < j, ``syncs[i].up >= syncs[j].up + 2^(i-2)`` (distinct slots are spread out);
* D: ``syncs[63]`` is the earliest sync usable for translation.

(B and C hold between distinct syncs; one sync may fill several slots.) An upstream offset
below ``syncs[0]`` (an upstream rewind) clears the array to that sync. So does every sync read
before the initial read-to-end finishes when ``initialization_must_read_to_end`` is set, which
the checkpoint task does only when it could not load its previous checkpoints (KAFKA-15905):
without them it must not translate from syncs it may have used before.

:meth:`OffsetSyncStore.translate_downstream` uses the newest sync ``s`` with
``s.up <= offset``: the result is ``s.down`` if the offset is the sync's, else ``s.down + 1``.
It is -1 when every retained sync is newer than the offset, and None before the initial read
or without syncs for the partition (no checkpoint). Only a sync at or before the group's
position is used and at most one record past it is assumed, so **a translated offset is never
ahead of the consumer's real position**: a failed-over consumer re-reads, never skips. Near
the head, after the delayed syncs are flushed, it re-reads fewer than ``offset.lag.max``
records; older offsets are translated less precisely as the syncs thin out.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from seaway.connect.api.structs import TopicPartition
from seaway.mirror.formats import OffsetSync

OFFSET_LAG_MAX_DEFAULT: Final = 100
"""The default ``offset.lag.max``."""

MAX_OUTSTANDING_OFFSET_SYNCS: Final = 10
"""How many offset syncs MM2's producer may have in flight."""

SYNCS_PER_PARTITION: Final = 64
"""Syncs kept per partition by :class:`OffsetSyncStore`, one per bit of an offset."""

_LONG_MAX: Final = (1 << 63) - 1


@dataclass(slots=True)
class PartitionState:
    """Per source partition: whether an offset sync must be sent now (``PartitionState``)."""

    max_offset_lag: int = OFFSET_LAG_MAX_DEFAULT
    previous_upstream_offset: int = -1
    previous_downstream_offset: int = -1
    last_sync_downstream_offset: int = -1
    should_sync_offsets: bool = False

    def update(self, upstream_offset: int, downstream_offset: int) -> bool:
        """Record a replicated record; True if a sync is due (sticky until :meth:`reset`)."""
        no_previous_sync = self.last_sync_downstream_offset == -1
        too_stale = (
            downstream_offset - (self.last_sync_downstream_offset + 1) >= self.max_offset_lag
        )
        skipped_upstream = upstream_offset - self.previous_upstream_offset != 1
        truncated_downstream = downstream_offset < self.previous_downstream_offset
        if no_previous_sync or too_stale or skipped_upstream or truncated_downstream:
            self.last_sync_downstream_offset = downstream_offset
            self.should_sync_offsets = True
        self.previous_upstream_offset = upstream_offset
        self.previous_downstream_offset = downstream_offset
        return self.should_sync_offsets

    def reset(self) -> None:
        """Forget that a sync is due (after it was queued)."""
        self.should_sync_offsets = False


class OffsetSyncWriter:
    """Decides and queues a source task's offset syncs (Kafka's ``OffsetSyncWriter``).

    Sending is the caller's: :meth:`take_pending_offset_syncs` hands out the syncs to write to
    partition 0 of the offset-syncs topic, oldest partition first. Thread-safe.
    """

    def __init__(self, max_offset_lag: int = OFFSET_LAG_MAX_DEFAULT) -> None:
        self._max_offset_lag = max_offset_lag
        self._states: dict[TopicPartition, PartitionState] = {}
        self._delayed: dict[TopicPartition, OffsetSync] = {}
        self._pending: dict[TopicPartition, OffsetSync] = {}
        self._lock = threading.Lock()

    @property
    def max_offset_lag(self) -> int:
        """``offset.lag.max``."""
        return self._max_offset_lag

    @property
    def partition_states(self) -> Mapping[TopicPartition, PartitionState]:
        """The emission state of each source partition seen."""
        return MappingProxyType(self._states)

    @property
    def delayed_offset_syncs(self) -> Mapping[TopicPartition, OffsetSync]:
        """Syncs waiting for the next offset commit (a snapshot)."""
        with self._lock:
            return dict(self._delayed)

    @property
    def pending_offset_syncs(self) -> Mapping[TopicPartition, OffsetSync]:
        """Syncs to send now (a snapshot)."""
        with self._lock:
            return dict(self._pending)

    def maybe_queue_offset_syncs(
        self, topic_partition: TopicPartition, upstream_offset: int, downstream_offset: int
    ) -> bool:
        """Record an acknowledged record; True if its sync was queued to be sent now."""
        tp = TopicPartition(*topic_partition)
        state = self._states.get(tp)
        if state is None:
            state = self._states[tp] = PartitionState(self._max_offset_lag)
        sync = OffsetSync(tp.topic, tp.partition, upstream_offset, downstream_offset)
        immediate = state.update(upstream_offset, downstream_offset)
        with self._lock:
            if immediate:
                self._delayed.pop(tp, None)
                self._pending[tp] = sync
            else:
                self._delayed[tp] = sync
        if immediate:
            state.reset()
        return immediate

    def queue_offset_syncs_run(
        self,
        topic_partition: TopicPartition,
        upstream_offsets: Sequence[int],
        downstream_offsets: Sequence[int],
    ) -> list[OffsetSync]:
        """Record a run of acknowledged records of one partition, in upstream order; the
        syncs due now, oldest first (the caller sends them).

        The same as :meth:`maybe_queue_offset_syncs` for each pair followed, after every
        immediate one, by :meth:`take_pending_offset_syncs` (which then holds only that
        sync): the partition's state and delayed sync end up the same, and every immediate
        sync is returned, not only the last. The rule runs over plain ints, and over a run
        without gaps on either side (the usual case) only from sync to sync: after its first
        record such a run can only need a sync every ``offset.lag.max + 1`` records.
        Objects are built only for the syncs.
        """
        if len(upstream_offsets) != len(downstream_offsets):
            raise ValueError(
                f"{len(upstream_offsets)} upstream offsets but {len(downstream_offsets)} "
                "downstream offsets: every acknowledged record needs both"
            )
        n = len(upstream_offsets)
        if not n:
            return []
        tp = TopicPartition(*topic_partition)
        state = self._states.get(tp)
        if state is None:
            state = self._states[tp] = PartitionState(self._max_offset_lag)
        lag = state.max_offset_lag
        prev_up, prev_down = state.previous_upstream_offset, state.previous_downstream_offset
        last_sync = state.last_sync_downstream_offset
        sticky = state.should_sync_offsets
        due: list[tuple[int, int]] = []
        immediate = False
        contiguous = (
            n > 2 and lag >= 0 and _is_run(upstream_offsets) and _is_run(downstream_offsets)
        )
        head = 1 if contiguous else n
        for up, down in zip(upstream_offsets[:head], downstream_offsets[:head], strict=True):
            # PartitionState.update, inlined.
            if (
                last_sync == -1
                or down - (last_sync + 1) >= lag
                or up - prev_up != 1
                or (down < prev_down)
            ):
                last_sync = down
                immediate = True
            else:
                immediate = sticky
            if immediate:
                due.append((up, down))
                sticky = False  # reset once queued
            prev_up, prev_down = up, down
        if contiguous:
            # Record i (i >= 1) is up0 + i, down0 + i: never a gap, never backwards, so it
            # syncs iff down0 + i - (last_sync + 1) >= lag.
            up0, down0 = upstream_offsets[0], downstream_offsets[0]
            i = max(1, last_sync + 1 + lag - down0)
            while i < n:
                due.append((up0 + i, down0 + i))
                last_sync = down0 + i
                i += lag + 1
            immediate = last_sync == down0 + n - 1
            prev_up, prev_down = up0 + n - 1, down0 + n - 1
        state.previous_upstream_offset, state.previous_downstream_offset = prev_up, prev_down
        state.last_sync_downstream_offset = last_sync
        state.should_sync_offsets = False
        with self._lock:
            if due:  # an immediate sync replaced (and the take removed) both queued ones
                self._pending.pop(tp, None)
                self._delayed.pop(tp, None)
            if not immediate:
                self._delayed[tp] = OffsetSync(tp.topic, tp.partition, prev_up, prev_down)
        return [OffsetSync(tp.topic, tp.partition, up, down) for up, down in due]

    def promote_delayed_offset_syncs(self) -> None:
        """Make every delayed sync pending (on each task offset commit)."""
        with self._lock:
            self._pending.update(self._delayed)
            self._delayed.clear()

    def take_pending_offset_syncs(self, limit: int | None = None) -> list[OffsetSync]:
        """Remove and return up to *limit* pending syncs (all if None), in queue order."""
        with self._lock:
            count = len(self._pending) if limit is None else max(0, min(limit, len(self._pending)))
            taken = [self._pending.pop(tp) for tp in list(self._pending)[:count]]
        return taken


def _is_run(offsets: Sequence[int]) -> bool:
    """Whether *offsets* are consecutive integers (checked at C speed)."""
    if isinstance(offsets, range):
        return offsets.step == 1
    first, n = offsets[0], len(offsets)
    return offsets[-1] - first == n - 1 and list(offsets) == list(range(first, first + n))


class _Entry:
    """One stored sync. Slots holding the same entry are one sync (Kafka compares identity)."""

    __slots__ = ("downstream", "sync", "upstream")

    def __init__(self, sync: OffsetSync) -> None:
        self.sync = sync
        self.upstream = sync.upstream_offset
        self.downstream = sync.downstream_offset


# Invariants B and C between adjacent slots i = k - 1 and j = k, as Kafka evaluates them in
# Java long arithmetic. B: syncs[i].up <= syncs[j].up + 2^j - 2^i, where 2^j - 2^i = 2^(k-1);
# a bound outside [0, Long.MAX_VALUE] (which wraps negative in Java) means no bound.
# C: syncs[i].up >= syncs[j].up + 2^max(i-2, 0); such a bound is never met.
# Both hold trivially between slots holding the same sync.
_B_STEP: Final = tuple(1 << (k - 1) if k else 0 for k in range(SYNCS_PER_PARTITION))
_C_STEP: Final = tuple(1 << max(i - 2, 0) for i in range(SYNCS_PER_PARTITION))


def _invariant_b(newer: _Entry, older: _Entry, k: int) -> bool:
    """Invariant B between slots k - 1 (*newer*) and k (*older*)."""
    if newer is older:
        return True
    bound = older.upstream + _B_STEP[k]
    return not 0 <= bound <= _LONG_MAX or newer.upstream <= bound


def _invariant_c(newer: _Entry, older: _Entry, i: int) -> bool:
    """Invariant C between slot i (*newer*) and a later slot (*older*)."""
    if newer is older:
        return True
    bound = older.upstream + _C_STEP[i]
    return 0 <= bound <= _LONG_MAX and newer.upstream >= bound


class OffsetSyncStore:
    """The offset syncs of every source partition, and translation with them.

    Feed it the offset-syncs topic from the beginning: the records read up to its end at
    startup through :meth:`start`, later ones through :meth:`update`.
    """

    def __init__(self) -> None:
        self._syncs: dict[TopicPartition, list[_Entry]] = {}
        self._initialization_must_read_to_end = True
        self._read_to_end = False

    @property
    def ready(self) -> bool:
        """Whether the initial read-to-end finished (translation is possible)."""
        return self._read_to_end

    def start(
        self, initialization_must_read_to_end: bool = True, initial_syncs: Iterable[OffsetSync] = ()
    ) -> None:
        """Apply the syncs read up to the end of the topic, then allow translation.

        With *initialization_must_read_to_end* (the checkpoint task passes ``not
        checkpoint_store_loaded``) only the last of *initial_syncs* per partition is kept.
        """
        self._initialization_must_read_to_end = initialization_must_read_to_end
        for sync in initial_syncs:
            self.update(sync)
        self._read_to_end = True

    def update(self, sync: OffsetSync) -> None:
        """Apply one sync read from the offset-syncs topic."""
        entry = _Entry(sync)
        tp = sync.topic_partition
        original = self._syncs.get(tp)
        if original is None:
            self._syncs[tp] = [entry] * SYNCS_PER_PARTITION
            return
        syncs = list(original)  # copy on write: a reader never sees a half-updated array
        self._update_sync_array(syncs, original, entry)
        self._syncs[tp] = syncs

    def _update_sync_array(
        self, syncs: list[_Entry], original: list[_Entry], entry: _Entry
    ) -> None:
        only_load_last = not self._read_to_end and self._initialization_must_read_to_end
        if only_load_last or entry.upstream < syncs[0].upstream:
            syncs[:] = [entry] * SYNCS_PER_PARTITION
            return
        replacement = entry
        replacement_index = 0  # the next old sync that might be kept as the replacement
        syncs[0] = entry  # invariant A
        last = SYNCS_PER_PARTITION - 1
        for current in range(1, SYNCS_PER_PARTITION):
            previous = current - 1
            newer = syncs[previous]
            following = syncs[current + 1] if current < last else None
            while True:
                old = original[replacement_index]
                # Prefer an old sync when it is valid here: more distinct syncs are kept.
                is_recent = _invariant_b(newer, old, current)
                separated_from_previous = _invariant_c(newer, old, previous)
                separated_from_next = following is None or _invariant_c(old, following, current)
                duplicate = replacement_index < last and old is original[replacement_index + 1]
                promote = is_recent and separated_from_previous and separated_from_next
                if promote:
                    replacement = old
                # An old sync too close to the previous slot can never be used further on.
                skip = duplicate or not separated_from_previous
                if promote or skip:
                    replacement_index += 1
                if not (skip and replacement_index < current):
                    break
            if _invariant_b(newer, syncs[current], current):
                break  # the rest of the array still satisfies invariant B
            syncs[current] = replacement

    def translate_downstream(
        self, group: str | None, topic_partition: TopicPartition, upstream_offset: int
    ) -> int | None:
        """The downstream offset for a group's committed upstream offset.

        None before the initial read-to-end or with no sync for the partition; -1 when the
        offset is older than every retained sync. *group* is for the caller's logs only.
        """
        if not self._read_to_end:
            return None
        syncs = self._syncs.get(TopicPartition(*topic_partition))
        if syncs is None:
            return None
        found = syncs[-1]
        for entry in syncs:
            if entry.upstream <= upstream_offset:
                found = entry
                break
        if found.upstream > upstream_offset:
            return -1
        return found.downstream + (0 if upstream_offset == found.upstream else 1)

    def sync_for(self, topic_partition: TopicPartition, index: int) -> OffsetSync:
        """The sync in slot *index* (0 = newest, 63 = earliest usable) of a partition."""
        syncs = self._syncs.get(TopicPartition(*topic_partition))
        if syncs is None:
            raise KeyError(f"No syncs present for {TopicPartition(*topic_partition)}")
        return syncs[index].sync

    def distinct_syncs(self, topic_partition: TopicPartition) -> list[OffsetSync]:
        """The distinct syncs kept for a partition, newest first (empty if none)."""
        syncs = self._syncs.get(TopicPartition(*topic_partition), [])
        return [e.sync for i, e in enumerate(syncs) if i == 0 or e is not syncs[i - 1]]

    def describe(self, topic_partition: TopicPartition) -> str:
        """The kept syncs as ``[up:down,...]``, newest first, for logs."""
        pairs = self.distinct_syncs(topic_partition)
        return "[" + ",".join(f"{s.upstream_offset}:{s.downstream_offset}" for s in pairs) + "]"


__all__ = [
    "MAX_OUTSTANDING_OFFSET_SYNCS",
    "OFFSET_LAG_MAX_DEFAULT",
    "SYNCS_PER_PARTITION",
    "OffsetSyncStore",
    "OffsetSyncWriter",
    "PartitionState",
]
