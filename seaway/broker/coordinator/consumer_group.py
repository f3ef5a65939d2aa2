"""A group of the consumer group protocol (KIP-848): its members, epochs and assignments.

Kafka's ``ConsumerGroup``: the *group epoch* is bumped whenever the members or their
subscriptions change (or the subscribed topics' metadata does); the *target assignment*,
computed by a server-side assignor, is stamped with the group epoch it was computed at (the
*assignment epoch*); each member reconciles towards its part of the target at its own pace
(:mod:`reconciliation`), and every partition a member holds (assigned or still being
revoked) is recorded with the member's epoch, so that it is given to no one else until it is
released.

States as Kafka's: Empty (no members), Assigning (the target lags the group epoch),
Reconciling (some member is not yet at the target), Stable.
"""

from __future__ import annotations

import enum
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from seaway.broker.coordinator.assignors import Assign, Assignment, MemberSpec
from seaway.broker.coordinator.reconciliation import MemberAssignment, MemberState

__all__ = ["ConsumerGroup", "ConsumerGroupState", "ConsumerMember", "TopicMetadata"]

LEAVE_EPOCH = -1
STATIC_LEAVE_EPOCH = -2

TopicMetadata = Mapping[str, tuple[uuid.UUID, int]]
"""The subscribed topics that exist: name -> (topic id, partition count)."""


class ConsumerGroupState(enum.Enum):
    EMPTY = "Empty"
    ASSIGNING = "Assigning"
    RECONCILING = "Reconciling"
    STABLE = "Stable"
    DEAD = "Dead"


@dataclass(eq=False)
class ConsumerMember:
    """One member: what it subscribes to and where its reconciliation stands."""

    member_id: str
    instance_id: str | None = None
    rack_id: str | None = None
    client_id: str = ""
    client_host: str = ""
    rebalance_timeout_ms: int = -1
    server_assignor: str | None = None
    subscribed_topic_names: tuple[str, ...] = ()
    subscribed_topic_regex: str | None = None
    assignment: MemberAssignment = field(default_factory=MemberAssignment)
    last_heartbeat: float = field(default_factory=time.monotonic)
    revocation_deadline: float | None = None
    """When a member revoking partitions is fenced if it still has not (its rebalance timeout)."""

    @property
    def epoch(self) -> int:
        return self.assignment.epoch

    @property
    def state(self) -> MemberState:
        return self.assignment.state

    def subscription(self) -> tuple[frozenset[str], str | None]:
        return frozenset(self.subscribed_topic_names), self.subscribed_topic_regex or None

    def reconciled_to(self, epoch: int) -> bool:
        return self.epoch == epoch and self.state is MemberState.STABLE


def _pairs(assignment: Assignment) -> Iterator[tuple[uuid.UUID, int]]:
    for topic, partitions in assignment.items():
        for p in partitions:
            yield topic, p


class ConsumerGroup:
    """One consumer group's members, epochs, target assignment and partition owners."""

    protocol_type = "consumer"
    group_type = "consumer"

    def __init__(self, group_id: str) -> None:
        self.group_id = group_id
        self.group_epoch = 0
        self.assignment_epoch = 0
        self.members: dict[str, ConsumerMember] = {}
        self.static_members: dict[str, str] = {}  # instance id -> member id
        self.target: dict[str, Assignment] = {}
        self.partition_epochs: dict[tuple[uuid.UUID, int], int] = {}
        self.subscription_metadata: dict[str, tuple[uuid.UUID, int]] = {}
        self.resolved_regexes: dict[str, frozenset[str]] = {}
        self.regex_topics: frozenset[str] | None = None  # the topic names last resolved against
        self.dead = False

    # -- state -----------------------------------------------------------------------------

    @property
    def state(self) -> ConsumerGroupState:
        if self.dead:
            return ConsumerGroupState.DEAD
        if not self.members:
            return ConsumerGroupState.EMPTY
        if self.group_epoch > self.assignment_epoch:
            return ConsumerGroupState.ASSIGNING
        if all(m.reconciled_to(self.assignment_epoch) for m in self.members.values()):
            return ConsumerGroupState.STABLE
        return ConsumerGroupState.RECONCILING

    @property
    def is_empty(self) -> bool:
        return not self.members

    def current_partition_epoch(self, topic_id: uuid.UUID, partition: int) -> int:
        """The epoch of the member holding the partition, -1 when no member does."""
        return self.partition_epochs.get((topic_id, partition), -1)

    # -- members ---------------------------------------------------------------------------

    def static_member(self, instance_id: str) -> ConsumerMember | None:
        member_id = self.static_members.get(instance_id)
        return self.members.get(member_id) if member_id is not None else None

    def put_member(self, member: ConsumerMember) -> None:
        """Add or update ``member``, keeping the partition owners in step with its assignment."""
        old = self.members.get(member.member_id)
        if old is not None:
            self._release(old)
        self.members[member.member_id] = member
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        for tp in _pairs(member.assignment.assigned):
            self.partition_epochs[tp] = member.epoch
        for tp in _pairs(member.assignment.pending_revocation):
            self.partition_epochs[tp] = member.epoch

    def remove_member(self, member_id: str) -> ConsumerMember | None:
        """Drop a member, its partitions and its part of the target."""
        member = self.members.pop(member_id, None)
        if member is None:
            return None
        self._release(member)
        if member.instance_id is not None and self.static_members.get(member.instance_id) == (
            member_id
        ):
            del self.static_members[member.instance_id]
        self.target.pop(member_id, None)
        return member

    def replace_static(self, old: ConsumerMember, new_member_id: str) -> ConsumerMember:
        """A static member rejoining under a new member id: it keeps the old one's partitions
        and target, at epoch 0 (Kafka's ``replaceMember``)."""
        target = self.target.get(old.member_id, {})
        self.remove_member(old.member_id)
        member = ConsumerMember(
            new_member_id,
            instance_id=old.instance_id,
            rack_id=old.rack_id,
            client_id=old.client_id,
            client_host=old.client_host,
            rebalance_timeout_ms=old.rebalance_timeout_ms,
            server_assignor=old.server_assignor,
            subscribed_topic_names=old.subscribed_topic_names,
            subscribed_topic_regex=old.subscribed_topic_regex,
            assignment=MemberAssignment(assigned=old.assignment.assigned),
        )
        self.put_member(member)
        self.target[new_member_id] = target
        return member

    def _release(self, member: ConsumerMember) -> None:
        for tp in [
            *_pairs(member.assignment.assigned),
            *_pairs(member.assignment.pending_revocation),
        ]:
            if self.partition_epochs.get(tp) == member.epoch:
                del self.partition_epochs[tp]

    # -- subscriptions ---------------------------------------------------------------------

    def subscribed_regexes(self, *, extra: ConsumerMember | None = None) -> set[str]:
        members = self._with(extra)
        return {m.subscribed_topic_regex for m in members if m.subscribed_topic_regex}

    def member_topics(self, member: ConsumerMember) -> set[str]:
        """The topic names ``member`` subscribes to, by name or through its resolved regex."""
        topics = set(member.subscribed_topic_names)
        if member.subscribed_topic_regex:
            topics |= self.resolved_regexes.get(member.subscribed_topic_regex, frozenset())
        return topics

    def subscribed_topics(self, *, extra: ConsumerMember | None = None) -> set[str]:
        """Every topic name some member (``extra`` in place of its stored self) subscribes to."""
        return {t for m in self._with(extra) for t in self.member_topics(m)}

    def _with(self, extra: ConsumerMember | None) -> list[ConsumerMember]:
        members = [
            m for m in self.members.values() if extra is None or m.member_id != extra.member_id
        ]
        return [*members, extra] if extra is not None else members

    def preferred_assignor(
        self, assignors: Sequence[str], *, extra: ConsumerMember | None = None
    ) -> str:
        """The assignor most members ask for (ties go to the one listed first in
        ``assignors``), else the first of ``assignors``, the default."""
        votes: dict[str, int] = {}
        for m in self._with(extra):
            if m.server_assignor:
                votes[m.server_assignor] = votes.get(m.server_assignor, 0) + 1
        if not votes:
            return assignors[0]
        rank = {name: i for i, name in enumerate(assignors)}
        return min(votes, key=lambda name: (-votes[name], rank.get(name, len(rank)), name))

    # -- target assignment -----------------------------------------------------------------

    def compute_target(self, assign: Assign, metadata: TopicMetadata) -> None:
        """The assignor's target for every member, stamped with the group epoch."""
        specs = [
            MemberSpec(
                m.member_id,
                m.instance_id,
                frozenset(metadata[t][0] for t in self.member_topics(m) if t in metadata),
                self.target.get(m.member_id, {}),
            )
            for m in self.members.values()
        ]
        partitions = {topic_id: count for topic_id, count in metadata.values()}
        self.target = assign(specs, partitions)
        self.assignment_epoch = self.group_epoch
