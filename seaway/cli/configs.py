"""``seaway configs``: Kafka's ``kafka-configs.sh`` for topics, brokers and groups, on the
admin client (IncrementalAlterConfigs; any Kafka).

    seaway configs --bootstrap-server localhost:9092 --entity-type topics --entity-name orders \\
        --describe
    seaway configs --bootstrap-server localhost:9092 --entity-type topics --entity-name orders \\
        --alter --add-config retention.ms=86400000,cleanup.policy=compact
    seaway configs --bootstrap-server localhost:9092 --entity-type topics --entity-name orders \\
        --alter --delete-config retention.ms

``--describe`` prints the dynamic configs as the script does (``--all`` every config, with
its synonyms); ``--alter`` ends with "Completed updating config for topic orders.".
"""

from __future__ import annotations

import argparse
from typing import Any, Final

from seaway.cli.admin_client import TIMEOUT_S, add_connection, admin, fail, key_values

# --entity-type -> (confluent ResourceType name, the script's singular word)
_ENTITIES: Final = {"topics": ("TOPIC", "topic"), "brokers": ("BROKER", "broker"),
                    "groups": ("GROUP", "group")}  # fmt: skip
# ConfigSource values (confluent_kafka.admin.ConfigSource) the script lists as dynamic
_DYNAMIC: Final = frozenset({"DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG",
                             "DYNAMIC_DEFAULT_BROKER_CONFIG", "DYNAMIC_BROKER_LOGGER_CONFIG",
                             "DYNAMIC_GROUP_CONFIG"})  # fmt: skip


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="describe and alter topic, broker and group configs "
                       "(kafka-configs.sh)")  # fmt: skip
    add_connection(p)
    p.add_argument("--entity-type", required=True, choices=sorted(_ENTITIES))
    entity = p.add_mutually_exclusive_group()
    entity.add_argument("--entity-name", help="the topic, broker id or group")
    entity.add_argument("--entity-default", action="store_true", help="the cluster default")
    actions = p.add_mutually_exclusive_group(required=True)
    actions.add_argument("--describe", action="store_true", help="print the configs")
    actions.add_argument("--alter", action="store_true", help="add or delete configs")
    p.add_argument("--all", action="store_true", help="with --describe: every config")
    p.add_argument("--add-config", action="append", default=[], metavar="K=V[,K=V]",
                   help="configs to set (--alter)")  # fmt: skip
    p.add_argument("--delete-config", action="append", default=[], metavar="K[,K]",
                   help="configs to remove, back to their defaults (--alter)")  # fmt: skip
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    kind, word = _ENTITIES[args.entity_type]
    name = "" if args.entity_default else args.entity_name
    client = admin(args)
    if name is None:
        if args.alter:
            return fail("an entity name must be specified with --alter of " + args.entity_type)
        names = _all_names(client, args.entity_type)
    else:
        names = [name]
    if args.alter:
        return _alter(client, kind, word, name, args)
    for each in names:
        code = _describe(client, kind, word, each, args.all)
        if code:
            return code
    return 0


def _all_names(client: Any, entity_type: str) -> list[str]:
    metadata = client.list_topics(timeout=TIMEOUT_S)
    if entity_type == "topics":
        return sorted(metadata.topics)
    if entity_type == "brokers":
        return [str(b) for b in sorted(metadata.brokers)]
    result = client.list_consumer_groups(request_timeout=TIMEOUT_S).result(TIMEOUT_S)
    return sorted(g.group_id for g in result.valid)


def _describe(client: Any, kind: str, word: str, name: str, every: bool) -> int:
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import ConfigResource, ResourceType

    resource = ConfigResource(getattr(ResourceType, kind), name)
    try:
        entries = client.describe_configs([resource], request_timeout=TIMEOUT_S)[resource]
        configs = entries.result(TIMEOUT_S)
    except KafkaException as error:
        return fail(error.args[0].str())
    shown = sorted(
        (e for e in configs.values() if every or _source(e.source) in _DYNAMIC),
        key=lambda e: e.name,
    )
    label = "All" if every else "Dynamic"
    print(f"{label} configs for {word} {name} are:")
    for entry in shown:
        value = "null" if entry.is_sensitive else entry.value
        synonyms = ", ".join(
            f"{_source(s.source)}:{s.name}={'null' if s.is_sensitive else s.value}"
            for s in entry.synonyms.values()
        )
        print(f"  {entry.name}={value} sensitive={str(entry.is_sensitive).lower()} "
              f"synonyms={{{synonyms}}}")  # fmt: skip
    return 0


def _source(value: int) -> str:
    """A ConfigSource code by its name, as the script prints it (synonyms)."""
    from confluent_kafka.admin import ConfigSource

    try:
        return ConfigSource(value).name
    except ValueError:
        return str(value)


def _alter(client: Any, kind: str, word: str, name: str, args: argparse.Namespace) -> int:
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

    added = key_values(args.add_config, "--add-config")
    deleted = [k.strip() for item in args.delete_config for k in item.split(",") if k.strip()]
    if not added and not deleted:
        return fail("--alter needs --add-config or --delete-config")
    entries = [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET)
               for k, v in added.items()]  # fmt: skip
    entries += [ConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE)
                for k in deleted]  # fmt: skip
    resource = ConfigResource(getattr(ResourceType, kind), name, incremental_configs=entries)
    try:
        futures = client.incremental_alter_configs([resource], request_timeout=TIMEOUT_S)
        futures[resource].result(TIMEOUT_S)
    except KafkaException as error:
        return fail(error.args[0].str())
    target = "default " + word if name == "" else f"{word} {name}"
    print(f"Completed updating config for {target}.")
    return 0
