"""The classic consumer-group protocol: one group's state machine.

States and transitions follow Kafka's ``ClassicGroup``: Empty -> PreparingRebalance ->
CompletingRebalance -> Stable, with Dead for deleted groups. Joins are parked on futures
until the rebalance completes; followers' syncs are parked until the leader's arrives.
Member metadata and assignments are opaque bytes: assignors run in the clients.

Static members (KIP-345) carry a ``group.instance.id``: a rebalance does not drop one that
has not rejoined (only its session timeout does), and one that rejoins under a new member
id takes the old id's place, fencing it with FENCED_INSTANCE_ID.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from seaway.protocol.errors import ErrorCode, KafkaError

__all__ = ["Group", "GroupState", "JoinResult", "Member"]


class GroupState(enum.Enum):
    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass(frozen=True, slots=True)
class JoinResult:
    generation: int
    protocol_name: str | None
    leader: str
    member_id: str
    members: tuple[tuple[str, str | None, bytes], ...]  # only for the leader
    skip_assignment: bool = False  # KIP-814: a static leader rejoined a stable group


@dataclass(eq=False)
class Member:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: list[tuple[str, bytes]]
    assignment: bytes = b""
    join_future: asyncio.Future[JoinResult] | None = None
    sync_future: asyncio.Future[bytes] | None = None
    last_heartbeat: float = field(default_factory=time.monotonic)

    def metadata(self, protocol: str | None) -> bytes:
        return next((m for n, m in self.protocols if n == protocol), b"")

    @property
    def awaiting(self) -> bool:
        return self.join_future is not None or self.sync_future is not None

    def expired(self, now: float) -> bool:
        return not self.awaiting and now - self.last_heartbeat > self.session_timeout_ms / 1000


def _resolve(future: asyncio.Future | None, value: object) -> None:  # type: ignore[type-arg]
    if future is not None and not future.done():
        future.set_result(value)


def _fail(future: asyncio.Future | None, error: KafkaError) -> None:  # type: ignore[type-arg]
    if future is not None and not future.done():
        future.set_exception(error)


def _inconsistent(sent: str | None, known: str | None) -> bool:
    """SyncGroup v5+: a protocol type or name the member sent that is not the group's."""
    return sent is not None and known is not None and sent != known


class Group:
    """One consumer group's membership, generation and rebalance state."""

    def __init__(
        self, group_id: str, *, initial_delay_ms: int, protocol_type: str = "", generation: int = 0
    ) -> None:
        self.group_id = group_id
        self.state = GroupState.EMPTY
        self.generation = generation
        self.protocol_type = protocol_type
        self.protocol_name: str | None = None
        self.leader_id: str | None = None
        self.members: dict[str, Member] = {}
        self.static_members: dict[str, str] = {}  # group.instance.id -> its current member id
        self.pending: dict[str, float] = {}  # member ids handed out by MEMBER_ID_REQUIRED
        self.initial_delay_ms = initial_delay_ms
        self._timer: asyncio.TimerHandle | None = None
        self._initial_deadline = 0.0
        # Called with the group after each completed join.
        self.on_generation: list[Callable[[Group], None]] = []

    # -- helpers ---------------------------------------------------------------------------

    @property
    def is_empty(self) -> bool:
        return not self.members

    def _rebalance_timeout(self) -> float:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0) / 1000

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def supports(self, protocol_type: str, protocols: list[tuple[str, bytes]]) -> bool:
        if not protocols:
            return False
        if self.is_empty:
            return True
        if protocol_type != self.protocol_type:
            return False
        names = {n for n, _ in protocols}
        return all(names & {n for n, _ in m.protocols} for m in self.members.values()) and bool(
            self._candidates() & names
        )

    def _candidates(self) -> set[str]:
        sets = [{n for n, _ in m.protocols} for m in self.members.values()]
        return set.intersection(*sets) if sets else set()

    def _select_protocol(self) -> str | None:
        candidates = self._candidates()
        if not candidates:
            return None
        votes: dict[str, int] = {}
        for member in self.members.values():
            choice = next(n for n, _ in member.protocols if n in candidates)
            votes[choice] = votes.get(choice, 0) + 1
        return max(sorted(candidates), key=lambda n: votes.get(n, 0))

    def validate_member(self, member_id: str, group_instance_id: str | None) -> Member:
        """The member ``member_id``; with a ``group_instance_id``, only if that instance's
        current member id is ``member_id`` (else FENCED_INSTANCE_ID: a newer instance with
        the same id replaced it)."""
        if group_instance_id is not None:
            current = self._static_member_id(group_instance_id)
            if current != member_id:
                raise KafkaError(
                    ErrorCode.fenced_instance_id,
                    f"member {member_id} was replaced by {current}: another consumer joined "
                    f"group {self.group_id} with the same group.instance.id {group_instance_id}",
                )
        member = self.members.get(member_id)
        if member is None:
            raise KafkaError(ErrorCode.unknown_member_id, f"member {member_id} is not in the group")
        return member

    def _static_member_id(self, group_instance_id: str | None) -> str:
        current = self.static_members.get(group_instance_id or "")
        if group_instance_id is None or current is None:
            raise KafkaError(
                ErrorCode.unknown_member_id,
                f"group {self.group_id} has no member with group.instance.id {group_instance_id}",
            )
        return current

    def check_generation(self, generation: int) -> None:
        if generation != self.generation:
            raise KafkaError(
                ErrorCode.illegal_generation,
                f"generation {generation} is not the group's current {self.generation}",
            )

    # -- join ------------------------------------------------------------------------------

    def add_member(self, member: Member) -> None:
        if self.is_empty:
            self.protocol_type = member.protocol_type
        self.members[member.member_id] = member
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id
        self.pending.pop(member.member_id, None)

    def join(self, member: Member, protocols_changed: bool) -> asyncio.Future[JoinResult]:
        """Park ``member``'s join and drive the rebalance; the future yields its response."""
        member.last_heartbeat = time.monotonic()
        if (
            self.state == GroupState.STABLE
            and not protocols_changed
            and member.member_id != self.leader_id
        ) or (self.state == GroupState.COMPLETING_REBALANCE and not protocols_changed):
            return self._answered(self._result_for(member))
        return self._park(member)

    def rejoin_static(
        self,
        group_instance_id: str,
        new_member_id: str,
        protocols: list[tuple[str, bytes]],
        session_timeout_ms: int,
        rebalance_timeout_ms: int,
        *,
        skip_assignment: bool,
    ) -> asyncio.Future[JoinResult]:
        """A known static member joined without a member id: ``new_member_id`` replaces the
        instance's old member id, keeping its assignment. A stable group whose selected protocol
        stays the same does not rebalance (its leader learns the members with KIP-814's
        ``skip_assignment`` when ``skip_assignment`` (JoinGroup v9+), else answers as a
        follower); otherwise the group rebalances."""
        old_leader = self.leader_id
        member = self._replace_static(group_instance_id, new_member_id)
        member.protocols = protocols
        member.session_timeout_ms = session_timeout_ms
        member.rebalance_timeout_ms = rebalance_timeout_ms
        if self.state == GroupState.STABLE and self._select_protocol() == self.protocol_name:
            if member.member_id != self.leader_id:
                return self._answered(self._result_for(member))
            if skip_assignment:
                return self._answered(
                    dataclasses.replace(self._result_for(member), skip_assignment=True)
                )
            return self._answered(
                JoinResult(self.generation, self.protocol_name, old_leader or "", new_member_id, ())
            )
        return self._park(member)

    def _replace_static(self, group_instance_id: str, new_member_id: str) -> Member:
        old_member_id = self.static_members[group_instance_id]
        old = self.members.pop(old_member_id)
        fenced = KafkaError(
            ErrorCode.fenced_instance_id,
            f"member {old_member_id} was replaced by {new_member_id} with the same "
            f"group.instance.id {group_instance_id}",
        )
        _fail(old.join_future, fenced)
        _fail(old.sync_future, fenced)
        member = dataclasses.replace(
            old,
            member_id=new_member_id,
            join_future=None,
            sync_future=None,
            last_heartbeat=time.monotonic(),
        )
        self.members[new_member_id] = member
        if self.leader_id == old_member_id:
            self.leader_id = new_member_id
        self.static_members[group_instance_id] = new_member_id
        return member

    @staticmethod
    def _answered(result: JoinResult) -> asyncio.Future[JoinResult]:
        future: asyncio.Future[JoinResult] = asyncio.get_running_loop().create_future()
        future.set_result(result)
        return future

    def _park(self, member: Member) -> asyncio.Future[JoinResult]:
        future: asyncio.Future[JoinResult] = asyncio.get_running_loop().create_future()
        _fail(member.join_future, KafkaError(ErrorCode.rebalance_in_progress))
        member.join_future = future
        if self.state != GroupState.PREPARING_REBALANCE:
            self.prepare_rebalance()
        elif self._initial_deadline:
            self._extend_initial_delay()
        self.try_complete_join()
        return future

    def prepare_rebalance(self) -> None:
        """Enter PreparingRebalance and arm the timer that ends it."""
        if self.state == GroupState.COMPLETING_REBALANCE:
            for m in self.members.values():
                _fail(m.sync_future, KafkaError(ErrorCode.rebalance_in_progress))
                m.sync_future = None
        initial = self.state == GroupState.EMPTY
        self.state = GroupState.PREPARING_REBALANCE
        self._cancel_timer()
        loop = asyncio.get_running_loop()
        if initial and self.initial_delay_ms > 0:
            self._initial_deadline = loop.time() + self._rebalance_timeout()
            self._timer = loop.call_later(self.initial_delay_ms / 1000, self._initial_delay_over)
        else:
            self._initial_deadline = 0.0
            self._timer = loop.call_later(self._rebalance_timeout(), self.complete_join)

    def _extend_initial_delay(self) -> None:
        """A member arrived during the initial delay: wait another delay, within bounds."""
        loop = asyncio.get_running_loop()
        remaining = self._initial_deadline - loop.time()
        delay = min(self.initial_delay_ms / 1000, max(remaining, 0))
        self._cancel_timer()
        self._timer = loop.call_later(delay, self._initial_delay_over)

    def _initial_delay_over(self) -> None:
        self._initial_deadline = 0.0
        self._timer = None
        self.complete_join()

    def try_complete_join(self) -> None:
        """Complete the rebalance once every known member has rejoined."""
        if self.state != GroupState.PREPARING_REBALANCE or self._initial_deadline:
            return
        if not self.pending and all(m.join_future is not None for m in self.members.values()):
            self.complete_join()

    def complete_join(self) -> None:
        """End PreparingRebalance: dynamic members that did not rejoin are dropped, static
        ones stay (until their session times out); the leader is one that rejoined."""
        if self.state != GroupState.PREPARING_REBALANCE:
            return
        self._cancel_timer()
        for member_id, m in list(self.members.items()):
            if m.join_future is None and m.group_instance_id is None:
                self._drop(member_id)
        joined = [m.member_id for m in self.members.values() if m.join_future is not None]
        if self.members and not joined:  # only absent static members: wait for them
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._rebalance_timeout(), self.complete_join)
            return
        self.generation += 1
        if self.is_empty:
            self.state = GroupState.EMPTY
            self.protocol_name = None
            self.leader_id = None
            self._notify()
            return
        self.protocol_name = self._select_protocol()
        if self.leader_id not in joined:
            self.leader_id = joined[0]
        self.state = GroupState.COMPLETING_REBALANCE
        for member in self.members.values():
            _resolve(member.join_future, self._result_for(member))
            member.join_future = None
            member.last_heartbeat = time.monotonic()
        self._notify()

    def _notify(self) -> None:
        for callback in self.on_generation:
            callback(self)

    def _result_for(self, member: Member) -> JoinResult:
        members: tuple[tuple[str, str | None, bytes], ...] = ()
        if member.member_id == self.leader_id:
            members = tuple(
                (m.member_id, m.group_instance_id, m.metadata(self.protocol_name))
                for m in self.members.values()
            )
        return JoinResult(
            self.generation, self.protocol_name, self.leader_id or "", member.member_id, members
        )

    # -- sync ------------------------------------------------------------------------------

    def sync(
        self,
        member_id: str,
        group_instance_id: str | None,
        generation: int,
        protocol: tuple[str | None, str | None],
        assignments: dict[str, bytes],
    ) -> asyncio.Future[bytes]:
        """A member's SyncGroup; ``protocol`` is the (type, name) it sent (v5+) or Nones."""
        member = self.validate_member(member_id, group_instance_id)
        self.check_generation(generation)
        protocol_type, protocol_name = protocol
        if _inconsistent(protocol_type, self.protocol_type) or _inconsistent(
            protocol_name, self.protocol_name
        ):
            raise KafkaError(
                ErrorCode.inconsistent_group_protocol,
                f"SyncGroup's protocol {protocol_type}/{protocol_name} is not the group's "
                f"{self.protocol_type}/{self.protocol_name}",
            )
        member.last_heartbeat = time.monotonic()
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        if self.state == GroupState.PREPARING_REBALANCE:
            raise KafkaError(ErrorCode.rebalance_in_progress)
        if self.state == GroupState.STABLE:
            future.set_result(member.assignment)
            return future
        member.sync_future = future
        if member_id == self.leader_id:
            for m in self.members.values():
                m.assignment = assignments.get(m.member_id, b"")
            self.state = GroupState.STABLE
            for m in self.members.values():
                _resolve(m.sync_future, m.assignment)
                m.sync_future = None
        return future

    # -- heartbeat, leave, expiry ----------------------------------------------------------

    def heartbeat(self, member_id: str, group_instance_id: str | None, generation: int) -> None:
        member = self.validate_member(member_id, group_instance_id)
        self.check_generation(generation)
        member.last_heartbeat = time.monotonic()
        if self.state == GroupState.PREPARING_REBALANCE:
            raise KafkaError(ErrorCode.rebalance_in_progress)

    def leave(self, member_id: str, group_instance_id: str | None) -> str:
        """LeaveGroup of one member, by member id or (member id empty) by group.instance.id;
        returns the member id that left."""
        if not member_id:
            member_id = self._static_member_id(group_instance_id)
        elif member_id in self.pending:
            del self.pending[member_id]
            self.try_complete_join()
            return member_id
        else:
            self.validate_member(member_id, group_instance_id)
        self.remove(member_id)
        return member_id

    def _drop(self, member_id: str) -> Member | None:
        member = self.members.pop(member_id, None)
        instance_id = member.group_instance_id if member is not None else None
        if instance_id is not None and self.static_members.get(instance_id) == member_id:
            del self.static_members[instance_id]
        return member

    def remove(self, member_id: str) -> None:
        """A member left or its session expired: rebalance the rest."""
        member = self._drop(member_id)
        if member is None:
            return
        _fail(member.join_future, KafkaError(ErrorCode.unknown_member_id))
        _fail(member.sync_future, KafkaError(ErrorCode.unknown_member_id))
        if self.state in (GroupState.STABLE, GroupState.COMPLETING_REBALANCE):
            self.prepare_rebalance()
        if self.state == GroupState.PREPARING_REBALANCE:
            if self.is_empty:
                self._initial_deadline = 0.0
            self.try_complete_join()

    def expire(self, now: float) -> list[str]:
        expired = [m.member_id for m in self.members.values() if m.expired(now)]
        for member_id in expired:
            self.remove(member_id)
        for member_id, deadline in list(self.pending.items()):
            if now > deadline:
                del self.pending[member_id]
                self.try_complete_join()
        return expired

    def make_dead(self) -> None:
        self._cancel_timer()
        for m in self.members.values():
            _fail(m.join_future, KafkaError(ErrorCode.coordinator_not_available))
            _fail(m.sync_future, KafkaError(ErrorCode.coordinator_not_available))
        self.members.clear()
        self.static_members.clear()
        self.state = GroupState.DEAD
