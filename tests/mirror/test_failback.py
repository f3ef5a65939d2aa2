"""``seaway mirror prepare-failback`` against a real cluster (the old primary)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.cli.main import main
from seaway.kafka import clients
from seaway.kafka.admin import alter_offsets
from seaway.mirror.failover import ActionRefused, FailbackTopic, prepare_failback
from tests.broker.clients import quiet

pytestmark = pytest.mark.waits


def _setup(bootstrap: str) -> tuple[str, dict[str, str]]:
    """Topics and groups under a fresh prefix; the names by role."""
    px = f"fb{uuid.uuid4().hex[:6]}"
    names = {
        "orders": f"{px}-orders",
        "payments": f"{px}-payments",
        "keep": f"{px}-keep",
        "offsets": f"mm2-offsets.{px}.internal",
        "checkpoints": f"{px}.checkpoints.internal",
        "heartbeats": f"{px}.heartbeats",
        "kafka": f"__{px}-state",
    }
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    partitions = {"orders": 2}
    for role, name in names.items():
        admin.create_topics([NewTopic(name, partitions.get(role, 1), 1)])[name].result(30)
    producer = Producer(quiet({"bootstrap.servers": bootstrap}))
    for role, count in (("orders", 30), ("payments", 7), ("keep", 5)):
        for i in range(count):
            producer.produce(names[role], value=b"x", partition=i % partitions.get(role, 1))
    assert producer.flush(30) == 0
    groups = {"only": f"{px}-app", "mixed": f"{px}-mixed", "other": f"{px}-other"}
    offsets = {
        "only": {(names["orders"], 0): 5, (names["payments"], 0): 2},
        "mixed": {(names["orders"], 1): 3, (names["keep"], 0): 1},
        "other": {(names["keep"], 0): 4},
    }
    group_admin = clients.admin({"bootstrap.servers": bootstrap})
    for role, committed in offsets.items():
        alter_offsets(group_admin, groups[role], committed)
    return px, {**names, **{f"group-{r}": g for r, g in groups.items()}}


def _topics(bootstrap: str) -> set[str]:
    return set(AdminClient(quiet({"bootstrap.servers": bootstrap})).list_topics(timeout=10).topics)


def _groups(bootstrap: str) -> set[str]:
    admin = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    return {g.group_id for g in admin.list_consumer_groups().result(10).valid}


def test_dry_run_then_execute(cluster_a: Any, capsys: Any) -> None:
    a = cluster_a.bootstrap_servers
    px, n = _setup(a)
    plan = prepare_failback(a, old_alias="OLD", new_alias="NEW", include=f".*{px}.*")
    assert plan.topics == [
        FailbackTopic(n["keep"], 1, 5),
        FailbackTopic(n["orders"], 2, 30),
        FailbackTopic(n["payments"], 1, 7),
    ]
    assert plan.groups == sorted(n[f"group-{r}"] for r in ("only", "mixed", "other"))
    assert plan.kept_groups == {}
    assert not plan.executed and not plan.active_groups
    # A dry run deletes nothing.
    assert {n["orders"], n["payments"], n["keep"]} <= _topics(a)
    assert {n["group-only"], n["group-mixed"], n["group-other"]} <= _groups(a)

    # Select orders and payments only: keep stays, so does the group with offsets on it.
    code = main(["mirror", "prepare-failback", "--bootstrap-server", a, "--old-alias", "OLD",
                 "--new-alias", "NEW", "--topic", n["orders"], "--include", f"{px}-pay.*",
                 "--replication-policy", "identity"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "Would delete (dry run; use --execute)" in out
    assert f"CONSUMER GROUPS: {n['group-only']}" in out
    assert f"kept group {n['group-mixed']}: it also has offsets on {n['keep']}" in out
    assert n["orders"] in _topics(a)

    code = main(["mirror", "prepare-failback", "--bootstrap-server", a, "--old-alias", "OLD",
                 "--new-alias", "NEW", "--topic", n["orders"], "--include", f"{px}-pay.*",
                 "--replication-policy", "identity", "--execute"])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    topics, groups = _topics(a), _groups(a)
    assert n["orders"] not in topics and n["payments"] not in topics
    kept = ("keep", "offsets", "checkpoints", "heartbeats", "kafka")
    assert {n[role] for role in kept} <= topics
    assert n["group-only"] not in groups
    assert {n["group-mixed"], n["group-other"]} <= groups
    assert "NEW->OLD.enabled = true" in out
    assert f"NEW->OLD.topics = {n['orders']}, {n['payments']}" in out
    assert f"NEW->OLD.groups = {n['group-only']}" in out
    assert "OLD->NEW.enabled = false" in out
    assert "IdentityReplicationPolicy" in out


def test_internal_topics_are_never_selected(cluster_a: Any, capsys: Any) -> None:
    a = cluster_a.bootstrap_servers
    px, n = _setup(a)
    plan = prepare_failback(a, old_alias="OLD", new_alias="NEW", include=f".*{px}.*")
    internal = {n[r] for r in ("offsets", "checkpoints", "heartbeats", "kafka")}
    assert not internal & {t.name for t in plan.topics}
    code = main(["mirror", "prepare-failback", "--bootstrap-server", a, "--old-alias", "OLD",
                 "--new-alias", "NEW", "--topic", n["heartbeats"]])  # fmt: skip
    assert code == 2
    assert f"Topic {n['heartbeats']} is an internal topic" in capsys.readouterr().err
    code = main(["mirror", "prepare-failback", "--bootstrap-server", a, "--old-alias", "OLD",
                 "--new-alias", "NEW", "--topic", f"{px}-missing"])  # fmt: skip
    assert code == 2
    assert f"Topic {px}-missing does not exist on the old primary ({a})" in (
        capsys.readouterr().err
    )
    code = main(["mirror", "prepare-failback", "--bootstrap-server", a, "--old-alias", "OLD",
                 "--new-alias", "NEW"])  # fmt: skip
    assert code == 2
    assert "--topic" in capsys.readouterr().err


def test_refuses_while_a_consumer_is_subscribed(cluster_a: Any, capsys: Any) -> None:
    a = cluster_a.bootstrap_servers
    _, n = _setup(a)
    consumer = Consumer(
        quiet(
            {"bootstrap.servers": a, "group.id": n["group-only"], "auto.offset.reset": "earliest"}
        )
    )
    consumer.subscribe([n["orders"]])
    try:
        for _ in range(40):
            consumer.poll(0.25)
            if consumer.assignment():
                break
        assert consumer.assignment()
        plan = prepare_failback(a, old_alias="OLD", new_alias="NEW", topics=[n["orders"]])
        assert plan.active_groups == [n["group-only"]]
        with pytest.raises(ActionRefused, match="active members"):
            prepare_failback(
                a, old_alias="OLD", new_alias="NEW", topics=[n["payments"]], execute=True
            )
        code = main(["mirror", "prepare-failback", "--bootstrap-server", a, "--old-alias", "OLD",
                     "--new-alias", "NEW", "--topic", n["orders"], "--execute"])  # fmt: skip
        assert code == 1
        assert f"Group {n['group-only']} has active members" in capsys.readouterr().err
        assert {n["orders"], n["payments"]} <= _topics(a)  # nothing deleted
        assert n["group-only"] in _groups(a)
    finally:
        consumer.close()
