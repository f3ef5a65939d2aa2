"""Per-partition producer state: idempotent sequence checks and duplicate detection.

Kafka keeps, for each producer id, its epoch and the metadata of its last five batches
(``max.in.flight.requests.per.connection`` is at most 5 with idempotence). A retried batch
matching one of them is a duplicate: it is acknowledged with the original offset and not
appended again. State is snapshotted to ``<offset>.snapshot`` files and rebuilt by reading
the batches written after the newest snapshot, as Kafka's ``ProducerStateManager`` does.
"""

from __future__ import annotations

import json
import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.records import BatchHeader

__all__ = ["ProducerEntry", "ProducerStateManager"]

BATCHES_RETAINED = 5
_SEQ_MAX = 0x7FFFFFFF


@dataclass(slots=True)
class ProducerEntry:
    """What the partition remembers about one producer id."""

    epoch: int
    # (first sequence, last sequence, first offset, last offset) of the latest batches
    batches: deque[tuple[int, int, int, int]] = field(
        default_factory=lambda: deque(maxlen=BATCHES_RETAINED)
    )
    last_timestamp: int = -1
    txn_first_offset: int = -1  # first offset of the producer's open transaction here

    @property
    def last_sequence(self) -> int:
        return self.batches[-1][1] if self.batches else -1


class ProducerStateManager:
    """Sequence and epoch checks for the producers writing to one partition."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.producers: dict[int, ProducerEntry] = {}
        # producer id -> first offset of its open transaction here: kept as batches are
        # recorded, so the last stable offset is a min over the (few) open transactions.
        self._ongoing: dict[int, int] = {}

    def check(self, header: BatchHeader) -> int | None:
        """Validate an incoming batch; return the original base offset if it is a duplicate.

        Raises :class:`KafkaError` with INVALID_PRODUCER_EPOCH for a fenced epoch and
        OUT_OF_ORDER_SEQUENCE_NUMBER for a gap in the sequence.
        """
        if not header.has_producer_id or header.is_control:
            return None
        entry = self.producers.get(header.producer_id)
        if entry is None:
            return None  # no state (new or expired producer): any sequence is accepted
        if header.producer_epoch < entry.epoch:
            raise KafkaError(
                ErrorCode.invalid_producer_epoch,
                f"producer {header.producer_id} epoch {header.producer_epoch} is older than "
                f"the current epoch {entry.epoch}",
            )
        first, last = header.base_sequence, header.last_sequence
        if header.producer_epoch > entry.epoch:
            if first != 0:
                raise KafkaError(
                    ErrorCode.out_of_order_sequence_number,
                    f"producer {header.producer_id} started epoch {header.producer_epoch} at "
                    f"sequence {first}, not 0",
                )
            return None
        for b_first, b_last, b_offset, _ in entry.batches:
            if b_first == first and b_last == last:
                return b_offset
        expected = (entry.last_sequence + 1) & _SEQ_MAX if entry.batches else first
        if first != expected:
            raise KafkaError(
                ErrorCode.out_of_order_sequence_number,
                f"producer {header.producer_id} sent sequence {first}, expected {expected}",
            )
        return None

    def ongoing_transactions(self) -> dict[int, int]:
        """Producer id -> first offset of each transaction still open in this partition."""
        return self._ongoing

    def update(self, header: BatchHeader) -> None:
        """Record an appended batch (its offsets already assigned)."""
        if not header.has_producer_id:
            return
        entry = self.producers.get(header.producer_id)
        if entry is None or header.producer_epoch > entry.epoch:
            first = entry.txn_first_offset if entry is not None else -1
            entry = self.producers[header.producer_id] = ProducerEntry(header.producer_epoch)
            entry.txn_first_offset = first  # a new epoch still has to end the old transaction
        if header.is_control:
            entry.last_timestamp = header.max_timestamp
            entry.txn_first_offset = -1
            self._ongoing.pop(header.producer_id, None)
            return
        if header.is_transactional and entry.txn_first_offset < 0:
            entry.txn_first_offset = self._ongoing[header.producer_id] = header.base_offset
        entry.batches.append(
            (header.base_sequence, header.last_sequence, header.base_offset, header.last_offset)
        )
        entry.last_timestamp = header.max_timestamp

    # -- snapshots -----------------------------------------------------------------------

    def _snapshot_path(self, offset: int) -> Path:
        return self.directory / f"{offset:020d}.snapshot"

    def snapshots(self) -> list[int]:
        return sorted(int(p.stem) for p in self.directory.glob("*.snapshot") if p.stem.isdigit())

    def take_snapshot(self, offset: int) -> None:
        """Write the state as of ``offset`` (the log end offset) atomically."""
        state = {
            str(pid): [e.epoch, e.last_timestamp, list(e.batches), e.txn_first_offset]
            for pid, e in self.producers.items()
        }
        path = self._snapshot_path(offset)
        tmp = path.with_suffix(".snapshot.tmp")
        with open(tmp, "w") as f:
            json.dump(state, f)
            f.flush()
            os.fsync(f.fileno())
        tmp.replace(path)
        for old in self.snapshots()[:-2]:
            self._snapshot_path(old).unlink(missing_ok=True)

    def load_snapshot(self, max_offset: int) -> int:
        """Load the newest readable snapshot at or below ``max_offset``; return its offset.

        Returns -1 when there is none (state is then rebuilt from the whole log).
        """
        for offset in reversed(self.snapshots()):
            if offset > max_offset:
                self._snapshot_path(offset).unlink(missing_ok=True)
                continue
            try:
                state = json.loads(self._snapshot_path(offset).read_text())
            except (OSError, ValueError):
                continue
            self.producers = {
                int(pid): ProducerEntry(
                    values[0],
                    deque((tuple(b) for b in values[2]), maxlen=BATCHES_RETAINED),
                    values[1],
                    values[3] if len(values) > 3 else -1,
                )
                for pid, values in state.items()
            }
            self._index_ongoing()
            return offset
        self.producers = {}
        self._index_ongoing()
        return -1

    def _index_ongoing(self) -> None:
        self._ongoing = {
            pid: e.txn_first_offset for pid, e in self.producers.items() if e.txn_first_offset >= 0
        }
