"""The consumer group protocol's coordinator (KIP-848): ConsumerGroupHeartbeat and the checks
the offset APIs make for consumer groups.

As Kafka's ``GroupMetadataManager.consumerGroupHeartbeat``, one heartbeat

1. finds or creates the group (epoch 0 joins) and the member (static members by
   ``group.instance.id``: a rejoin takes the place of an instance that left with epoch -2),
   fencing epochs the coordinator does not know (FENCED_MEMBER_EPOCH);
2. updates the member's subscription (topic names and/or a regex, resolved here against the
   topics the caller may DESCRIBE) and bumps the group epoch when a subscription, the
   resolved regexes or the subscribed topics' metadata (ids, partition counts) changed;
3. recomputes the target assignment with the group's assignor when the group epoch is ahead;
4. reconciles the member one step towards its target (:mod:`reconciliation`).

Epoch -1 leaves (the member is fenced, the group epoch bumped); -2 is a static member leaving
for a while: it keeps its partitions until it rejoins or its session expires. A member that
misses ``group.consumer.session.timeout.ms``, or does not revoke within its rebalance timeout,
is fenced. Membership is in memory only, like the classic groups'.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence, Sized
from dataclasses import dataclass
from typing import Protocol

from seaway.broker.coordinator.assignors import ASSIGNORS, Assignment
from seaway.broker.coordinator.consumer_group import (
    LEAVE_EPOCH,
    STATIC_LEAVE_EPOCH,
    ConsumerGroup,
    ConsumerMember,
)
from seaway.broker.coordinator.reconciliation import MemberState, reconcile
from seaway.java.strings import trim
from seaway.protocol.errors import ErrorCode, KafkaError

log = logging.getLogger(__name__)

__all__ = ["ConsumerGroupCoordinator", "HeartbeatRequest", "HeartbeatResponse", "TopicsView"]


class _Topic(Protocol):
    @property
    def topic_id(self) -> uuid.UUID: ...

    @property
    def partitions(self) -> Sized: ...


class TopicsView(Protocol):
    """The node's topics, as the coordinator reads them (the broker's ``TopicManager``)."""

    @property
    def topics(self) -> Mapping[str, _Topic]: ...


@dataclass(frozen=True, slots=True)
class HeartbeatRequest:
    """A ConsumerGroupHeartbeat, whatever its version (``None``: unchanged since the last)."""

    group_id: str
    member_id: str
    member_epoch: int
    client_id: str
    client_host: str
    version: int
    instance_id: str | None = None
    rack_id: str | None = None
    rebalance_timeout_ms: int = -1
    subscribed_topic_names: tuple[str, ...] | None = None
    subscribed_topic_regex: str | None = None
    server_assignor: str | None = None
    owned: Assignment | None = None


@dataclass(frozen=True, slots=True)
class HeartbeatResponse:
    member_id: str
    member_epoch: int
    heartbeat_interval_ms: int
    assignment: Assignment | None = None  # only when it changed or the request was full


def _invalid(message: str) -> KafkaError:
    return KafkaError(ErrorCode.invalid_request, message)


def _blank(value: str | None) -> bool:
    return value is not None and not trim(value)


class ConsumerGroupCoordinator:
    """Every consumer group (KIP-848) of this node."""

    def __init__(
        self,
        topics: TopicsView,
        *,
        session_timeout_ms: int,
        heartbeat_interval_ms: int,
        assignors: Sequence[str],
        max_size: int,
    ) -> None:
        if heartbeat_interval_ms >= session_timeout_ms:
            raise ValueError(
                f"group.consumer.heartbeat.interval.ms ({heartbeat_interval_ms}) must be less "
                f"than group.consumer.session.timeout.ms ({session_timeout_ms})"
            )
        if not assignors:
            raise ValueError("group.consumer.assignors must name at least one assignor")
        self.topics = topics
        self.session_timeout_ms = session_timeout_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.assignors = tuple(assignors)
        self.max_size = max_size
        self.groups: dict[str, ConsumerGroup] = {}

    def get(self, group_id: str) -> ConsumerGroup | None:
        return self.groups.get(group_id)

    def drop(self, group_id: str) -> None:
        group = self.groups.pop(group_id, None)
        if group is not None:
            group.dead = True

    # -- heartbeat -------------------------------------------------------------------------

    def heartbeat(
        self, req: HeartbeatRequest, may_describe: Callable[[str], bool]
    ) -> HeartbeatResponse:
        """One ConsumerGroupHeartbeat; ``may_describe`` filters the topics a regex resolves to."""
        self._validate(req)
        if req.member_epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
            return self._leave(req)
        joining = req.member_epoch == 0
        group = self.groups.get(req.group_id)
        if group is None:
            if not joining:
                raise KafkaError(
                    ErrorCode.group_id_not_found, f"Consumer group {req.group_id} not found."
                )
            group = ConsumerGroup(req.group_id)
        member_id = req.member_id or str(uuid.uuid4())  # v0 only: v1+ members bring their own
        if len(group.members) >= self.max_size and member_id not in group.members:
            raise KafkaError(
                ErrorCode.group_max_size_reached,
                f"The consumer group has reached its maximum capacity of {self.max_size} "
                "members (group.consumer.max.size).",
            )
        member = self._member(group, req, member_id)
        updated = self._updated(member, req)
        bump = updated.subscription() != member.subscription()
        bump |= self._resolve_regexes(group, updated, may_describe)
        bump |= self._refresh_metadata(group, extra=updated)
        if bump:
            group.group_epoch += 1
            log.info("Group %s: epoch %d", group.group_id, group.group_epoch)
        self.groups[group.group_id] = group
        group.put_member(updated)
        if group.group_epoch > group.assignment_epoch:
            assignor = group.preferred_assignor(self.assignors)
            group.compute_target(ASSIGNORS[assignor], group.subscription_metadata)
            log.info("Group %s: target assignment of epoch %d computed by the %s assignor",
                     group.group_id, group.assignment_epoch, assignor)  # fmt: skip
        final = self._reconcile(group, updated, req.owned)
        full = joining or (
            req.rebalance_timeout_ms != -1
            and (req.subscribed_topic_names is not None or req.subscribed_topic_regex is not None)
            and req.owned is not None
        )
        assigned = final.assignment.assigned
        return HeartbeatResponse(
            member_id,
            final.epoch,
            self.heartbeat_interval_ms,
            assigned if full or dict(assigned) != dict(member.assignment.assigned) else None,
        )

    def _validate(self, req: HeartbeatRequest) -> None:
        """Kafka's checks of a heartbeat, in its order, before any group changes."""
        if (req.version >= 1 or req.member_epoch != 0) and not trim(req.member_id):
            raise _invalid("MemberId can't be empty.")
        if not trim(req.group_id):
            raise _invalid("GroupId can't be empty.")
        if _blank(req.instance_id):
            raise _invalid("InstanceId can't be empty.")
        if _blank(req.rack_id):
            raise _invalid("RackId can't be empty.")
        if req.member_epoch == 0:
            if req.rebalance_timeout_ms == -1:
                raise _invalid("RebalanceTimeoutMs must be provided in first request.")
            if req.owned is None or req.owned:
                raise _invalid("TopicPartitions must be empty when (re-)joining.")
            if req.subscribed_topic_names is None and req.subscribed_topic_regex is None:
                raise _invalid(
                    "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when "
                    "(re-)joining."
                )
        elif req.member_epoch == STATIC_LEAVE_EPOCH and req.instance_id is None:
            raise _invalid("InstanceId can't be null.")
        elif req.member_epoch < STATIC_LEAVE_EPOCH:
            raise _invalid("MemberEpoch is invalid.")
        if req.server_assignor is not None and req.server_assignor not in self.assignors:
            raise KafkaError(
                ErrorCode.unsupported_assignor,
                f"ServerAssignor {req.server_assignor} is not supported. Supported assignors: "
                f"{', '.join(self.assignors)}.",
            )
        if req.subscribed_topic_regex:
            try:
                re.compile(req.subscribed_topic_regex)
            except re.error as e:
                raise KafkaError(
                    ErrorCode.invalid_regular_expression,
                    f"SubscribedTopicRegex `{req.subscribed_topic_regex}` is not a valid "
                    f"regular expression: {e}.",
                ) from None

    def _member(
        self, group: ConsumerGroup, req: HeartbeatRequest, member_id: str
    ) -> ConsumerMember:
        """The heartbeating member, created when joining; a static member rejoining takes the
        place of its instance's previous member, which must have left with epoch -2."""
        joining = req.member_epoch == 0
        if req.instance_id is None:
            member = group.members.get(member_id)
            if member is None:
                if not joining:
                    raise _unknown_member(member_id, group.group_id)
                log.info("Member %s joins consumer group %s", member_id, group.group_id)
                return ConsumerMember(member_id)
            _check_epoch(member, req.member_epoch, req.owned)
            return member
        previous = group.static_member(req.instance_id)
        if joining:
            if previous is None:
                log.info("Static member %s (instance %s) joins consumer group %s",
                         member_id, req.instance_id, group.group_id)  # fmt: skip
                return group.members.get(member_id) or ConsumerMember(member_id)
            if previous.epoch != STATIC_LEAVE_EPOCH:
                raise KafkaError(
                    ErrorCode.unreleased_instance_id,
                    f"Static member {member_id} with instance id {req.instance_id} cannot join "
                    f"the group because the instance id is owned by {previous.member_id} member.",
                )
            log.info("Static member %s rejoins consumer group %s as %s",
                     req.instance_id, group.group_id, member_id)  # fmt: skip
            return group.replace_static(previous, member_id)
        if previous is None:
            raise KafkaError(
                ErrorCode.unknown_member_id, f"Instance id {req.instance_id} is unknown."
            )
        if previous.member_id != member_id:
            raise KafkaError(
                ErrorCode.fenced_instance_id,
                f"Static member {member_id} with instance id {req.instance_id} was fenced by "
                f"member {previous.member_id}.",
            )
        _check_epoch(previous, req.member_epoch, req.owned)
        return previous

    @staticmethod
    def _updated(member: ConsumerMember, req: HeartbeatRequest) -> ConsumerMember:
        """``member`` with what the heartbeat changed (a new object: the group compares it
        with the stored one)."""
        regex = member.subscribed_topic_regex
        if req.subscribed_topic_regex is not None:
            regex = req.subscribed_topic_regex or None
        names = member.subscribed_topic_names
        if req.subscribed_topic_names is not None:
            names = tuple(req.subscribed_topic_names)
        return dataclasses.replace(
            member,
            instance_id=req.instance_id if req.instance_id is not None else member.instance_id,
            rack_id=req.rack_id if req.rack_id is not None else member.rack_id,
            rebalance_timeout_ms=(
                req.rebalance_timeout_ms
                if req.rebalance_timeout_ms != -1
                else member.rebalance_timeout_ms
            ),
            server_assignor=req.server_assignor or member.server_assignor,
            subscribed_topic_names=names,
            subscribed_topic_regex=regex,
            client_id=req.client_id,
            client_host=req.client_host,
            last_heartbeat=time.monotonic(),
        )

    def _resolve_regexes(
        self, group: ConsumerGroup, updated: ConsumerMember, may_describe: Callable[[str], bool]
    ) -> bool:
        """Resolve the group's regexes again when the topics or the regexes changed (full
        matches, topics the caller may DESCRIBE); whether a resolution changed."""
        regexes = group.subscribed_regexes(extra=updated)
        names = frozenset(self.topics.topics)
        if set(group.resolved_regexes) == regexes and (not regexes or group.regex_topics == names):
            return False
        resolved = {}
        for regex in regexes:
            pattern = re.compile(regex)
            resolved[regex] = frozenset(
                t for t in names if pattern.fullmatch(t) and may_describe(t)
            )
        changed = any(resolved[r] != group.resolved_regexes.get(r) for r in regexes)
        group.resolved_regexes = resolved
        group.regex_topics = names
        return changed

    def _refresh_metadata(self, group: ConsumerGroup, *, extra: ConsumerMember | None) -> bool:
        """The subscribed topics' ids and partition counts now; whether they changed."""
        topics = self.topics.topics
        metadata = {
            name: (topic.topic_id, len(topic.partitions))
            for name in group.subscribed_topics(extra=extra)
            if (topic := topics.get(name)) is not None
        }
        if metadata == group.subscription_metadata:
            return False
        group.subscription_metadata = metadata
        return True

    @staticmethod
    def _reconcile(
        group: ConsumerGroup, member: ConsumerMember, owned: Assignment | None
    ) -> ConsumerMember:
        """Move ``member`` one step towards its target; arm or clear its revocation deadline."""
        step = reconcile(
            member.assignment,
            group.assignment_epoch,
            group.target.get(member.member_id, {}),
            group.current_partition_epoch,
            owned,
        )
        if step == member.assignment:
            return member
        deadline = None
        if step.state is MemberState.UNREVOKED_PARTITIONS:
            deadline = time.monotonic() + max(member.rebalance_timeout_ms, 0) / 1000
        final = dataclasses.replace(member, assignment=step, revocation_deadline=deadline)
        group.put_member(final)
        return final

    # -- leaving and fencing ---------------------------------------------------------------

    def _leave(self, req: HeartbeatRequest) -> HeartbeatResponse:
        group = self.groups.get(req.group_id)
        if group is None:
            raise KafkaError(
                ErrorCode.group_id_not_found, f"Consumer group {req.group_id} not found."
            )
        if req.instance_id is None:
            member = group.members.get(req.member_id)
            if member is None:
                raise _unknown_member(req.member_id, group.group_id)
            self.fence(group, member, "left the group")
        else:
            member = group.static_member(req.instance_id)
            if member is None:
                raise KafkaError(
                    ErrorCode.unknown_member_id, f"Instance id {req.instance_id} is unknown."
                )
            if member.member_id != req.member_id:
                raise KafkaError(
                    ErrorCode.fenced_instance_id,
                    f"Static member {req.member_id} with instance id {req.instance_id} was "
                    f"fenced by member {member.member_id}.",
                )
            if req.member_epoch == STATIC_LEAVE_EPOCH:
                log.info("Static member %s (instance %s) of group %s left for now",
                         member.member_id, req.instance_id, group.group_id)  # fmt: skip
                away = dataclasses.replace(
                    member,
                    assignment=dataclasses.replace(
                        member.assignment, epoch=STATIC_LEAVE_EPOCH, pending_revocation={}
                    ),
                    revocation_deadline=None,
                )
                group.put_member(away)
            else:
                self.fence(group, member, "left the group")
        return HeartbeatResponse(req.member_id, req.member_epoch, 0)

    def fence(self, group: ConsumerGroup, member: ConsumerMember, reason: str) -> None:
        """Remove ``member``: its partitions are free, the group rebalances."""
        group.remove_member(member.member_id)
        group.group_epoch += 1
        self._refresh_metadata(group, extra=None)
        log.info("Member %s of consumer group %s %s; group epoch %d",
                 member.member_id, group.group_id, reason, group.group_epoch)  # fmt: skip

    def expire(self, now: float) -> None:
        """Fence members whose session expired or that did not revoke in time."""
        session = self.session_timeout_ms / 1000
        for group in list(self.groups.values()):
            for member in list(group.members.values()):
                if now - member.last_heartbeat > session:
                    self.fence(group, member, "timed out (group.consumer.session.timeout.ms)")
                elif (
                    member.revocation_deadline is not None
                    and now > member.revocation_deadline
                    and member.state is MemberState.UNREVOKED_PARTITIONS
                ):
                    self.fence(group, member, "did not revoke its partitions in its rebalance "
                                              "timeout")  # fmt: skip

    # -- offsets ---------------------------------------------------------------------------

    def validate_commit(
        self, group: ConsumerGroup, member_id: str, epoch: int, *, version: int | None
    ) -> None:
        """An OffsetCommit (``version``) or TxnOffsetCommit (``None``) to a consumer group, as
        Kafka's ``ConsumerGroup.validateOffsetCommit``: anyone may commit to an empty group
        with epoch -1; a member must send its current epoch (STALE_MEMBER_EPOCH, or
        ILLEGAL_GENERATION for a transactional commit) with OffsetCommit v9+."""
        if epoch < 0 and group.is_empty:
            return
        member = group.members.get(member_id)
        if member is None:
            raise _unknown_member(member_id, group.group_id)
        if version is not None and version < 9:
            raise KafkaError(
                ErrorCode.unsupported_version,
                "OffsetCommit version 9 or above must be used by members using the modern "
                "group protocol",
            )
        if epoch != member.epoch:
            code = (
                ErrorCode.stale_member_epoch
                if version is not None
                else ErrorCode.illegal_generation
            )
            raise KafkaError(
                code,
                f"The received member epoch {epoch} does not match the expected member epoch "
                f"{member.epoch}.",
            )

    def validate_fetch(self, group: ConsumerGroup, member_id: str | None, epoch: int) -> None:
        """OffsetFetch v9+'s member: unknown is UNKNOWN_MEMBER_ID, another epoch
        STALE_MEMBER_EPOCH; without a member (admin clients) anything goes."""
        if member_id is None and epoch < 0:
            return
        member = group.members.get(member_id or "")
        if member is None:
            raise _unknown_member(member_id, group.group_id)
        if epoch != member.epoch:
            raise KafkaError(
                ErrorCode.stale_member_epoch,
                f"The received member epoch {epoch} does not match the expected member epoch "
                f"{member.epoch}.",
            )

    def active(self) -> Iterable[str]:
        """Groups with members (their offsets do not expire)."""
        return (g.group_id for g in self.groups.values() if not g.is_empty)


def _unknown_member(member_id: str | None, group_id: str) -> KafkaError:
    return KafkaError(
        ErrorCode.unknown_member_id, f"Member {member_id} is not a member of group {group_id}."
    )


def _check_epoch(member: ConsumerMember, received: int, owned: Assignment | None) -> None:
    """FENCED_MEMBER_EPOCH unless ``received`` is the member's epoch, or its previous one with
    owned partitions it still has (the response that bumped it may have been lost)."""
    if received > member.epoch:
        raise KafkaError(
            ErrorCode.fenced_member_epoch,
            f"The consumer group member has a greater member epoch ({received}) than the one "
            f"known by the group coordinator ({member.epoch}). The member must abandon all its "
            "partitions and rejoin.",
        )
    if received < member.epoch:
        assigned = member.assignment.assigned
        subset = owned is not None and all(
            ps <= assigned.get(t, frozenset()) for t, ps in owned.items()
        )
        if received != member.assignment.previous_epoch or not subset:
            raise KafkaError(
                ErrorCode.fenced_member_epoch,
                f"The consumer group member has a smaller member epoch ({received}) than the "
                f"one known by the group coordinator ({member.epoch}). The member must abandon "
                "all its partitions and rejoin.",
            )
