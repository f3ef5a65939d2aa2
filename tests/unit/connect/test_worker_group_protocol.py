"""Connect's group protocol bytes and the leader's cooperative assignor (KIP-415)."""

from __future__ import annotations

import pytest

from seaway.connect.runtime.distributed.assignor import CooperativeAssignor
from seaway.connect.runtime.distributed.protocol import (
    Assignment,
    WorkerMetadata,
    protocols_offered,
)

# --- bytes ------------------------------------------------------------------------------------


def test_metadata_v1_is_kafkas_bytes() -> None:
    """The example of Kafka's IncrementalCooperativeConnectProtocol: V1, URL, offset 42, no
    allocation."""
    data = WorkerMetadata("http://w1:8083/", 42).encode(1)
    url = b"http://w1:8083/"
    assert data == b"\x00\x01\x00\x0f" + url + (42).to_bytes(8, "big") + b"\xff\xff\xff\xff"


def test_metadata_v0_has_no_allocation_and_reads_back() -> None:
    data = WorkerMetadata("http://w:1/", 7).encode(0)
    assert data == b"\x00\x00\x00\x0bhttp://w:1/" + (7).to_bytes(8, "big")
    assert WorkerMetadata.decode(data) == WorkerMetadata("http://w:1/", 7, None)


def test_assignment_round_trip_and_task_layout() -> None:
    assignment = Assignment(
        2, 0, "leader-1", "http://l:8083/", 99, {"c1": [-1, 0, 2]}, {"c2": [-1, 0]}, 5000
    )
    data = assignment.encode()
    # version, error, leader, leader-url, offset, then [("c1", [-1, 0, 2])]
    head = b"\x00\x02\x00\x00\x00\x08leader-1\x00\x0ehttp://l:8083/" + (99).to_bytes(8, "big")
    assert data.startswith(head)
    entry = b"\x00\x00\x00\x01" + b"\x00\x02c1" + b"\x00\x00\x00\x03"  # 1 entry, "c1", 3 ids
    entry += b"\xff\xff\xff\xff" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x02"  # -1, 0, 2
    assert data[len(head) : len(head) + len(entry)] == entry
    assert data.endswith((5000).to_bytes(4, "big"))
    assert Assignment.decode(data) == assignment


def test_v0_assignment_reads_with_the_v1_reader() -> None:
    v0 = Assignment(0, 0, "m", "u", 3, {"x": [-1]}).encode()
    assert Assignment.decode(v0) == Assignment(0, 0, "m", "u", 3, {"x": [-1]}, {}, 0)


def test_metadata_carries_the_whole_allocation() -> None:
    allocation = Assignment(1, 0, "m", "u", 3, {"a": [-1, 0], "b": [-1]})
    metadata = WorkerMetadata.decode(WorkerMetadata("http://w/", 3, allocation).encode(2))
    assert metadata.connectors == {"a", "b"}


def test_sessioned_offers_v2_then_v1() -> None:
    offered = protocols_offered("sessioned", WorkerMetadata("u", 1))
    assert [(name, data[:2]) for name, data in offered] == [
        ("sessioned", b"\x00\x02"),
        ("compatible", b"\x00\x01"),
    ]


def test_truncated_data_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="ends early"):
        Assignment.decode(b"\x00\x01\x00")


# --- the assignor -----------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _round(
    assignor: CooperativeAssignor,
    running: dict[str, set[str]],
    configured: set[str],
    generation: int,
) -> dict[str, set[str]]:
    """One rebalance: members apply their plans (stop revoked, start added)."""
    plans = assignor.assign(
        running, configured, generation=generation, last_completed_generation=generation - 1
    )
    for member, plan in plans.items():
        running[member] = (running[member] - plan.revoked) | plan.added
    return {m: set(p.revoked) for m, p in plans.items() if p.revoked}


def _settle(assignor: CooperativeAssignor, running: dict[str, set[str]], configured: set[str],
            generation: int) -> int:  # fmt: skip
    """Rebalance until nothing is revoked (the follow-up rounds); the next generation."""
    while _round(assignor, running, configured, generation):
        generation += 1
    return generation + 1


def test_new_connectors_spread_evenly_and_each_runs_once() -> None:
    assignor = CooperativeAssignor(300_000)
    running: dict[str, set[str]] = {"w1": set(), "w2": set(), "w3": set()}
    configured = {f"c{i}" for i in range(6)}
    _settle(assignor, running, configured, 1)
    assert sorted(len(c) for c in running.values()) == [2, 2, 2]
    assert set().union(*running.values()) == configured


def test_a_new_worker_gets_a_share_through_revocation_then_placement() -> None:
    assignor = CooperativeAssignor(300_000)
    running: dict[str, set[str]] = {"w1": set()}
    configured = {f"c{i}" for i in range(6)}
    generation = _settle(assignor, running, configured, 1)
    running["w2"] = set()
    revoked = _round(assignor, running, configured, generation)
    assert revoked == {"w1": revoked["w1"]} and len(revoked["w1"]) == 3
    assert running["w2"] == set()  # placed in the follow-up round, never on two at once
    _round(assignor, running, configured, generation + 1)
    assert sorted(len(c) for c in running.values()) == [3, 3]
    assert running["w1"].isdisjoint(running["w2"])


def _three_then_one_gone() -> tuple[
    Clock, CooperativeAssignor, dict[str, set[str]], set[str], int, set[str]
]:
    """Six connectors settled on three workers (delay 5 s), then w3 gone with its share."""
    clock = Clock()
    assignor = CooperativeAssignor(5_000, clock)
    running: dict[str, set[str]] = {"w1": set(), "w2": set(), "w3": set()}
    configured = {f"c{i}" for i in range(6)}
    generation = _settle(assignor, running, configured, 1)
    lost = running.pop("w3")
    return clock, assignor, running, configured, generation, lost


def test_lost_work_waits_for_the_delay_then_goes_to_the_returning_worker() -> None:
    clock, assignor, running, configured, generation, lost = _three_then_one_gone()
    plans = assignor.assign(running, configured, generation=generation,
                            last_completed_generation=generation - 1)  # fmt: skip
    assert all(not p.added and not p.revoked for p in plans.values())
    assert {p.delay_ms for p in plans.values()} == {5000}
    # It comes back (a new process, nothing running) before the delay is over.
    clock.now += 2
    running["w3-again"] = set()
    plans = assignor.assign(running, configured, generation=generation + 1,
                            last_completed_generation=generation)  # fmt: skip
    assert all(not p.added for p in plans.values())
    assert {p.delay_ms for p in plans.values()} == {3000}
    clock.now += 3.5
    plans = assignor.assign(running, configured, generation=generation + 2,
                            last_completed_generation=generation + 1)  # fmt: skip
    assert plans["w3-again"].added == lost
    assert all(not p.added for m, p in plans.items() if m != "w3-again")


def test_lost_work_goes_to_the_others_when_no_worker_returns() -> None:
    clock, assignor, running, configured, generation, lost = _three_then_one_gone()
    _round(assignor, running, configured, generation)
    clock.now += 6
    _round(assignor, running, configured, generation + 1)
    assert set().union(*running.values()) == configured
    assert lost <= running["w1"] | running["w2"]
    assert sorted(len(c) for c in running.values()) == [3, 3]


def test_zero_delay_reassigns_at_once() -> None:
    assignor = CooperativeAssignor(0)
    running: dict[str, set[str]] = {"w1": set(), "w2": set()}
    configured = {"a", "b", "c", "d"}
    generation = _settle(assignor, running, configured, 1)
    running.pop("w2")
    _round(assignor, running, configured, generation)
    assert running["w1"] == configured


def test_deleted_and_duplicated_connectors_are_revoked() -> None:
    assignor = CooperativeAssignor(300_000)
    running = {"w1": {"a", "gone"}, "w2": {"a", "b"}}
    plans = assignor.assign(running, {"a", "b"}, generation=5, last_completed_generation=4)
    assert plans["w1"].revoked == {"a", "gone"}
    assert plans["w2"].revoked == {"a"}
    for member, plan in plans.items():
        running[member] = (running[member] - plan.revoked) | plan.added
    _round(assignor, running, {"a", "b"}, 6)
    assert sorted(sorted(c) for c in running.values()) == [["a"], ["b"]]


def test_consecutive_revoking_rounds_back_off() -> None:
    assignor = CooperativeAssignor(300_000)
    running: dict[str, set[str]] = {"w1": {f"c{i}" for i in range(8)}, "w2": set()}
    configured = set(running["w1"])
    first = assignor.assign(running, configured, generation=2, last_completed_generation=1)
    assert len(first["w1"].revoked) == 4
    # The follow-up sees another imbalance at once (say the member did not stop them):
    second = assignor.assign(running, configured, generation=3, last_completed_generation=2)
    assert not second["w1"].revoked
    assert second["w1"].delay_ms == 40
