"""``seaway topics``: Kafka's ``kafka-topics.sh`` on the admin client (any Kafka).

    seaway topics --bootstrap-server localhost:9092 --create --topic orders --partitions 3 \\
        --config retention.ms=86400000
    seaway topics --bootstrap-server localhost:9092 --list
    seaway topics --bootstrap-server localhost:9092 --describe --topic orders
    seaway topics --bootstrap-server localhost:9092 --alter --topic orders --partitions 6
    seaway topics --bootstrap-server localhost:9092 --delete --topic orders

Output is laid out as the script lays it out (``--describe``: one tab-separated line per
topic, then one per partition).
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from seaway.cli.admin_client import TIMEOUT_S, add_connection, admin, fail, key_values, wait_all

_ACTIONS = ("create", "list", "describe", "alter", "delete")


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="create, list, describe, alter and delete topics "
                       "(kafka-topics.sh)")  # fmt: skip
    add_connection(p)
    actions = p.add_mutually_exclusive_group(required=True)
    for action in _ACTIONS:
        actions.add_argument(f"--{action}", action="store_true", help=f"{action} topics")
    p.add_argument("--topic", help="a topic name, or a regular expression for --list, "
                   "--describe, --alter and --delete")  # fmt: skip
    p.add_argument("--partitions", type=int, help="partitions (--create, --alter: more only)")
    p.add_argument("--replication-factor", type=int, help="replicas of each partition")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="a topic config for --create (repeatable)")  # fmt: skip
    p.add_argument("--if-exists", action="store_true", help="no error if the topic is missing")
    p.add_argument("--if-not-exists", action="store_true", help="no error if it exists")
    p.add_argument("--exclude-internal", action="store_true", help="leave out __-topics")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    client = admin(args)
    if args.create:
        return _create(client, args)
    metadata = client.list_topics(timeout=TIMEOUT_S).topics
    names = _matching(metadata, args)
    if args.list:
        for topic in names:
            print(topic)
        return 0
    if not names and args.topic and not args.if_exists:
        return fail(f"Topic '{args.topic}' does not exist as expected")
    if args.describe:
        _describe(client, metadata, names)
        return 0
    if args.alter:
        return _alter(client, args, names)
    errors = wait_all(client.delete_topics(names, request_timeout=TIMEOUT_S),
                      lambda t: f"Topic {t}")  # fmt: skip
    return fail("; ".join(errors)) if errors else 0


def _matching(metadata: dict[str, Any], args: argparse.Namespace) -> list[str]:
    """The topics ``--topic`` names (a regular expression, as the script takes it)."""
    topics = sorted(metadata)
    if args.exclude_internal:
        topics = [t for t in topics if not t.startswith("__")]
    if not args.topic:
        return topics
    pattern = re.compile(args.topic)
    return [t for t in topics if pattern.fullmatch(t)]


def _create(client: Any, args: argparse.Namespace) -> int:
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import NewTopic

    if not args.topic:
        return fail("--topic is required to create a topic")
    topic = NewTopic(args.topic, args.partitions or -1, args.replication_factor or -1,
                     config=key_values(args.config, "--config"))  # fmt: skip
    try:
        client.create_topics([topic], request_timeout=TIMEOUT_S)[args.topic].result(TIMEOUT_S)
    except KafkaException as error:
        if args.if_not_exists and error.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS:
            return 0
        return fail(error.args[0].str())
    print(f"Created topic {args.topic}.")
    return 0


def _describe(client: Any, metadata: dict[str, Any], names: list[str]) -> None:
    from confluent_kafka.admin import ConfigResource, ConfigSource, ResourceType

    ids = _topic_ids(client, names)
    resources = [ConfigResource(ResourceType.TOPIC, name) for name in names]
    configs = client.describe_configs(resources, request_timeout=TIMEOUT_S) if names else {}
    for resource, future in configs.items():
        name = resource.name
        entries = future.result(TIMEOUT_S)
        dynamic = ",".join(
            f"{e.name}={e.value}" for e in sorted(entries.values(), key=lambda e: e.name)
            if e.source == ConfigSource.DYNAMIC_TOPIC_CONFIG.value and not e.is_sensitive
        )  # fmt: skip
        partitions = metadata[name].partitions
        replicas = len(next(iter(partitions.values())).replicas) if partitions else 0
        print(f"Topic: {name}\tTopicId: {ids.get(name, '')}\tPartitionCount: "
              f"{len(partitions)}\tReplicationFactor: {replicas}\tConfigs: {dynamic}")  # fmt: skip
        for number in sorted(partitions):
            p = partitions[number]
            print(f"\tTopic: {name}\tPartition: {number}\tLeader: {p.leader}\tReplicas: "
                  f"{_ids(p.replicas)}\tIsr: {_ids(p.isrs)}\tElr: \tLastKnownElr: ")  # fmt: skip


def _ids(ids: list[int]) -> str:
    return ",".join(str(i) for i in ids)


def _topic_ids(client: Any, names: list[str]) -> dict[str, str]:
    """Each topic's id as Kafka prints it (base64url, no padding), in one request; none when
    the cluster cannot say (an older broker without DescribeTopicPartitions)."""
    from confluent_kafka import TopicCollection

    if not names:
        return {}
    futures = client.describe_topics(TopicCollection(names), request_timeout=TIMEOUT_S)
    ids = {}
    for name, future in futures.items():
        try:
            ids[name] = str(future.result(TIMEOUT_S).topic_id)
        except Exception:
            ids[name] = ""
    return ids


def _alter(client: Any, args: argparse.Namespace, names: list[str]) -> int:
    from confluent_kafka.admin import NewPartitions

    if args.partitions is None:
        return fail("--partitions is required to alter a topic (configs: seaway configs)")
    wanted = [NewPartitions(topic, args.partitions) for topic in names]
    if not wanted:
        return 0
    errors = wait_all(client.create_partitions(wanted, request_timeout=TIMEOUT_S),
                      lambda t: f"Topic {t}")  # fmt: skip
    if errors:
        return fail("; ".join(errors))
    print("Adding partitions succeeded!")
    return 0
