"""The group coordinator: routes group requests to :class:`Group`s and owns their offsets.

A single node coordinates every group. Groups and committed offsets are durable in the
:class:`MetadataStore`; members are not (after a restart they rejoin, as with Kafka).
"""

from __future__ import annotations

import asyncio
import builtins
import logging
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from seaway.broker.coordinator.group import Group, GroupState, JoinResult, Member
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
    ) -> None:
        self.store = store
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

    def _new_group(self, group_id: str, protocol_type: str = "", generation: int = 0) -> Group:
        group = Group(
            group_id,
            initial_delay_ms=self.initial_delay_ms,
            protocol_type=protocol_type,
            generation=generation,
        )
        group.on_generation.append(self._persist)
        self.groups[group_id] = group
        return group

    def _persist(self, group: Group) -> None:
        self.store.put_group(group.group_id, group.protocol_type, group.generation)

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
        if not member_id:
            if len(group.members) + len(group.pending) >= self.max_group_size:
                raise KafkaError(ErrorCode.group_max_size_reached)
            member_id = f"{req.client_id}-{uuid.uuid4()}"
            if req.version >= 4:  # KIP-394: hand out the id, the member rejoins with it
                group.pending[member_id] = time.monotonic() + session / 1000
                raise MemberIdRequired(member_id)
        elif member_id not in group.members and member_id not in group.pending:
            raise KafkaError(ErrorCode.unknown_member_id, f"unknown member id {member_id}")
        member = group.members.get(member_id)
        changed = member is None or member.protocols != protocols
        if member is None:
            member = Member(
                member_id,
                req.group_instance_id,
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

    async def sync(
        self, group_id: str, generation: int, member_id: str, assignments: dict[str, bytes]
    ) -> tuple[Group, bytes]:
        group = self._group(group_id)
        return group, await group.sync(member_id, generation, assignments)

    def heartbeat(self, group_id: str, generation: int, member_id: str) -> None:
        self._group(group_id).heartbeat(member_id, generation)

    def leave(self, group_id: str, member_id: str, group_instance_id: str | None) -> None:
        group = self._group(group_id)
        if not member_id and group_instance_id:
            member_id = next(
                (
                    m.member_id
                    for m in group.members.values()
                    if m.group_instance_id == group_instance_id
                ),
                "",
            )
        if member_id not in group.members:
            raise KafkaError(ErrorCode.unknown_member_id)
        log.info("Member %s left group %s", member_id, group_id)
        group.remove(member_id)

    def expire_sessions(self) -> None:
        now = time.monotonic()
        for group in list(self.groups.values()):
            for member_id in group.expire(now):
                log.info("Member %s of group %s timed out", member_id, group.group_id)

    # -- listing ---------------------------------------------------------------------------

    def list(self) -> list[Group]:
        return [g for g in self.groups.values() if g.state != GroupState.DEAD]

    def describe(self, group_id: str) -> Group | None:
        group = self.groups.get(group_id)
        return group if group is not None and group.state != GroupState.DEAD else None

    def delete(self, group_id: str) -> None:
        group = self.groups.get(group_id)
        if group is None or group.state == GroupState.DEAD:
            raise KafkaError(ErrorCode.group_id_not_found, f"group {group_id} does not exist")
        if group.state != GroupState.EMPTY:
            raise KafkaError(ErrorCode.non_empty_group, f"group {group_id} has members")
        group.make_dead()
        del self.groups[group_id]
        self.store.delete_group(group_id)

    # -- offsets ---------------------------------------------------------------------------

    def commit_offsets(
        self,
        group_id: str,
        generation: int,
        member_id: str,
        offsets: Iterable[tuple[str, int, int, int, str | None]],
    ) -> dict[tuple[str, int], ErrorCode]:
        """Validate the committer and store offsets; return an error code per partition."""
        if not group_id:
            raise KafkaError(ErrorCode.invalid_group_id)
        group = self.groups.get(group_id)
        if generation < 0 and not member_id:
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
                raise KafkaError(ErrorCode.illegal_generation)
            if group.state == GroupState.COMPLETING_REBALANCE:
                raise KafkaError(ErrorCode.rebalance_in_progress)
            group.validate_member(member_id, generation)
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
        return results

    # -- transactional offsets (KIP-98, KIP-447) -------------------------------------------

    def txn_commit_offsets(
        self,
        group_id: str,
        producer_id: int,
        generation: int,
        member_id: str,
        offsets: Iterable[tuple[str, int, int, int, str | None]],
    ) -> dict[tuple[str, int], ErrorCode]:
        """Stage offsets that become the group's only when the transaction commits."""
        if not group_id:
            raise KafkaError(ErrorCode.invalid_group_id)
        group = self.groups.get(group_id)
        if generation >= 0 or member_id:  # KIP-447: fence zombies of the consumer group
            if group is None or group.state == GroupState.DEAD:
                raise KafkaError(ErrorCode.unknown_member_id, f"group {group_id} has no members")
            group.validate_member(member_id, generation)
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
        self.store.complete_txn_offsets(group_id, producer_id, commit, int(time.time() * 1000))
        self.pending_txn.pop((group_id, producer_id), None)
        if commit and group_id not in self.groups:
            self._persist(self._new_group(group_id))

    def fetch_offsets(self, group_id: str) -> dict[tuple[str, int], CommittedOffset]:
        return self.store.group_offsets(group_id)

    def delete_offsets(self, group_id: str, partitions: builtins.list[tuple[str, int]]) -> None:
        self.store.delete_group_offsets(group_id, partitions)

    def expire_offsets(self, retention_ms: int) -> None:
        active = {g.group_id for g in self.groups.values() if not g.is_empty}
        if self.store.expire_offsets(int(time.time() * 1000) - retention_ms, active):
            log.info("Expired committed offsets older than %d ms", retention_ms)

    async def close(self) -> None:
        for group in self.groups.values():
            group.make_dead()
        await asyncio.sleep(0)
