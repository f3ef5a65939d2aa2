"""``seaway topics`` and ``seaway configs`` as a user of kafka-topics.sh and
kafka-configs.sh types them, against a real broker (and through --command-config against
one that speaks only SASL and enforces ACLs)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AclOperation, AdminClient, ConfigResource, ResourceType

from seaway.broker import BrokerThread
from tests.broker.acl_cluster import AclBroker, start_acl_broker
from tests.cli_admin.cli import command_config, run

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with BrokerThread(tmp_path_factory.mktemp("cli-admin"), config={}) as broker:
        yield broker.bootstrap_servers


def test_topics_create_list_describe_alter_delete(
    bootstrap: str, capsys: pytest.CaptureFixture[str]
) -> None:
    b = ("--bootstrap-server", bootstrap)
    created = run(capsys, "topics", *b, "--create", "--topic", "orders", "--partitions", "2",
                  "--config", "retention.ms=86400000")  # fmt: skip
    assert created == (0, "Created topic orders.\n", "")
    code, _, err = run(capsys, "topics", *b, "--create", "--topic", "orders")
    assert code == 1 and "Topic 'orders' already exists" in err
    assert run(capsys, "topics", *b, "--create", "--topic", "orders", "--if-not-exists")[0] == 0
    run(capsys, "topics", *b, "--create", "--topic", "payments")
    listed = run(capsys, "topics", *b, "--list")[1].split()
    assert {"orders", "payments"} <= set(listed) and listed == sorted(listed)
    code, out, _ = run(capsys, "topics", *b, "--describe", "--topic", "orders")
    head, *rows = out.splitlines()
    fields = dict(f.split(": ", 1) for f in head.split("\t"))
    assert fields["Topic"] == "orders" and fields["PartitionCount"] == "2"
    assert fields["ReplicationFactor"] == "1" and fields["Configs"] == "retention.ms=86400000"
    assert len(fields["TopicId"]) == 22  # base64 of 16 bytes, unpadded, as Kafka prints it
    assert rows == [f"\tTopic: orders\tPartition: {p}\tLeader: 1\tReplicas: 1\tIsr: 1\tElr: "
                    "\tLastKnownElr: " for p in (0, 1)]  # fmt: skip
    assert run(capsys, "topics", *b, "--alter", "--topic", "orders", "--partitions", "4") == (
        0, "Adding partitions succeeded!\n", "")  # fmt: skip
    assert len(AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10)
               .topics["orders"].partitions) == 4  # fmt: skip
    assert run(capsys, "topics", *b, "--delete", "--topic", "pay.*")[0] == 0  # a pattern
    listed = run(capsys, "topics", *b, "--list")[1].split()
    assert "orders" in listed and "payments" not in listed
    code, _, err = run(capsys, "topics", *b, "--describe", "--topic", "payments")
    assert code == 1 and "Topic 'payments' does not exist as expected" in err


def test_configs_describe_and_alter(bootstrap: str, capsys: pytest.CaptureFixture[str]) -> None:
    b = ("--bootstrap-server", bootstrap)
    run(capsys, "topics", *b, "--create", "--topic", "ledger", "--config", "retention.ms=1000")
    entity = ("--entity-type", "topics", "--entity-name", "ledger")
    assert run(capsys, "configs", *b, *entity, "--describe")[1] == (
        "Dynamic configs for topic ledger are:\n"
        "  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000, "
        "DEFAULT_CONFIG:log.retention.ms=604800000}\n"
    )
    altered = run(capsys, "configs", *b, *entity, "--alter", "--add-config",
                  "cleanup.policy=compact,max.message.bytes=2000000", "--delete-config",
                  "retention.ms")  # fmt: skip
    assert altered == (0, "Completed updating config for topic ledger.\n", "")
    resource = ConfigResource(ResourceType.TOPIC, "ledger")
    admin = AdminClient({"bootstrap.servers": bootstrap})
    configs = admin.describe_configs([resource])[resource].result(10)
    assert configs["cleanup.policy"].value == "compact"
    assert configs["max.message.bytes"].value == "2000000"
    assert configs["retention.ms"].value == "604800000"  # back to the broker's default
    code, _, err = run(capsys, "configs", *b, *entity, "--alter", "--add-config", "retention.ms=x")
    assert code == 1 and "retention.ms" in err
    code, out, _ = run(capsys, "configs", *b, "--entity-type", "brokers", "--entity-name", "1",
                       "--describe", "--all")  # fmt: skip
    assert code == 0 and out.startswith("All configs for broker 1 are:\n")
    assert "  log.retention.ms=604800000 sensitive=false" in out


def test_command_config_reaches_a_secured_cluster(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Java client settings in a properties file, as the scripts' --command-config."""
    for acls in start_acl_broker(tmp_path / "kafka"):

        def login(user: str) -> str:
            return command_config(tmp_path, user)

        b = ("--bootstrap-server", acls.bootstrap)
        assert run(capsys, "topics", *b, "--command-config", login("admin"), "--create",
                   "--topic", "secured")[0] == 0  # fmt: skip
        code, _, err = run(capsys, "topics", *b, "--command-config", login("bob"), "--create",
                           "--topic", "bobs")  # fmt: skip
        assert code == 1 and "authoriz" in err.lower()
        _allow_describe(acls)
        code, out, _ = run(capsys, "topics", *b, "--command-config", login("bob"), "--list")
        assert out.split() == ["secured"]


def _allow_describe(acls: AclBroker) -> None:
    acls.allow("bob", ResourceType.TOPIC, "secured", AclOperation.DESCRIBE)
