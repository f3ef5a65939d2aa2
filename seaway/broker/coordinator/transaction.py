"""The transaction coordinator (KIP-98): transactional ids, epochs, and commit/abort.

A single node coordinates every transactional id. The state of each transaction is
written to the metadata store before it is acted on, so after ``kill -9`` an open
transaction is still open (and aborted when it times out), and one caught between
``PrepareCommit``/``PrepareAbort`` and its markers is completed at start-up: never
half-visible. Markers are written straight into the local partition logs (a cluster would
send WriteTxnMarkers to the partition leaders).
"""

from __future__ import annotations

import enum
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from seaway.protocol.errors import ErrorCode, KafkaError

if TYPE_CHECKING:
    from seaway.broker.coordinator.group_coordinator import GroupCoordinator
    from seaway.broker.coordinator.producer_ids import ProducerIdManager
    from seaway.broker.metadata import MetadataStore
    from seaway.broker.topics import TopicManager

log = logging.getLogger(__name__)

__all__ = ["TransactionCoordinator", "TxnMetadata", "TxnState"]

MAX_EPOCH = 32767
COORDINATOR_EPOCH = 0


class TxnState(enum.Enum):
    EMPTY = "Empty"
    ONGOING = "Ongoing"
    PREPARE_COMMIT = "PrepareCommit"
    PREPARE_ABORT = "PrepareAbort"
    COMPLETE_COMMIT = "CompleteCommit"
    COMPLETE_ABORT = "CompleteAbort"


@dataclass
class TxnMetadata:
    transactional_id: str
    producer_id: int
    producer_epoch: int
    timeout_ms: int
    state: TxnState = TxnState.EMPTY
    partitions: set[tuple[str, int]] = field(default_factory=set)
    groups: set[str] = field(default_factory=set)
    start_ms: int = -1
    update_ms: int = 0
    last_epoch: int = -1  # the epoch before the latest bump (KIP-360 retries)

    def to_json(self) -> dict[str, object]:
        return {
            "producer_id": self.producer_id,
            "producer_epoch": self.producer_epoch,
            "timeout_ms": self.timeout_ms,
            "state": self.state.value,
            "partitions": sorted(self.partitions),
            "groups": sorted(self.groups),
            "start_ms": self.start_ms,
            "update_ms": self.update_ms,
            "last_epoch": self.last_epoch,
        }

    @classmethod
    def from_json(cls, transactional_id: str, d: dict[str, Any]) -> TxnMetadata:
        return cls(
            transactional_id,
            int(d["producer_id"]),
            int(d["producer_epoch"]),
            int(d["timeout_ms"]),
            TxnState(d["state"]),
            {(t, int(p)) for t, p in d["partitions"]},
            set(d["groups"]),
            int(d["start_ms"]),
            int(d["update_ms"]),
            int(d.get("last_epoch", -1)),
        )


def _now() -> int:
    return int(time.time() * 1000)


class TransactionCoordinator:
    def __init__(
        self,
        store: MetadataStore,
        topics: TopicManager,
        groups: GroupCoordinator,
        producer_ids: ProducerIdManager,
        *,
        max_timeout_ms: int,
    ) -> None:
        self.store = store
        self.topics = topics
        self.groups = groups
        self.producer_ids = producer_ids
        self.max_timeout_ms = max_timeout_ms
        self.txns = {t: TxnMetadata.from_json(t, d) for t, d in store.transactions().items()}
        for meta in self.txns.values():
            if meta.state in (TxnState.PREPARE_COMMIT, TxnState.PREPARE_ABORT):
                log.info(
                    "Completing transaction %s left in %s", meta.transactional_id, meta.state.value
                )
                self._complete(meta, commit=meta.state == TxnState.PREPARE_COMMIT)

    def _save(self, meta: TxnMetadata) -> None:
        meta.update_ms = _now()
        self.store.put_transaction(meta.transactional_id, meta.to_json())

    # -- producer ids ----------------------------------------------------------------------

    def init_producer_id(
        self,
        transactional_id: str,
        timeout_ms: int,
        expected: tuple[int, int] | None = None,
        version: int = 0,
    ) -> tuple[int, int]:
        """A fresh epoch for ``transactional_id``, fencing older producers; aborts what is open.

        ``expected`` is the (producer id, epoch) a v3+ client sends to bump its own epoch
        (KIP-360): allowed only from the current epoch, answered with the current epoch when
        it is a retry from the previous one, fenced otherwise.
        """
        if not 0 < timeout_ms <= self.max_timeout_ms:
            raise KafkaError(
                ErrorCode.invalid_transaction_timeout,
                f"transaction.timeout.ms={timeout_ms} exceeds the broker's "
                f"transaction.max.timeout.ms={self.max_timeout_ms}",
            )
        meta = self.txns.get(transactional_id)
        if meta is None:
            meta = TxnMetadata(transactional_id, self.producer_ids.next_id(), 0, timeout_ms)
            self.txns[transactional_id] = meta
            self._save(meta)
            return meta.producer_id, meta.producer_epoch
        if expected is not None and expected[0] >= 0:
            pid, epoch = expected
            if (
                pid == meta.producer_id
                and epoch == meta.last_epoch
                and meta.state != TxnState.ONGOING
            ):
                return meta.producer_id, meta.producer_epoch  # a retry of the bump it asked for
            if pid != meta.producer_id or epoch != meta.producer_epoch:
                raise KafkaError(
                    ErrorCode.producer_fenced if version >= 4 else ErrorCode.invalid_producer_epoch,
                    f"producer {pid} epoch {epoch} of {transactional_id} was fenced by epoch "
                    f"{meta.producer_epoch}",
                )
        if meta.state == TxnState.ONGOING:
            log.info("Aborting open transaction of %s: a new producer took over", transactional_id)
            self._bump_epoch(meta)
            self._end(meta, commit=False)
        self._bump_epoch(meta)
        meta.timeout_ms = timeout_ms
        meta.start_ms = -1
        meta.state = TxnState.EMPTY
        meta.partitions.clear()
        meta.groups.clear()
        self._save(meta)
        return meta.producer_id, meta.producer_epoch

    def _bump_epoch(self, meta: TxnMetadata) -> None:
        meta.last_epoch = meta.producer_epoch
        if meta.producer_epoch + 1 >= MAX_EPOCH:
            meta.producer_id, meta.producer_epoch = self.producer_ids.next_id(), 0
        else:
            meta.producer_epoch += 1

    # -- transaction steps -----------------------------------------------------------------

    def _validate(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        version: int,
        fenced_from: int = 2,
    ) -> TxnMetadata:
        meta = self.txns.get(transactional_id)
        if meta is None or meta.producer_id != producer_id:
            raise KafkaError(
                ErrorCode.invalid_producer_id_mapping,
                f"producer id {producer_id} does not belong to transactional id {transactional_id}",
            )
        if epoch != meta.producer_epoch:
            code = (
                ErrorCode.producer_fenced
                if version >= fenced_from
                else ErrorCode.invalid_producer_epoch
            )
            raise KafkaError(
                code,
                f"epoch {epoch} of {transactional_id} was fenced by epoch {meta.producer_epoch}",
            )
        if meta.state in (TxnState.PREPARE_COMMIT, TxnState.PREPARE_ABORT):
            raise KafkaError(ErrorCode.concurrent_transactions)
        return meta

    def _begin(self, meta: TxnMetadata) -> None:
        if meta.state != TxnState.ONGOING:
            meta.state = TxnState.ONGOING
            meta.start_ms = _now()
            meta.partitions.clear()
            meta.groups.clear()

    def add_partitions(
        self,
        transactional_id: str,
        producer_id: int,
        epoch: int,
        partitions: list[tuple[str, int]],
        version: int,
    ) -> None:
        meta = self._validate(transactional_id, producer_id, epoch, version)
        for topic, partition in partitions:
            self.topics.partition(topic, partition)  # UNKNOWN_TOPIC_OR_PARTITION if missing
        self._begin(meta)
        meta.partitions.update(partitions)
        self._save(meta)

    def add_offsets(
        self, transactional_id: str, producer_id: int, epoch: int, group_id: str, version: int
    ) -> None:
        meta = self._validate(transactional_id, producer_id, epoch, version)
        self._begin(meta)
        meta.groups.add(group_id)
        self._save(meta)

    def check_offsets_allowed(
        self, transactional_id: str, producer_id: int, epoch: int, group_id: str, version: int
    ) -> None:
        """TxnOffsetCommit comes from the producer of an open transaction with that group."""
        meta = self._validate(transactional_id, producer_id, epoch, version, fenced_from=3)
        if meta.state != TxnState.ONGOING or group_id not in meta.groups:
            raise KafkaError(
                ErrorCode.invalid_txn_state,
                f"group {group_id} was not added to transaction {transactional_id} "
                "(AddOffsetsToTxn)",
            )

    def end_txn(
        self, transactional_id: str, producer_id: int, epoch: int, commit: bool, version: int
    ) -> None:
        meta = self.txns.get(transactional_id)
        if meta is not None and meta.producer_id == producer_id and meta.producer_epoch == epoch:
            done = TxnState.COMPLETE_COMMIT if commit else TxnState.COMPLETE_ABORT
            if meta.state == done:
                return  # a retried EndTxn
        meta = self._validate(transactional_id, producer_id, epoch, version)
        if meta.state != TxnState.ONGOING:
            raise KafkaError(
                ErrorCode.invalid_txn_state,
                f"transaction {transactional_id} is {meta.state.value}, not Ongoing",
            )
        self._end(meta, commit=commit)

    def _end(self, meta: TxnMetadata, *, commit: bool) -> None:
        meta.state = TxnState.PREPARE_COMMIT if commit else TxnState.PREPARE_ABORT
        self._save(meta)
        self._complete(meta, commit=commit)

    def _complete(self, meta: TxnMetadata, *, commit: bool) -> None:
        now = _now()
        for topic, partition in sorted(meta.partitions):
            topic_state = self.topics.get(topic)
            if topic_state is None or partition >= len(topic_state.partitions):
                continue  # deleted meanwhile
            topic_state.partitions[partition].write_marker(
                meta.producer_id,
                meta.producer_epoch,
                commit=commit,
                coordinator_epoch=COORDINATOR_EPOCH,
                now_ms=now,
            )
            self.topics.notify(topic, partition)
        for group_id in sorted(meta.groups):
            self.groups.complete_txn(group_id, meta.producer_id, commit=commit)
        meta.state = TxnState.COMPLETE_COMMIT if commit else TxnState.COMPLETE_ABORT
        meta.partitions.clear()
        meta.groups.clear()
        self._save(meta)
        log.debug("Transaction %s %s", meta.transactional_id, "committed" if commit else "aborted")

    def abort_expired(self) -> None:
        """Abort transactions open longer than their timeout, fencing their producer."""
        now = _now()
        for meta in list(self.txns.values()):
            if meta.state == TxnState.ONGOING and now - meta.start_ms > meta.timeout_ms:
                log.info(
                    "Aborting transaction %s: open for %d ms, timeout %d ms",
                    meta.transactional_id,
                    now - meta.start_ms,
                    meta.timeout_ms,
                )
                self._bump_epoch(meta)
                self._end(meta, commit=False)

    # -- admin -----------------------------------------------------------------------------

    def describe(self, transactional_id: str) -> TxnMetadata | None:
        return self.txns.get(transactional_id)

    def list(self) -> list[TxnMetadata]:
        return list(self.txns.values())
