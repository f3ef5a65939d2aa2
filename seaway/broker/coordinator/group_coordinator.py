"""The group coordinator: routes group requests to :class:`Group`s and owns their offsets.

A single node coordinates every group. Groups and committed offsets are durable in the
:class:`MetadataStore`; members are not (after a restart they rejoin, as with Kafka).

A group id is a classic group or a consumer group (KIP-848, :mod:`consumer_coordinator`):
an empty group of one kind becomes the other when a member of the other protocol joins (its
offsets stay); one with members refuses the other protocol's members.
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from seaway.broker.coordinator.consumer_coordinator import (
    ConsumerGroupCoordinator,
    HeartbeatRequest,
    HeartbeatResponse,
)
from seaway.broker.coordinator.consumer_group import ConsumerGroup
from seaway.broker.coordinator.group import Group, GroupState, JoinResult, Member
from seaway.broker.coordinator.offsets_topic import OffsetsTopic
from seaway.broker.metadata import CommittedOffset, MetadataStore
from seaway.protocol.errors import ErrorCode, KafkaError

log = logging.getLogger(__name__)

__all__ = ["GroupCoordinator", "JoinRequest", "MemberIdRequired"]


@dataclass(frozen=True, slots=True)
class JoinRequest:
    """The parts of a JoinGroup request the coordinator reads, whatever its version."""

    group_id: str
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    version: int
    reason: str | None = None  # KIP-800 (v8+), for the logs


class MemberIdRequired(KafkaError):
    """KIP-394: the member must rejoin with the id the coordinator gave it."""

    def __init__(self, member_id: str) -> None:
        super().__init__(ErrorCode.member_id_required)
        self.member_id = member_id


class GroupCoordinator:
    """Every consumer group of this node."""

    def __init__(
        self,
        store: MetadataStore,
        *,
        initial_delay_ms: int,
        min_session_timeout_ms: int,
        max_session_timeout_ms: int,
        max_group_size: int,
        metadata_max_bytes: int,
        consumer: ConsumerGroupCoordinator,
        offsets_topic: OffsetsTopic | None = None,
    ) -> None:
        self.store = store
        self.offsets_topic = offsets_topic  # where committed offsets are copied, if anywhere
        self.consumer = consumer
        self.initial_delay_ms = initial_delay_ms
        self.min_session_timeout_ms = min_session_timeout_ms
        self.max_session_timeout_ms = max_session_timeout_ms
        self.max_group_size = max_group_size
        self.metadata_max_bytes = metadata_max_bytes
        self.groups: dict[str, Group] = {}
        # Offsets committed inside open transactions: (group, producer id) -> partitions.
        self.pending_txn: dict[tuple[str, int], dict[tuple[str, int], CommittedOffset]] = (
            store.txn_offsets()
        )
        for group_id, (protocol_type, generation) in store.groups().items():
            self._new_group(group_id, protocol_type, generation)

    def offsets_topic_ensure(self) -> None:
        """Create ``__consumer_offsets`` if it is kept and missing (a client asked for it)."""
        if self.offsets_topic is not None:
            self.offsets_topic.ensure()

    def _new_group(self, group_id: str, protocol_type: str = "", generation: int = 0) -> Group:
        group = Group(
            group_id,
            initial_delay_ms=self.initial_delay_ms,
            protocol_type=protocol_type,
            generation=generation,
        )
        group.on_generation.append(self._persist)
        group.on_generation.append(self._copy_if_empty)
        self.groups[group_id] = group
        return group

    def _persist(self, group: Group) -> None:
        self.store.put_group(group.group_id, group.protocol_type, group.generation)

    def _copy_if_empty(self, group: Group) -> None:
        """A rebalance that left no members: copy the empty group, as Kafka stores it."""
        if group.is_empty and self.offsets_topic is not None:
            self.offsets_topic.write_group(group)

    def _group(self, group_id: str) -> Group:
        group = self.groups.get(group_id)
        if group is None or group.state == GroupState.DEAD:
            raise KafkaError(ErrorCode.unknown_member_id, f"group {group_id} has no members")
        return group

    # -- membership ------------------------------------------------------------------------

    async def join(self, req: JoinRequest) -> JoinResult:
        group_id = req.group_id
        if not group_id:
            raise KafkaError(ErrorCode.invalid_group_id, "group.id must not be empty")
        session = req.session_timeout_ms
        if not self.min_session_timeout_ms <= session <= self.max_session_timeout_ms:
            raise KafkaError(
                ErrorCode.invalid_session_timeout,
                f"session.timeout.ms {session} is outside the broker's range "
                f"[{self.min_session_timeout_ms}, {self.max_session_timeout_ms}]",
            )
        protocols = req.protocols
        member_id = req.member_id
        instance_id = req.group_instance_id
        self._leave_consumer_group(group_id, req.protocol_type)
        group = self.groups.get(group_id)
        if group is None or group.state == GroupState.DEAD:
            if member_id:
                raise KafkaError(ErrorCode.unknown_member_id)
            group = self._new_group(group_id)
        if not group.supports(req.protocol_type, protocols):
            raise KafkaError(
                ErrorCode.inconsistent_group_protocol,
                "the member's protocol type or protocols do not match the group's",
            )
        log.debug("Member %s (group.instance.id %s) joins group %s in state %s; reason: %s",
                  member_id or "(new)", instance_id, group_id, group.state.value,
                  req.reason)  # fmt: skip
        if not member_id:
            if instance_id is not None and instance_id in group.static_members:
                log.info("Static member %s of group %s rejoined: it replaces member %s",
                         instance_id, group_id, group.static_members[instance_id])  # fmt: skip
                return await group.rejoin_static(
                    instance_id,
                    f"{instance_id}-{uuid.uuid4()}",
                    protocols,
                    session,
                    req.rebalance_timeout_ms,
                    skip_assignment=req.version >= 9,
                )
            if len(group.members) + len(group.pending) >= self.max_group_size:
                raise KafkaError(
                    ErrorCode.group_max_size_reached,
                    f"group {group_id} has group.max.size {self.max_group_size} members",
                )
            if instance_id is not None:  # a static member joins at once (KIP-345)
                member_id = f"{instance_id}-{uuid.uuid4()}"
            else:
                member_id = f"{req.client_id}-{uuid.uuid4()}"
                if req.version >= 4:  # KIP-394: hand out the id, the member rejoins with it
                    group.pending[member_id] = time.monotonic() + session / 1000
                    raise MemberIdRequired(member_id)
        elif instance_id is not None:
            group.validate_member(member_id, instance_id)  # FENCED_INSTANCE_ID when replaced
        elif member_id not in group.members and member_id not in group.pending:
            raise KafkaError(ErrorCode.unknown_member_id, f"unknown member id {member_id}")
        member = group.members.get(member_id)
        changed = member is None or member.protocols != protocols
        if member is None:
            member = Member(
                member_id,
                instance_id,
                req.client_id,
                req.client_host,
                session,
                req.rebalance_timeout_ms,
                req.protocol_type,
                protocols,
            )
            group.add_member(member)
        else:
            member.protocols = protocols
            member.session_timeout_ms = session
            member.rebalance_timeout_ms = req.rebalance_timeout_ms
        return await group.join(member, changed)

    def _leave_consumer_group(self, group_id: str, protocol_type: str) -> None:
        """A classic member joining consumer group ``group_id``: an empty one is dropped (a
        classic group takes its place); one with members refuses it (Kafka would let a
        "consumer" member in as a classic member of the consumer group: not supported here)."""
        consumer = self.consumer.get(group_id)
        if consumer is None:
            return
        if consumer.is_empty:
            self.consumer.drop(group_id)
            log.info("Empty consumer group %s becomes a classic group", group_id)
            return
        if protocol_type != ConsumerGroup.protocol_type:
            raise KafkaError(
                ErrorCode.inconsistent_group_protocol,
                f"group {group_id} is a consumer group: protocol type {protocol_type!r} cannot "
                "join it",
            )
        raise KafkaError(
            ErrorCode.group_id_not_found,
            f"Group {group_id} is a consumer group (KIP-848) with members: join it with "
            "group.protocol=consumer, or use another group.id",
        )

    def consumer_heartbeat(
        self, req: HeartbeatRequest, may_describe: Callable[[str], bool]
    ) -> HeartbeatResponse:
        """ConsumerGroupHeartbeat: an empty classic group of that id becomes a consumer group
        (its offsets stay); one with members is GROUP_ID_NOT_FOUND, as Kafka answers when it
        cannot upgrade the group."""
        classic = self.groups.get(req.group_id)
        if classic is not None and classic.state != GroupState.DEAD:
            if req.member_epoch != 0 or not classic.is_empty:
                raise KafkaError(
                    ErrorCode.group_id_not_found,
                    f"Group {req.group_id} is not a consumer group: it is a classic group"
                    + (" with members" if not classic.is_empty else ""),
                )
            classic.make_dead()
            del self.groups[req.group_id]
            log.info("Empty classic group %s becomes a consumer group", req.group_id)
        created = self.consumer.get(req.group_id) is None
        response = self.consumer.heartbeat(req, may_describe)
        if created and self.consumer.get(req.group_id) is not None:
            self.store.put_group(req.group_id, ConsumerGroup.protocol_type, 0)
        return response

    async def sync(
        self,
        group_id: str,
        generation: int,
        member_id: str,
        group_instance_id: str | None,
        protocol: tuple[str | None, str | None],
        assignments: dict[str, bytes],
    ) -> tuple[Group, bytes]:
        """SyncGroup; ``protocol`` is the (type, name) the member sent (v5+), else Nones."""
        group = self._group(group_id)
        completing = group.state == GroupState.COMPLETING_REBALANCE
        future = group.sync(member_id, group_instance_id, generation, protocol, assignments)
        if completing and group.state == GroupState.STABLE and self.offsets_topic is not None:
            self.offsets_topic.write_group(group)  # the leader's assignment arrived
        return group, await future

    def heartbeat(
        self, group_id: str, generation: int, member_id: str, group_instance_id: str | None
    ) -> None:
        self._group(group_id).heartbeat(member_id, group_instance_id, generation)

    def leave(
        self, group_id: str, member_id: str, group_instance_id: str | None, reason: str | None
    ) -> None:
        group = self._group(group_id)
        left = group.leave(member_id, group_instance_id)
        log.info("Member %s left group %s; reason: %s", left, group_id, reason)

    def expire_sessions(self) -> None:
        now = time.monotonic()
        for group in list(self.groups.values()):
            for member_id in group.expire(now):
                log.info("Member %s of group %s timed out", member_id, group.group_id)
        self.consumer.expire(now)

    # -- listing ---------------------------------------------------------------------------

    def list(self) -> list[Group | ConsumerGroup]:
        """Every classic and consumer group."""
        classic: list[Group | ConsumerGroup] = [
            g for g in self.groups.values() if g.state != GroupState.DEAD
        ]
        return classic + list(self.consumer.groups.values())

    def describe(self, group_id: str) -> Group | None:
        group = self.groups.get(group_id)
        return group if group is not None and group.state != GroupState.DEAD else None

    def delete(self, group_id: str) -> None:
        consumer = self.consumer.get(group_id)
        if consumer is not None:
            if not consumer.is_empty:
                raise KafkaError(ErrorCode.non_empty_group, f"group {group_id} has members")
            self.consumer.drop(group_id)
            self._drop_group_offsets(group_id, classic=False)
            return
        group = self.groups.get(group_id)
        if group is None or group.state == GroupState.DEAD:
            raise KafkaError(ErrorCode.group_id_not_found, f"group {group_id} does not exist")
        if group.state != GroupState.EMPTY:
            raise KafkaError(ErrorCode.non_empty_group, f"group {group_id} has members")
        group.make_dead()
        del self.groups[group_id]
        self._drop_group_offsets(group_id, classic=True)

    def _drop_group_offsets(self, group_id: str, *, classic: bool) -> None:
        """Forget a deleted group and its offsets (tombstones in ``__consumer_offsets``, with
        the group record's for a classic group)."""
        doomed = list(self.store.group_offsets(group_id)) if self.offsets_topic else []
        self.store.delete_group(group_id)
        if self.offsets_topic is None:
            return
        if classic:
            self.offsets_topic.delete_group(group_id, doomed)
        else:
            self._copy_offsets(group_id, [(t, p, None) for t, p in doomed])

    def _copy_offsets(
        self, group_id: str, offsets: Iterable[tuple[str, int, CommittedOffset | None]]
    ) -> None:
        if self.offsets_topic is not None:
            self.offsets_topic.write_offsets(group_id, offsets)

    # -- offsets ---------------------------------------------------------------------------

    def commit_offsets(
        self,
        group_id: str,
        generation: int,
        member_id: str,
        group_instance_id: str | None,
        offsets: Iterable[tuple[str, int, int, int, str | None]],
        version: int = 8,
    ) -> dict[tuple[str, int], ErrorCode]:
        """Validate the committer (of OffsetCommit ``version``) and store offsets; return an
        error code per partition. A consumer group's committer sends its member epoch."""
        if not group_id:
            raise KafkaError(ErrorCode.invalid_group_id)
        group = self.groups.get(group_id)
        consumer = self.consumer.get(group_id)
        if consumer is not None:
            self.consumer.validate_commit(consumer, member_id, generation, version=version)
        elif generation < 0 and not member_id and group_instance_id is None:
            if group is not None and group.state not in (GroupState.EMPTY, GroupState.DEAD):
                raise KafkaError(
                    ErrorCode.unknown_member_id,
                    f"group {group_id} has active members: commit as a member of it",
                )
            if group is None or group.state == GroupState.DEAD:
                group = self._new_group(group_id)
                self._persist(group)
        else:
            if group is None or group.state == GroupState.DEAD:
                if version >= 9:  # as Kafka: GROUP_ID_NOT_FOUND from v9, before for old clients
                    raise KafkaError(ErrorCode.group_id_not_found, f"group {group_id} not found")
                raise KafkaError(ErrorCode.illegal_generation)
            group.validate_member(member_id, group_instance_id)
            group.check_generation(generation)
            if group.state == GroupState.COMPLETING_REBALANCE:
                raise KafkaError(ErrorCode.rebalance_in_progress)
        now = int(time.time() * 1000)
        results: dict[tuple[str, int], ErrorCode] = {}
        accepted: list[tuple[str, int, CommittedOffset]] = []
        for topic, partition, offset, epoch, metadata in offsets:
            if metadata is not None and len(metadata.encode()) > self.metadata_max_bytes:
                results[topic, partition] = ErrorCode.offset_metadata_too_large
                continue
            accepted.append((topic, partition, CommittedOffset(offset, epoch, metadata, now)))
            results[topic, partition] = ErrorCode.none
        if accepted:
            self.store.commit_offsets(group_id, accepted)
            self._copy_offsets(group_id, accepted)
        return results

    # -- transactional offsets (KIP-98, KIP-447) -------------------------------------------

    def txn_commit_offsets(
        self,
        group_id: str,
        producer_id: int,
        generation: int,
        member_id: str,
        group_instance_id: str | None,
        offsets: Iterable[tuple[str, int, int, int, str | None]],
    ) -> dict[tuple[str, int], ErrorCode]:
        """Stage offsets that become the group's only when the transaction commits."""
        if not group_id:
            raise KafkaError(ErrorCode.invalid_group_id)
        group = self.groups.get(group_id)
        consumer = self.consumer.get(group_id)
        if consumer is not None:
            self.consumer.validate_commit(consumer, member_id, generation, version=None)
        # KIP-447: fence zombies of the consumer group
        elif generation >= 0 or member_id or group_instance_id is not None:
            if group is None or group.state == GroupState.DEAD:
                raise KafkaError(ErrorCode.unknown_member_id, f"group {group_id} has no members")
            group.validate_member(member_id, group_instance_id)
            group.check_generation(generation)
        results: dict[tuple[str, int], ErrorCode] = {}
        staged: list[tuple[str, int, CommittedOffset]] = []
        for topic, partition, offset, epoch, metadata in offsets:
            if metadata is not None and len(metadata.encode()) > self.metadata_max_bytes:
                results[topic, partition] = ErrorCode.offset_metadata_too_large
                continue
            staged.append((topic, partition, CommittedOffset(offset, epoch, metadata, 0)))
            results[topic, partition] = ErrorCode.none
        if staged:
            self.store.put_txn_offsets(group_id, producer_id, staged)
            pending = self.pending_txn.setdefault((group_id, producer_id), {})
            pending.update({(t, p): o for t, p, o in staged})
        return results

    def unstable_partitions(self, group_id: str) -> set[tuple[str, int]]:
        """Partitions with offsets waiting on an open transaction (require_stable)."""
        return {
            tp for (g, _), offsets in self.pending_txn.items() if g == group_id for tp in offsets
        }

    def complete_txn(self, group_id: str, producer_id: int, *, commit: bool) -> None:
        now = int(time.time() * 1000)
        self.store.complete_txn_offsets(group_id, producer_id, commit, now)
        pending = self.pending_txn.pop((group_id, producer_id), None) or {}
        if commit:
            self._copy_offsets(
                group_id,
                (
                    (t, p, CommittedOffset(o.offset, o.leader_epoch, o.metadata, now))
                    for (t, p), o in pending.items()
                ),
            )
        if commit and group_id not in self.groups:
            self._persist(self._new_group(group_id))

    def fetch_offsets(self, group_id: str) -> dict[tuple[str, int], CommittedOffset]:
        return self.store.group_offsets(group_id)

    def validate_fetch(self, group_id: str, member_id: str | None, member_epoch: int) -> None:
        """OffsetFetch v9+: a consumer group's member must send its current epoch."""
        consumer = self.consumer.get(group_id)
        if consumer is not None:
            self.consumer.validate_fetch(consumer, member_id, member_epoch)

    def delete_offsets(self, group_id: str, partitions: builtins.list[tuple[str, int]]) -> None:
        self.store.delete_group_offsets(group_id, partitions)
        self._copy_offsets(group_id, [(t, p, None) for t, p in partitions])

    def expire_offsets(self, retention_ms: int) -> None:
        active = {g.group_id for g in self.groups.values() if not g.is_empty}
        active.update(self.consumer.active())
        if self.store.expire_offsets(int(time.time() * 1000) - retention_ms, active):
            log.info("Expired committed offsets older than %d ms", retention_ms)

    async def close(self) -> None:
        for group in self.groups.values():
            group.make_dead()
        for group_id in list(self.consumer.groups):
            self.consumer.drop(group_id)
        await asyncio.sleep(0)
