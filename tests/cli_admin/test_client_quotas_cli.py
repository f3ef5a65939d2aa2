"""``seaway configs`` on client quotas, typed as a user of kafka-configs.sh types them, against
real brokers: set, described back (the script's lines, in the order its Java maps give),
enforced on a librdkafka producer, deleted; defaults, users with clients, SCRAM credential
lines, the script's errors, and a secured cluster through --command-config."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AclOperation, ResourceType

from seaway.broker import BrokerThread
from tests.broker.acl_cluster import start_acl_broker
from tests.broker.clients import create_topic, produce, quiet
from tests.broker.test_quotas import BURST_WINDOWS, QUOTA_CONFIG, RATE, RECORD_BYTES, RECORDS
from tests.cli_admin.cli import command_config, run

pytestmark = pytest.mark.timeout(120)

SCRAM = "SCRAM-SHA-256=[name=alice,iterations=8192,password=alice-secret]"
NO_SCRAM = (
    "Error retrieving SCRAM credential configs for user-principal '{}': ExecutionException: "
    "org.apache.kafka.common.errors.ResourceNotFoundException: Attempt to describe a user "
    "credential that does not exist: {}\n"
)
Capsys = pytest.CaptureFixture[str]


@pytest.fixture(scope="module")
def bootstrap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with BrokerThread(tmp_path_factory.mktemp("quotas-cli"), config=QUOTA_CONFIG) as broker:
        yield broker.bootstrap_servers


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


def _produce_throttles(bootstrap: str, topic: str, client: str) -> tuple[float, list[Any]]:
    """Seconds to produce ~1 MB as *client*, and the throttle events librdkafka reported."""
    events: list[Any] = []
    producer = Producer(quiet({
        "bootstrap.servers": bootstrap, "client.id": client, "batch.size": 16384,
        "linger.ms": 5, "throttle_cb": events.append,
    }))  # fmt: skip
    started = time.monotonic()
    for i in range(RECORDS):
        producer.produce(topic, b"x" * RECORD_BYTES, key=b"%d" % i)
        producer.poll(0)
    assert producer.flush(60) == 0
    return time.monotonic() - started, events


def test_a_client_quota_is_set_described_enforced_and_deleted(
    bootstrap: str, capsys: Capsys
) -> None:
    b = ("configs", "--bootstrap-server", bootstrap)
    topic, client = unique("quota-topic"), unique("slow-producer")
    create_topic(bootstrap, topic, partitions=1)
    entity = ("--entity-type", "clients", "--entity-name", client)
    assert run(capsys, *b, *entity, "--alter", "--add-config", f"producer_byte_rate={RATE}") == (
        0, f"Completed updating config for client {client}.\n", "")  # fmt: skip
    described = f"Quota configs for client-id '{client}' are producer_byte_rate={RATE}.0\n"
    assert run(capsys, *b, *entity, "--describe") == (0, described, "")

    elapsed, events = _produce_throttles(bootstrap, topic, client)
    implied = (RECORDS * RECORD_BYTES - BURST_WINDOWS * RATE) / RATE
    assert elapsed >= 0.5 * implied, f"{elapsed:.2f}s for ~1 MB at {RATE} B/s"
    assert events and max(e.throttle_time for e in events) > 0

    assert run(capsys, *b, *entity, "--alter", "--delete-config", "producer_byte_rate") == (
        0, f"Completed updating config for client {client}.\n", "")  # fmt: skip
    assert run(capsys, *b, *entity, "--describe") == (0, "", "")
    unthrottled: list[Any] = []
    produce(bootstrap, topic, [(b"k", b"x" * RECORD_BYTES)] * 200,
            **{"client.id": client, "throttle_cb": unthrottled.append})  # fmt: skip
    assert not unthrottled


def test_defaults_users_with_clients_and_scram_lines(tmp_path: Path, capsys: Capsys) -> None:
    """A broker of its own: describing every user lists exactly what this test set."""
    config = {**QUOTA_CONFIG, "seaway.scram.credentials": SCRAM}
    with BrokerThread(tmp_path / "data", config=config) as broker:
        b = ("configs", "--bootstrap-server", broker.bootstrap_servers)
        users, clients = ("--entity-type", "users"), ("--entity-type", "clients")
        alice, app = (*users, "--entity-name", "alice"), (*clients, "--entity-name", "app")
        changes = [
            ((*users, "--entity-default"), "producer_byte_rate=4096",
             "Completed updating default config for users in the cluster.\n"),
            ((*clients, "--entity-default"), "consumer_byte_rate=2048",
             "Completed updating default config for clients in the cluster.\n"),
            ((*alice, *app), "request_percentage=50.5,controller_mutation_rate=3,"
             "producer_byte_rate=10,consumer_byte_rate=20",
             "Completed updating config for user alice.\n"),
            (alice, "producer_byte_rate=1024", "Completed updating config for user alice.\n"),
        ]  # fmt: skip
        for entity, added, done in changes:
            assert run(capsys, *b, *entity, "--alter", "--add-config", added) == (0, done, "")

        alice_line = "Quota configs for user-principal 'alice' are producer_byte_rate=1024.0\n"
        scram_line = "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=" \
            "iterations=8192\n"  # fmt: skip
        # keys and entities in the order of Java's HashMaps, as kafka-configs.sh prints them
        both = ("Quota configs for user-principal 'alice', client-id 'app' are producer_byte_rate"
                "=10.0, consumer_byte_rate=20.0, controller_mutation_rate=3.0, "
                "request_percentage=50.5\n")  # fmt: skip
        default_user = (
            "Quota configs for the default user-principal are producer_byte_rate=4096.0\n"
        )
        described = {
            alice: alice_line + scram_line,
            (*alice, *app): both,
            (*alice, *clients): both,  # no name: any client of alice's
            (*users, "--entity-default"): default_user,
            (*clients, "--entity-default"):
                "Quota configs for the default client-id are consumer_byte_rate=2048.0\n",
            users: default_user + alice_line + scram_line,  # every user alone, every SCRAM user
            (*users, "--entity-name", "bob"): NO_SCRAM.format("bob", "bob"),
        }  # fmt: skip
        for entity, out in described.items():
            assert run(capsys, *b, *entity, "--describe") == (0, out, ""), entity

        async def produce_quota() -> float | None:
            return broker.broker.quotas.produce.quota("alice", "app")

        assert broker.call(produce_quota()) == 10.0  # users/alice/clients/app applies


def test_the_scripts_errors(bootstrap: str, capsys: Capsys) -> None:
    b = ("configs", "--bootstrap-server", bootstrap)
    user, client = unique("carol"), unique("app")
    carol = ("--entity-type", "users", "--entity-name", user)
    app = ("--entity-type", "clients", "--entity-name", client)
    run(capsys, *b, *carol, "--alter", "--add-config", "producer_byte_rate=1000")
    failures = [
        ((*app, "--alter", "--add-config", "fetch_byte_rate=5,SCRAM-SHA-256=x,produce_byte_rate=5"),
         "Only quota configs can be added for 'clients' using --bootstrap-server. Unexpected "
         "config names: produce_byte_rate,SCRAM-SHA-256,fetch_byte_rate"),  # a Java HashSet's
        ((*carol, "--alter", "--add-config", "produce_byte_rate=5"),
         "Only quota and SCRAM credential configs can be added for 'users' using "
         "--bootstrap-server. Unexpected config names: produce_byte_rate"),
        ((*carol, *app, "--alter", "--delete-config", "SCRAM-SHA-256"),
         "Only quota configs can be deleted for 'clients' using --bootstrap-server. "
         "Unexpected config names: SCRAM-SHA-256"),
        ((*carol, "--alter", "--delete-config", "consumer_byte_rate"),
         "Invalid config(s): consumer_byte_rate"),
        ((*carol, "--alter", "--add-config", "consumer_byte_rate=fast"),
         "Cannot parse quota configuration value for consumer_byte_rate: fast"),
        ((*carol, "--alter", "--add-config", "consumer_byte_rate=10.5"),  # the broker's
         "consumer_byte_rate cannot be a fractional value."),
        ((*app, "--alter", "--add-config", "producer_byte_rate=0"),
         "Quota producer_byte_rate must be greater than 0"),
        ((*carol, *app, "--alter", "--add-config", "request_percentage=5", "--entity-type",
          "users"), "Duplicate entity type(s) specified: users"),
        (("--entity-type", "topics", *carol, "--describe"),
         "Only 'users' and 'clients' entity types may be specified together"),
        (("--entity-type", "clients", "--alter", "--add-config", "producer_byte_rate=5"),
         "An entity-name or default entity must be specified with --alter of users, clients, "
         "brokers or ips"),
        ((*carol, "--entity-type", "clients", "--alter", "--add-config", "producer_byte_rate=5"),
         "An entity name must be specified for every entity type"),
        ((*carol, "--entity-name", "x", "--describe"),
         "More entity names specified than entity types"),
    ]  # fmt: skip
    for argv, message in failures:
        assert run(capsys, *b, *argv) == (1, "", f"Error while executing command: {message}\n")
    # nothing changed
    assert run(capsys, *b, *carol, "--describe")[1].startswith(
        f"Quota configs for user-principal '{user}' are producer_byte_rate=1000.0\n"
    )
    assert run(capsys, *b, *app, "--describe") == (0, "", "")


def test_command_config_reaches_a_secured_cluster(tmp_path: Path, capsys: Capsys) -> None:
    """The batch client logs in with the --command-config settings; the broker's ACLs
    decide (ALTER_CONFIGS and DESCRIBE_CONFIGS on the cluster)."""
    for acls in start_acl_broker(tmp_path / "kafka"):
        b = ("configs", "--bootstrap-server", acls.bootstrap)
        bob = ("--entity-type", "users", "--entity-name", "bob")
        as_admin = ("--command-config", command_config(tmp_path, "admin"))
        as_bob = ("--command-config", command_config(tmp_path, "bob"))
        change = ("--alter", "--add-config", "consumer_byte_rate=4096")
        denied = "Error while executing command: Cluster authorization failed.\n"
        assert run(capsys, *b, *as_bob, *bob, *change) == (1, "", denied)
        assert run(capsys, *b, *as_admin, *bob, *change) == (
            0, "Completed updating config for user bob.\n", "")  # fmt: skip
        assert run(capsys, *b, *as_bob, *bob, "--describe") == (1, "", denied)
        acls.allow("bob", ResourceType.BROKER, "kafka-cluster", AclOperation.DESCRIBE_CONFIGS)
        code, out, _ = run(capsys, *b, *as_bob, *bob, "--describe")
        quota = "Quota configs for user-principal 'bob' are consumer_byte_rate=4096.0\n"
        # SCRAM credentials need DESCRIBE on the cluster: the script fails after the quotas
        assert (code, out) == (1, quota)
        assert run(capsys, *b, *as_admin, *bob, "--describe") == (
            0, quota + NO_SCRAM.format("bob", "bob"), "")  # fmt: skip
