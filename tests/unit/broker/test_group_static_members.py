"""The classic group's state machine around static members (KIP-345), in the cases real
clients cannot be made to reach on cue: a rebalance one static member sits out, a restart
while the leader's assignment is on its way, LeaveGroup by instance id."""

from __future__ import annotations

import asyncio

import pytest

from seaway.broker.coordinator.group import Group, GroupState, JoinResult, Member
from seaway.protocol.errors import ErrorCode, KafkaError

PROTOCOLS = [("range", b"meta")]


def _member(member_id: str, instance: str | None) -> Member:
    return Member(member_id, instance, "client", "host", 6000, 1000, "consumer", list(PROTOCOLS))


async def _stable(group: Group, *members: Member) -> dict[str, JoinResult]:
    """Join *members* into *group* and sync them: a Stable generation."""
    for m in members:
        group.add_member(m)
    futures = {m.member_id: group.join(m, protocols_changed=True) for m in members}
    joined = {member_id: await f for member_id, f in futures.items()}
    syncs = [
        group.sync(m.member_id, m.group_instance_id, group.generation, (None, None),
                   {x.member_id: x.member_id.encode() for x in members})
        for m in members
    ]  # fmt: skip
    await asyncio.gather(*syncs)
    assert group.state == GroupState.STABLE
    return joined


def test_a_rebalance_keeps_a_static_member_that_sat_it_out_and_drops_a_dynamic_one() -> None:
    async def scenario() -> None:
        group = Group("g", initial_delay_ms=0)
        static, dynamic, stays = _member("s-1", "s"), _member("d-1", None), _member("k-1", "k")
        await _stable(group, static, dynamic, stays)
        group.leader_id = "s-1"  # the static member that will not rejoin leads
        rejoined = group.join(stays, protocols_changed=True)  # starts a rebalance
        group.complete_join()  # the rebalance timeout: s-1 and d-1 never rejoined
        result = await rejoined
        assert set(group.members) == {"s-1", "k-1"} and group.static_members == {
            "s": "s-1", "k": "k-1"
        }  # fmt: skip
        assert result.leader == "k-1" and group.leader_id == "k-1"  # a member that rejoined
        assert {m for m, _, _ in result.members} == {"s-1", "k-1"}
        group.remove("s-1")  # its session timed out
        assert group.static_members == {"k": "k-1"}

    asyncio.run(scenario())


def test_a_static_member_restarting_while_the_group_completes_a_rebalance_rebalances() -> None:
    async def scenario() -> None:
        group = Group("g", initial_delay_ms=0)
        leader, follower = _member("a-1", "a"), _member("b-1", "b")
        await _stable(group, leader, follower)
        group.leader_id = "a-1"
        for m in (leader, follower):  # a rebalance reaches CompletingRebalance
            future = group.join(m, protocols_changed=True)
        await future
        assert group.state == GroupState.COMPLETING_REBALANCE
        parked = group.sync("b-1", "b", group.generation, (None, None), {})
        restarted = group.rejoin_static("b", "b-2", list(PROTOCOLS), 6000, 1000,
                                        skip_assignment=True)  # fmt: skip
        with pytest.raises(KafkaError) as fenced:
            await parked
        assert fenced.value.code == ErrorCode.fenced_instance_id
        assert group.state == GroupState.PREPARING_REBALANCE and not restarted.done()
        with pytest.raises(KafkaError) as old:
            group.heartbeat("b-1", "b", group.generation)
        assert old.value.code == ErrorCode.fenced_instance_id

    asyncio.run(scenario())


def test_leave_by_instance_id_and_the_checks_of_a_named_member() -> None:
    async def scenario() -> None:
        group = Group("g", initial_delay_ms=0)
        await _stable(group, _member("a-1", "a"), _member("d-1", None))
        with pytest.raises(KafkaError) as unknown:
            group.leave("", "nobody")
        assert unknown.value.code == ErrorCode.unknown_member_id
        with pytest.raises(KafkaError) as wrong:
            group.leave("d-1", "a")  # an instance id that is another member's
        assert wrong.value.code == ErrorCode.fenced_instance_id
        assert group.leave("", "a") == "a-1"
        assert set(group.members) == {"d-1"} and group.static_members == {}
        assert group.state == GroupState.PREPARING_REBALANCE

    asyncio.run(scenario())
