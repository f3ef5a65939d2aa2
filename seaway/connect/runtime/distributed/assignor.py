"""The leader's incremental cooperative assignor (KIP-415, Kafka's
``IncrementalCooperativeAssignor``), over whole connectors.

A Seaway connector's tasks run as one Spark query (Spark spreads them over its executors),
so the unit of work a worker owns is a connector with all its tasks: each connector runs on
exactly one worker. Each round the leader:

* revokes what must stop: connectors deleted from the config, and every copy of a connector
  two workers report (it is placed again in the follow-up round);
* keeps connectors of a departed worker ("lost") unassigned for
  ``scheduled.rebalance.max.delay.ms``, so a worker that comes back in time keeps its work;
  when the delay expires they go to the workers that were empty meanwhile, or to the least
  loaded; with the delay 0, or when every previous member is still there (a lost SyncGroup),
  at once;
* balances: a worker with more than its share (``total div members``, ``mod`` of them one
  more) gives up the surplus, which the follow-up round places; consecutive revoking rounds
  back off (40 ms, 1.6 s, 64 s, ... up to the max delay) against rebalance storms;
* places new connectors on the least loaded workers (ties by member id).

Members only hear what is added and what is revoked; they report what they run when they
join again, and that report is the truth the next round starts from.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

__all__ = ["CooperativeAssignor", "MemberPlan"]

_BACKOFF_BASE_MS = 40


@dataclass
class MemberPlan:
    """One member's outcome of a round."""

    added: set[str] = field(default_factory=set)
    revoked: set[str] = field(default_factory=set)
    delay_ms: int = 0


class CooperativeAssignor:
    """Assignments across rounds: the leader keeps one and feeds it every rebalance."""

    def __init__(self, max_delay_ms: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.max_delay_ms = max_delay_ms
        self.clock = clock
        self.previous: dict[str, set[str]] = {}
        self.previous_generation = -1
        self.lost_unassigned: set[str] = set()
        self._lost_deadline: float | None = None
        self._candidates: set[str] = set()
        self._revoked_in_previous = False
        self._revoking_rounds = 0
        self.owners: dict[str, str] = {}

    def assign(
        self,
        members: Mapping[str, set[str]],
        configured: set[str],
        *,
        generation: int,
        last_completed_generation: int,
    ) -> dict[str, MemberPlan]:
        """Plans for *members* (member id -> connectors it runs) given the *configured*
        connectors; *last_completed_generation* is the leader's own last completed round."""
        if self.previous_generation != last_completed_generation:
            self.previous, self.lost_unassigned = {}, set()  # a new leader: no stale view
        plans = {m: MemberPlan() for m in members}
        held: dict[str, list[str]] = {}
        for member, connectors in members.items():
            for connector in connectors:
                held.setdefault(connector, []).append(member)
        active = set(held)
        before = set().union(*self.previous.values()) | self.lost_unassigned
        duplicated = {c for c, holders in held.items() if len(holders) > 1}
        deleted = before - configured
        lost = before - active - deleted
        created = configured - before - active

        following: dict[str, set[str]] = {}
        for member, connectors in members.items():
            revoke = (connectors - configured) | (connectors & duplicated)
            plans[member].revoked |= revoke
            following[member] = connectors - revoke

        delay_ms = 0
        ready_lost: set[str] = set()
        targets: list[str] = []
        if lost:
            ready_lost, targets, delay_ms = self._lost(lost, members, following)
        else:
            self._lost_deadline, self._candidates = None, set()
        self.lost_unassigned = lost - ready_lost

        if delay_ms == 0:
            delay_ms = self._balance(following, plans, configured - self.lost_unassigned)

        placements = _deal(sorted(ready_lost), following, targets) if targets else {}
        remaining = (created | ready_lost) - set(placements)
        placements.update(_deal(sorted(remaining), following, sorted(members)))
        for connector, member in placements.items():
            following[member].add(connector)
        for member, plan in plans.items():
            plan.added = following[member] - members[member]
            plan.delay_ms = delay_ms
        self.previous = {m: set(c) for m, c in following.items()}
        self.previous_generation = generation
        self.owners = {c: m for m, cs in following.items() for c in cs}
        return plans

    def _lost(
        self, lost: set[str], members: Mapping[str, set[str]], following: dict[str, set[str]]
    ) -> tuple[set[str], list[str], int]:
        """(lost connectors to place now, members to place them on, delay in ms)."""
        now = self.clock()
        empty = {m for m, c in following.items() if not c}
        if self._lost_deadline is None:
            if self.max_delay_ms == 0 or set(self.previous) <= set(members):
                return lost, [], 0  # no worker left: a SyncGroup was missed; place at once
            self._lost_deadline = now + self.max_delay_ms / 1000
            self._candidates = set(empty)
            return set(), [], self.max_delay_ms
        if now < self._lost_deadline:
            self._candidates |= empty
            return set(), [], max(int((self._lost_deadline - now) * 1000), 1)
        candidates = sorted(self._candidates & set(members))
        self._lost_deadline, self._candidates = None, set()
        self._revoked_in_previous = False
        return lost, candidates, 0

    def _balance(
        self, following: dict[str, set[str]], plans: dict[str, MemberPlan], placed: set[str]
    ) -> int:
        """Revoke the surplus of overloaded members; returns a back-off delay in ms when a
        revoking round follows another one too soon."""
        if not following:
            return 0
        share, extra = divmod(len(placed), len(following))
        surplus: dict[str, list[str]] = {}
        allowed_extra = extra
        for member in sorted(following, key=lambda m: (-len(following[m]), m)):
            count = len(following[member])
            if count <= share:
                continue
            keep = share
            if allowed_extra > 0:
                keep, allowed_extra = share + 1, allowed_extra - 1
            if count > keep:
                surplus[member] = sorted(following[member])[: count - keep]
        if not surplus:
            self._revoked_in_previous = False
            self._revoking_rounds = 0
            return 0
        if self._revoked_in_previous and self.max_delay_ms > 0:
            self._revoking_rounds += 1
            self._revoked_in_previous = False
            backoff: int = _BACKOFF_BASE_MS**self._revoking_rounds  # rounds >= 1: an int
            return min(backoff, self.max_delay_ms)
        for member, connectors in surplus.items():
            plans[member].revoked.update(connectors)
            following[member].difference_update(connectors)
        self._revoked_in_previous = True
        return 0


def _deal(
    connectors: list[str], following: dict[str, set[str]], members: list[str]
) -> dict[str, str]:
    """Place *connectors* one by one on the least loaded of *members* (ties by id)."""
    load = {m: len(following[m]) for m in members}
    placed: dict[str, str] = {}
    for connector in connectors:
        if not load:
            break
        member = min(load, key=lambda m: (load[m], m))
        placed[connector] = member
        load[member] += 1
    return placed
