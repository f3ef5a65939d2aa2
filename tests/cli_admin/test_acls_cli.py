"""``seaway acls`` as a user of kafka-acls.sh types it: against a broker enforcing ACLs over
SASL (the super user ``admin`` through ``--command-config``), the ACLs it adds taking effect
for real clients, and against a broker without an authorizer."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, Producer, TopicPartition
from confluent_kafka.admin import (
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    NewTopic,
    ResourcePatternType,
    ResourceType,
)

from seaway.broker import BrokerThread
from seaway.cli.main import main
from tests.broker.acl_cluster import TIMEOUT_S, AclBroker, start_acl_broker
from tests.cli_admin.cli import command_config, run

pytestmark = pytest.mark.timeout(120)

NO_AUTHORIZER = (
    "Error while executing ACL command: "
    "org.apache.kafka.common.errors.SecurityDisabledException: No Authorizer is configured.\n"
)


def _topic(name: str, pattern: str = "LITERAL") -> str:
    return f"ResourcePattern(resourceType=TOPIC, name={name}, patternType={pattern})"


def _acl(principal: str, operation: str, permission: str = "ALLOW", host: str = "*") -> str:
    return (f"(principal={principal}, host={host}, operation={operation}, "
            f"permissionType={permission})")  # fmt: skip


@pytest.fixture(scope="module")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AclBroker]:
    yield from start_acl_broker(tmp_path_factory.mktemp("acls-cli"))


@pytest.fixture
def acls(broker: AclBroker) -> Iterator[AclBroker]:
    """The ACL broker, without the ACLs an earlier test left."""
    broker.revoke_all()
    yield broker


@pytest.fixture(scope="module")
def as_admin(broker: AclBroker, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...]:
    config = command_config(tmp_path_factory.mktemp("admin-config"), "admin")
    return ("acls", "--bootstrap-server", broker.bootstrap, "--command-config", config)


def _bindings(acls: AclBroker) -> set[tuple[str, str, str, str, str, str, str]]:
    """Every ACL on the broker, read by the super user's own admin client."""
    anything: Any = None
    everything = AclBindingFilter(ResourceType.ANY, anything, ResourcePatternType.ANY, anything,
                                  anything, AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
    found = acls.admin().describe_acls(everything, request_timeout=TIMEOUT_S).result(TIMEOUT_S)
    return {
        (b.restype.name, b.name, b.resource_pattern_type.name, b.principal, b.host,
         b.operation.name, b.permission_type.name)
        for b in found
    }  # fmt: skip


def _create_topics(acls: AclBroker, *names: str) -> None:
    futures = acls.admin().create_topics([NewTopic(n, 1) for n in names], request_timeout=TIMEOUT_S)
    for future in futures.values():
        future.result(TIMEOUT_S)


def _produce(producer: Producer, topic: str) -> KafkaError | None:
    """One record; its delivery error, or None."""
    errors: list[KafkaError | None] = []
    producer.produce(topic, value=b"v", on_delivery=lambda e, _: errors.append(e))
    assert producer.flush(TIMEOUT_S) == 0, "undelivered record"
    return errors[0]


def test_add_list_and_add_again(
    acls: AclBroker, as_admin: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    add = (*as_admin, "--add", "--allow-principal", "User:alice", "--operation", "Read",
           "--operation", "Describe", "--topic", "orders")  # fmt: skip
    assert run(capsys, *add) == (0, (
        f"Adding ACLs for resource `{_topic('orders')}`: \n"
        f" \t{_acl('User:alice', 'READ')}\n\t{_acl('User:alice', 'DESCRIBE')}\n\n"
    ), "")  # fmt: skip
    assert _bindings(acls) == {
        ("TOPIC", "orders", "LITERAL", "User:alice", "*", op, "ALLOW")
        for op in ("READ", "DESCRIBE")
    }
    # adding them again changes nothing and says so, as the script does
    assert run(capsys, *add) == (0, (
        f"Acl (pattern={_topic('orders')}, entry={_acl('User:alice', 'READ')}) already exists.\n"
        f"Acl (pattern={_topic('orders')}, entry={_acl('User:alice', 'DESCRIBE')}) already "
        "exists.\n"
    ), "")  # fmt: skip
    listed = (
        f"Current ACLs for resource `{_topic('orders')}`:\n"
        f"\t{_acl('User:alice', 'READ')}\n\t{_acl('User:alice', 'DESCRIBE')}\n\n"
    )
    assert run(capsys, *as_admin, "--list", "--topic", "orders") == (0, listed, "")
    assert run(capsys, *as_admin, "--list", "--topic", "payments") == (0, "", "")


def test_deny_hosts_groups_cluster_and_prefixed_patterns(
    acls: AclBroker, as_admin: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, *as_admin, "--add", "--deny-principal", "User:mallory",
                       "--deny-host", "10.0.0.1", "--deny-host", "10.0.0.2", "--operation",
                       "All", "--group", "billing", "--cluster")  # fmt: skip
    assert code == 0
    cluster = "ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)"
    group = "ResourcePattern(resourceType=GROUP, name=billing, patternType=LITERAL)"
    entries = (f" \t{_acl('User:mallory', 'ALL', 'DENY', '10.0.0.1')}\n"
               f"\t{_acl('User:mallory', 'ALL', 'DENY', '10.0.0.2')}\n\n")  # fmt: skip
    assert out == (f"Adding ACLs for resource `{cluster}`: \n{entries}"
                   f"Adding ACLs for resource `{group}`: \n{entries}")  # fmt: skip
    code, out, _ = run(capsys, *as_admin, "--add", "--allow-principal", "User:bob",
                       "--operation", "Write", "--topic", "logs-", "--resource-pattern-type",
                       "prefixed")  # fmt: skip
    assert code == 0 and _topic("logs-", "PREFIXED") in out
    assert ("TOPIC", "logs-", "PREFIXED", "User:bob", "*", "WRITE", "ALLOW") in _bindings(acls)
    # a literal listing of "logs-" finds nothing; "match" finds what applies to logs-app
    assert run(capsys, *as_admin, "--list", "--topic", "logs-")[1] == ""
    matched = run(capsys, *as_admin, "--list", "--topic", "logs-app", "--resource-pattern-type",
                  "match")  # fmt: skip
    assert matched == (0, f"Current ACLs for resource `{_topic('logs-', 'PREFIXED')}`:\n"
                       f"\t{_acl('User:bob', 'WRITE')}\n\n", "")  # fmt: skip
    # everything, resources in order of type and name
    _, everything, _ = run(capsys, *as_admin, "--list")
    heads = [line for line in everything.splitlines() if line.startswith("Current")]
    assert heads == [f"Current ACLs for resource `{r}`:" for r in
                     (cluster, group, _topic("logs-", "PREFIXED"))]  # fmt: skip


def test_producer_convenience_lets_alice_produce(
    acls: AclBroker, as_admin: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    _create_topics(acls, "payments")
    refused = _produce(acls.producer("alice"), "payments")
    assert refused is not None and refused.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    code, out, err = run(capsys, *as_admin, "--add", "--allow-principal", "User:alice",
                         "--producer", "--topic", "payments", "--transactional-id", "tx-1",
                         "--idempotent")  # fmt: skip
    assert (code, err) == (0, "")
    lines = "\n\t".join(_acl("User:alice", op) for op in ("WRITE", "CREATE", "DESCRIBE"))
    assert f"Adding ACLs for resource `{_topic('payments')}`: \n \t{lines}\n\n" in out
    assert _bindings(acls) == {
        ("TOPIC", "payments", "LITERAL", "User:alice", "*", "WRITE", "ALLOW"),
        ("TOPIC", "payments", "LITERAL", "User:alice", "*", "CREATE", "ALLOW"),
        ("TOPIC", "payments", "LITERAL", "User:alice", "*", "DESCRIBE", "ALLOW"),
        ("TRANSACTIONAL_ID", "tx-1", "LITERAL", "User:alice", "*", "WRITE", "ALLOW"),
        ("TRANSACTIONAL_ID", "tx-1", "LITERAL", "User:alice", "*", "DESCRIBE", "ALLOW"),
        ("BROKER", "kafka-cluster", "LITERAL", "User:alice", "*", "IDEMPOTENT_WRITE", "ALLOW"),
    }
    assert _produce(acls.producer("alice"), "payments") is None
    alice = acls.producer("alice", **{"transactional.id": "tx-1"})
    alice.init_transactions(TIMEOUT_S)  # WRITE on the transactional id
    alice.begin_transaction()
    alice.produce("payments", value=b"in a transaction")
    alice.commit_transaction(TIMEOUT_S)


def test_consumer_convenience_lets_bob_consume_in_his_group(
    acls: AclBroker, as_admin: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    _create_topics(acls, "invoices")
    assert _produce(acls.producer("admin"), "invoices") is None
    code, out, _ = run(capsys, *as_admin, "--add", "--allow-principal", "User:bob",
                       "--consumer", "--topic", "invoices", "--group", "billing")  # fmt: skip
    assert code == 0
    group = "ResourcePattern(resourceType=GROUP, name=billing, patternType=LITERAL)"
    assert out == (
        f"Adding ACLs for resource `{_topic('invoices')}`: \n"
        f" \t{_acl('User:bob', 'READ')}\n\t{_acl('User:bob', 'DESCRIBE')}\n\n"
        f"Adding ACLs for resource `{group}`: \n \t{_acl('User:bob', 'READ')}\n\n"
    )
    bob = acls.consumer("bob", "billing")
    try:
        bob.assign([TopicPartition("invoices", 0, 0)])
        values: list[bytes] = []
        deadline = time.monotonic() + TIMEOUT_S
        while not values and time.monotonic() < deadline:
            message = bob.poll(0.5)
            if message is not None:
                assert message.error() is None, message.error()
                values.append(message.value() or b"")
        assert values == [b"v"]
        committed = bob.commit(asynchronous=False)  # READ on the group
        assert committed is not None and [tp.offset for tp in committed] == [1]
    finally:
        bob.close()


def test_list_by_principal(
    acls: AclBroker, as_admin: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, *as_admin, "--add", "--allow-principal", "User:alice", "--allow-principal",
        "User:bob", "--operation", "Read", "--topic", "orders", "--topic", "payments")  # fmt: skip
    assert len(_bindings(acls)) == 4
    code, out, _ = run(capsys, *as_admin, "--list", "--principal", "User:bob")
    assert (code, out) == (0, (
        "ACLs for principal `User:bob`\n"
        f"Current ACLs for resource `{_topic('orders')}`:\n\t{_acl('User:bob', 'READ')}\n\n"
        f"Current ACLs for resource `{_topic('payments')}`:\n\t{_acl('User:bob', 'READ')}\n\n"
    ))  # fmt: skip
    code, out, _ = run(capsys, *as_admin, "--list", "--topic", "orders", "--principal",
                       "User:alice", "--principal", "User:mallory")  # fmt: skip
    assert out == (
        "ACLs for principal `User:alice`\n"
        f"Current ACLs for resource `{_topic('orders')}`:\n\t{_acl('User:alice', 'READ')}\n\n"
        "ACLs for principal `User:mallory`\n"
    )


def test_remove_with_force_and_with_confirmation(
    acls: AclBroker,
    as_admin: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _create_topics(acls, "refunds")
    run(capsys, *as_admin, "--add", "--allow-principal", "User:alice", "--operation", "Write",
        "--operation", "Describe", "--topic", "refunds")  # fmt: skip
    assert _produce(acls.producer("alice"), "refunds") is None
    # one entry, answered "n": kept
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    remove_one = (*as_admin, "--remove", "--allow-principal", "User:alice", "--operation",
                  "Describe", "--topic", "refunds")  # fmt: skip
    assert run(capsys, *remove_one) == (0, (
        f"Are you sure you want to remove ACLs: \n \t{_acl('User:alice', 'DESCRIBE')}\n"
        f" from resource filter `{_topic('refunds')}`? (y/n)\n"
    ), "")  # fmt: skip
    assert len(_bindings(acls)) == 2
    # answered "y": gone, the other entry kept
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert run(capsys, *remove_one)[0] == 0
    assert {b[5] for b in _bindings(acls)} == {"WRITE"}
    # the whole resource, with --force: no question asked
    assert run(capsys, *as_admin, "--remove", "--topic", "refunds", "--force") == (0, "", "")
    assert _bindings(acls) == set()
    refused = _produce(acls.producer("alice"), "refunds")
    assert refused is not None and refused.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED


def test_remove_everything_on_a_resource_asks_first(
    acls: AclBroker,
    as_admin: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    run(capsys, *as_admin, "--add", "--allow-principal", "User:alice", "--topic", "orders")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # no answer: no
    question = (
        "Are you sure you want to delete all ACLs for resource filter "
        f"`{_topic('orders')}`? (y/n)\n"
    )
    assert run(capsys, *as_admin, "--remove", "--topic", "orders") == (0, question, "")
    assert len(_bindings(acls)) == 1  # an ALL entry (--operation's default)
    monkeypatch.setattr("sys.stdin", io.StringIO("Y\n"))
    assert run(capsys, *as_admin, "--remove", "--topic", "orders") == (0, question, "")
    assert _bindings(acls) == set()


def test_a_principal_without_permissions(
    acls: AclBroker,
    broker: AclBroker,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    alice = ("acls", "--bootstrap-server", broker.bootstrap, "--command-config",
             command_config(tmp_path, "alice"))  # fmt: skip
    code, out, err = run(capsys, *alice, "--add", "--allow-principal", "User:alice",
                         "--topic", "orders")  # fmt: skip
    assert code == 1 and _bindings(acls) == set()
    assert err == (
        "Error while executing ACL command: "
        "org.apache.kafka.common.errors.ClusterAuthorizationException: "
        "Cluster authorization failed.\n"
    )
    # DescribeAcls' refusal does not reach librdkafka: an empty listing, and a note
    run(capsys, "acls", "--bootstrap-server", broker.bootstrap, "--command-config",
        command_config(tmp_path, "admin"), "--add", "--allow-principal", "User:bob",
        "--topic", "orders")  # fmt: skip
    code, out, err = run(capsys, *alice, "--list")
    assert (code, out) == (0, "") and "needs DESCRIBE on the cluster" in err


@pytest.fixture(scope="module")
def unsecured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with BrokerThread(tmp_path_factory.mktemp("no-authorizer"), config={}) as plain:
        yield plain.bootstrap_servers


def test_without_an_authorizer_security_is_disabled(
    unsecured: str, capsys: pytest.CaptureFixture[str]
) -> None:
    b = ("acls", "--bootstrap-server", unsecured)
    assert run(capsys, *b, "--list") == (1, "", NO_AUTHORIZER)
    assert run(capsys, *b, "--list", "--topic", "orders") == (1, "", NO_AUTHORIZER)
    add = (*b, "--add", "--allow-principal", "User:alice", "--operation", "Read", "--topic", "t")
    assert run(capsys, *add) == (1, "", NO_AUTHORIZER)
    assert run(capsys, *b, "--remove", "--topic", "t", "--force") == (1, "", NO_AUTHORIZER)


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    b = ("acls", "--bootstrap-server", "127.0.0.1:1")

    def usage_error(*argv: str) -> str:
        with pytest.raises(SystemExit) as exited:
            main([*b, *argv])
        assert exited.value.code == 2
        return capsys.readouterr().err

    err = usage_error("--add", "--allow-principal", "User:a", "--operation", "Fly", "--topic", "t")
    assert "invalid operation 'Fly': valid operation names are All, Read, Write, Create, " \
           "Delete, Alter, Describe, ClusterAction, DescribeConfigs, AlterConfigs, " \
           "IdempotentWrite" in err  # fmt: skip
    err = usage_error(
        "--add", "--allow-principal", "User:a", "--operation", "Write", "--group", "g"
    )
    assert ("ResourceType GROUP only supports operations [ALL, READ, DELETE, DESCRIBE, "
            "DESCRIBE_CONFIGS, ALTER_CONFIGS]") in err  # fmt: skip
    assert "You must specify one of: --allow-principal, --deny-principal when trying to add " \
           "ACLs." in usage_error("--add", "--topic", "t")  # fmt: skip
    assert "A '--resource-pattern-type' value of 'MATCH' is not valid when adding acls." in \
           usage_error("--add", "--allow-principal", "User:a", "--topic", "t",
                       "--resource-pattern-type", "match")  # fmt: skip
    assert "You must provide at least one resource" in usage_error(
        "--add", "--allow-principal", "User:a"
    )
    assert "With --producer you must specify a --topic" in usage_error(
        "--add", "--producer", "--allow-principal", "User:a"
    )
    assert "With --consumer you must specify a --topic and a --group" in usage_error(
        "--add", "--consumer", "--topic", "t", "--allow-principal", "User:a"
    )
    assert 'Option "[producer]" can\'t be used with option "[operation]"' in usage_error(
        "--add", "--producer", "--topic", "t", "--operation", "Read"
    )
    assert 'Option "[list]" can\'t be used with option "[allow-principal]"' in usage_error(
        "--list", "--allow-principal", "User:a"
    )
    assert "The --principal option is only available if --list is set" in usage_error(
        "--remove", "--topic", "t", "--principal", "User:a"
    )
    assert "The --idempotent option is only available if --producer is set" in usage_error(
        "--add", "--idempotent", "--topic", "t", "--allow-principal", "User:a"
    )
    assert "one of the arguments --add --remove --list is required" in usage_error("--topic", "t")
    # a principal that is not type:name is an error of the command, as in the script
    code = main([*b, "--add", "--allow-principal", "alice", "--topic", "t"])
    assert code == 1 and capsys.readouterr().err == (
        "Error while executing ACL command: expected a string in format "
        "principalType:principalName but got alice\n"
    )
