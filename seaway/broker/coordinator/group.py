"""The classic consumer-group protocol: one group's state machine.

States and transitions follow Kafka's ``ClassicGroup``: Empty -> PreparingRebalance ->
CompletingRebalance -> Stable, with Dead for deleted groups. Joins are parked on futures
until the rebalance completes; followers' syncs are parked until the leader's arrives.
Member metadata and assignments are opaque bytes: assignors run in the clients.
"""

from __future__ import annotations

import asyncio
import enum
import time
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
        self.pending: dict[str, float] = {}  # member ids handed out by MEMBER_ID_REQUIRED
        self.initial_delay_ms = initial_delay_ms
        self._timer: asyncio.TimerHandle | None = None
        self._initial_deadline = 0.0
        self.on_generation: list = []  # callbacks(group) after each completed join

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

    # -- join ------------------------------------------------------------------------------

    def add_member(self, member: Member) -> None:
        if self.is_empty:
            self.protocol_type = member.protocol_type
        self.members[member.member_id] = member
        self.pending.pop(member.member_id, None)

    def join(self, member: Member, protocols_changed: bool) -> asyncio.Future[JoinResult]:
        """Park ``member``'s join and drive the rebalance; the future yields its response."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[JoinResult] = loop.create_future()
        member.last_heartbeat = time.monotonic()
        if (
            self.state == GroupState.STABLE
            and not protocols_changed
            and member.member_id != self.leader_id
        ):
            future.set_result(self._result_for(member))
            return future
        if self.state == GroupState.COMPLETING_REBALANCE and not protocols_changed:
            future.set_result(self._result_for(member))
            return future
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
        if self.state != GroupState.PREPARING_REBALANCE:
            return
        self._cancel_timer()
        for member_id in [m for m, x in self.members.items() if x.join_future is None]:
            del self.members[member_id]
        self.generation += 1
        if self.is_empty:
            self.state = GroupState.EMPTY
            self.protocol_name = None
            self.leader_id = None
            self._notify()
            return
        self.protocol_name = self._select_protocol()
        if self.leader_id not in self.members:
            self.leader_id = next(iter(self.members))
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

    def validate_member(self, member_id: str, generation: int) -> Member:
        member = self.members.get(member_id)
        if member is None:
            raise KafkaError(ErrorCode.unknown_member_id, f"member {member_id} is not in the group")
        if generation != self.generation:
            raise KafkaError(
                ErrorCode.illegal_generation,
                f"generation {generation} is not the group's current {self.generation}",
            )
        return member

    def sync(
        self, member_id: str, generation: int, assignments: dict[str, bytes]
    ) -> asyncio.Future[bytes]:
        member = self.validate_member(member_id, generation)
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

    def heartbeat(self, member_id: str, generation: int) -> None:
        if self.state == GroupState.EMPTY:
            raise KafkaError(ErrorCode.unknown_member_id)
        member = self.members.get(member_id)
        if member is None:
            raise KafkaError(ErrorCode.unknown_member_id)
        member.last_heartbeat = time.monotonic()
        if self.state == GroupState.PREPARING_REBALANCE:
            raise KafkaError(ErrorCode.rebalance_in_progress)
        if generation != self.generation:
            raise KafkaError(ErrorCode.illegal_generation)

    def remove(self, member_id: str) -> None:
        """A member left or its session expired: rebalance the rest."""
        member = self.members.pop(member_id, None)
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
        self.state = GroupState.DEAD
