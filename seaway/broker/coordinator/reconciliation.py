"""One member's reconciliation towards the group's target assignment (KIP-848).

Kafka's ``CurrentAssignmentBuilder``: a member moves towards its target in steps, each taken
on one of its heartbeats, so that no partition is ever owned by two members:

1. partitions it owns that the target takes away are *revoked* first: the member keeps its
   epoch and stays in UNREVOKED_PARTITIONS until a heartbeat reports them no longer owned;
2. then it moves to the target's epoch and gets the target's partitions that are free; a
   partition another member still holds (or is still revoking) is *unreleased*: the member
   waits in UNRELEASED_PARTITIONS and gets it on a later heartbeat, once released;
3. with everything in hand it is STABLE at the target epoch.
"""

from __future__ import annotations

import dataclasses
import enum
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from seaway.broker.coordinator.assignors import Assignment

__all__ = ["MemberAssignment", "MemberState", "owns_any", "reconcile"]


class MemberState(enum.Enum):
    STABLE = "stable"
    UNREVOKED_PARTITIONS = "unrevoked_partitions"
    UNRELEASED_PARTITIONS = "unreleased_partitions"


@dataclass(frozen=True, slots=True)
class MemberAssignment:
    """Where a member stands: its epochs, state, the partitions it may use and those it
    must give back."""

    epoch: int = 0
    previous_epoch: int = 0
    state: MemberState = MemberState.STABLE
    assigned: Assignment = field(default_factory=dict)
    pending_revocation: Assignment = field(default_factory=dict)

    def at_epoch(self, epoch: int, **changes: Any) -> MemberAssignment:
        """This state moved to ``epoch`` (its epoch becomes the previous one)."""
        return dataclasses.replace(self, epoch=epoch, previous_epoch=self.epoch, **changes)


def owns_any(owned: Assignment | None, partitions: Assignment) -> bool:
    """Whether the partitions a member reports owning include any of ``partitions``; a member
    that did not report (``None``) is taken to still own them all."""
    if owned is None:
        return True
    return any(owned.get(t, frozenset()) & ps for t, ps in partitions.items())


def reconcile(
    current: MemberAssignment,
    target_epoch: int,
    target: Assignment,
    partition_epoch: Callable[[uuid.UUID, int], int],
    owned: Assignment | None,
) -> MemberAssignment:
    """The member's next state; ``partition_epoch`` gives the epoch of a partition's current
    holder (-1 when free); ``owned`` is what its heartbeat reported owning (``None`` when it
    did not say)."""
    if current.state is MemberState.STABLE:
        if current.epoch == target_epoch:
            return current
        return _next(current, target_epoch, target, partition_epoch, owned)
    if current.state is MemberState.UNREVOKED_PARTITIONS and owns_any(
        owned, current.pending_revocation
    ):
        return current
    return _next(current, target_epoch, target, partition_epoch, owned)


def _next(
    current: MemberAssignment,
    target_epoch: int,
    target: Assignment,
    partition_epoch: Callable[[uuid.UUID, int], int],
    owned: Assignment | None,
) -> MemberAssignment:
    assigned: dict[uuid.UUID, frozenset[int]] = {}
    revoking: dict[uuid.UUID, frozenset[int]] = {}
    pending: dict[uuid.UUID, frozenset[int]] = {}
    unreleased = False
    for topic in set(target) | set(current.assigned):
        wanted = target.get(topic, frozenset())
        had = current.assigned.get(topic, frozenset())
        keep = had & wanted
        if keep:
            assigned[topic] = keep
        if had - keep:
            revoking[topic] = had - keep
        mine = current.pending_revocation.get(topic, frozenset())
        free = frozenset(p for p in wanted - keep if p in mine or partition_epoch(topic, p) == -1)
        unreleased = unreleased or len(free) < len(wanted - keep)
        if free:
            pending[topic] = free
    if revoking and owns_any(owned, revoking):
        return current.at_epoch(
            current.epoch,
            state=MemberState.UNREVOKED_PARTITIONS,
            assigned=assigned,
            pending_revocation=revoking,
        )
    for topic, partitions in pending.items():
        assigned[topic] = assigned.get(topic, frozenset()) | partitions
    return current.at_epoch(
        target_epoch,
        state=MemberState.UNRELEASED_PARTITIONS if unreleased else MemberState.STABLE,
        assigned=assigned,
        pending_revocation={},
    )
