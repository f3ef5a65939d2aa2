"""``seaway configs``: Kafka's ``kafka-configs.sh`` for topics, brokers and groups (on the
admin client: IncrementalAlterConfigs) and for the client quotas of users and client ids
(DescribeClientQuotas/AlterClientQuotas with Seaway's own client); any Kafka.

    seaway configs --bootstrap-server localhost:9092 --entity-type topics --entity-name orders \\
        --describe
    seaway configs --bootstrap-server localhost:9092 --entity-type topics --entity-name orders \\
        --alter --add-config retention.ms=86400000,cleanup.policy=compact
    seaway configs --bootstrap-server localhost:9092 --entity-type users --entity-name alice \\
        --entity-type clients --entity-name app --alter --add-config producer_byte_rate=1024
    seaway configs --bootstrap-server localhost:9092 --entity-type clients --entity-default \\
        --describe

``--describe`` prints what the script prints (``--all`` every config, with its synonyms;
for quotas one line per entity, "Quota configs for user-principal 'alice' are
producer_byte_rate=1024.0", in the order the script's Java maps give, then a user's SCRAM
credentials); ``--alter`` ends with "Completed updating config for topic orders.". SCRAM
credentials are described, not altered.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from seaway.cli.admin_client import (
    TIMEOUT_S,
    add_connection,
    admin,
    client_config,
    fail,
    key_values,
)
from seaway.java.hash_map import hash_map_order, map_hash, objects_hash, string_hash
from seaway.java.numbers import double_to_string, parse_double

if TYPE_CHECKING:
    from seaway.kafka.client_quotas import Entity
    from seaway.kafka.cluster import KafkaCluster

# --entity-type -> confluent's ResourceType name
_ENTITIES: Final = {"topics": "TOPIC", "brokers": "BROKER", "groups": "GROUP"}
# --entity-type -> the client-quota entity type (Kafka's ClientQuotaEntity)
_QUOTA_ENTITIES: Final = {"users": "user", "clients": "client-id"}
# ConfigSource values (confluent_kafka.admin.ConfigSource) the script lists as dynamic
_DYNAMIC: Final = frozenset({"DYNAMIC_TOPIC_CONFIG", "DYNAMIC_BROKER_CONFIG",
                             "DYNAMIC_DEFAULT_BROKER_CONFIG", "DYNAMIC_BROKER_LOGGER_CONFIG",
                             "DYNAMIC_GROUP_CONFIG"})  # fmt: skip


class _EntityNames(argparse.Action):
    """``--entity-name N`` and ``--entity-default`` (``""``) in command-line order: the i-th
    names the i-th ``--entity-type``, as in the script."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        name = values if isinstance(values, str) else ""
        setattr(namespace, self.dest, [*getattr(namespace, self.dest), name])


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="describe and alter topic, broker and group configs and "
                       "client quotas (kafka-configs.sh)")  # fmt: skip
    add_connection(p)
    p.add_argument("--entity-type", action="append", required=True, dest="entity_types",
                   choices=sorted({*_ENTITIES, *_QUOTA_ENTITIES}),
                   help="the kind of entity; users and clients may be given together")  # fmt: skip
    p.add_argument("--entity-name", action=_EntityNames, dest="entity_names",
                   help="the topic, broker id, group, user principal or client id")  # fmt: skip
    p.add_argument("--entity-default", action=_EntityNames, dest="entity_names", nargs=0,
                   help="the default of the entity type (brokers, users, clients)")  # fmt: skip
    actions = p.add_mutually_exclusive_group(required=True)
    actions.add_argument("--describe", action="store_true", help="print the configs")
    actions.add_argument("--alter", action="store_true", help="add or delete configs")
    p.add_argument("--all", action="store_true", help="with --describe: every config")
    p.add_argument("--add-config", action="append", default=[], metavar="K=V[,K=V]",
                   help="configs to set (--alter)")  # fmt: skip
    p.add_argument("--delete-config", action="append", default=[], metavar="K[,K]",
                   help="configs to remove, back to their defaults (--alter)")  # fmt: skip
    p.set_defaults(run=run, entity_names=[])


def run(args: argparse.Namespace) -> int:
    types, names = args.entity_types, args.entity_names
    twice = [t for t, n in Counter(types).items() if n > 1]
    if twice:
        return fail(f"Duplicate entity type(s) specified: {','.join(twice)}")
    if len(types) > 1 and set(types) != set(_QUOTA_ENTITIES):
        return fail("Only 'users' and 'clients' entity types may be specified together")
    problem = _entity_problem(args, types, names)
    if problem:
        return fail(problem)
    if types[0] in _QUOTA_ENTITIES:
        return _quotas(args, types, names)
    kind = _ENTITIES[types[0]]
    name = names[0] if names else None
    client = admin(args)
    if args.alter:
        return _alter(client, kind, types[0], name or "", args)
    for each in [name] if name is not None else _all_names(client, types[0]):
        code = _describe(client, kind, types[0], each, args.all)
        if code:
            return code
    return 0


def _entity_problem(args: argparse.Namespace, types: list[str], names: list[str]) -> str | None:
    """The script's checks of entity types and names against the action."""
    defaults = "" in names
    if args.describe and defaults and types[0] in ("topics", "groups"):
        return f"--entity-default must not be specified with --describe of {types[0]}"
    if defaults and types[0] == "brokers":  # librdkafka refuses a resource with an empty name
        return (
            "--entity-default of brokers is not supported by seaway configs (librdkafka's "
            "admin client cannot name the cluster default): use --entity-name <broker id>"
        )
    if args.alter:
        if types[0] in ("topics", "groups") and not any(names):
            return f"An entity name must be specified with --alter of {types[0]}"
        if not names:
            return ("An entity-name or default entity must be specified with --alter of users, "
                    "clients, brokers or ips")  # fmt: skip
        if not args.add_config and not args.delete_config:
            return "At least one of --add-config or --delete-config must be specified with --alter"
        if len(names) != len(types):
            return "An entity name must be specified for every entity type"
    if len(names) > len(types):
        return "More entity names specified than entity types"
    return None


def _completed(entity_type: str, name: str) -> str:
    if name == "":
        return f"Completed updating default config for {entity_type} in the cluster."
    return f"Completed updating config for {entity_type[:-1]} {name}."


def _all_names(client: Any, entity_type: str) -> list[str]:
    metadata = client.list_topics(timeout=TIMEOUT_S)
    if entity_type == "topics":
        return sorted(metadata.topics)
    if entity_type == "brokers":
        return [str(b) for b in sorted(metadata.brokers)]
    result = client.list_consumer_groups(request_timeout=TIMEOUT_S).result(TIMEOUT_S)
    return sorted(g.group_id for g in result.valid)


def _describe(client: Any, kind: str, entity_type: str, name: str, every: bool) -> int:
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
    print(f"{'All' if every else 'Dynamic'} configs for {entity_type[:-1]} {name} are:")
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


def _alter(client: Any, kind: str, entity_type: str, name: str, args: argparse.Namespace) -> int:
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry, ConfigResource, ResourceType

    added, deleted = key_values(args.add_config, "--add-config"), _deleted(args)
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
    print(_completed(entity_type, name))
    return 0


def _deleted(args: argparse.Namespace) -> list[str]:
    return [k.strip() for item in args.delete_config for k in item.split(",") if k.strip()]


# --- client quotas -----------------------------------------------------------------------

# how the script names each entity type in "Quota configs for ..." lines, in its order
_WORDS: Final = {"user": "user-principal", "client-id": "client-id", "ip": "ip"}

# (quota entity type, name: "" the default, None any), one per --entity-type
Named = list[tuple[str, str | None]]


class _Failed(Exception):
    """A check of the script's that failed; its message as the script prints it."""


def _quotas(args: argparse.Namespace, types: list[str], names: list[str]) -> int:
    from seaway.config import ConfigException
    from seaway.kafka.cluster import KafkaCluster
    from seaway.kafka.connection import KafkaConnectionError
    from seaway.kafka.security import ClientSecurity
    from seaway.protocol.errors import KafkaError

    config = client_config(args)
    try:
        security = ClientSecurity.from_config(config)
    except ConfigException as error:
        return fail(f"--command-config: {error}")
    cluster = KafkaCluster(config["bootstrap.servers"], client_id="seaway-configs",
                           request_timeout_s=TIMEOUT_S, security=security)  # fmt: skip
    named = [(_QUOTA_ENTITIES[t], names[i] if i < len(names) else None)
             for i, t in enumerate(types)]  # fmt: skip
    try:
        if args.alter:
            _alter_quotas(cluster, named, args)
            print(_completed(types[0], names[0]))
        else:
            _describe_quotas(cluster, named)
            if types == ["users"] and "" not in names:
                _describe_scram(cluster, names)
        return 0
    except (KafkaError, KafkaConnectionError) as error:
        return fail(getattr(error, "message", None) or str(error))
    except _Failed as error:
        return fail(str(error))
    finally:
        cluster.close()


def _described(cluster: KafkaCluster, named: Named) -> list[tuple[Entity, list[tuple[str, float]]]]:
    """The entities of the script's filter (strict: no other entity types; a name matches
    exactly, --entity-default the default, no name any entity of the type)."""
    from seaway.kafka.client_quotas import Component, describe_client_quotas

    def component(entity_type: str, name: str | None) -> Component:
        if name is None:
            return Component.of_type(entity_type)
        return Component.of_entity(entity_type, name) if name else Component.of_default(entity_type)

    return describe_client_quotas(cluster, [component(t, n) for t, n in named], strict=True)


def _describe_quotas(cluster: KafkaCluster, named: Named) -> None:
    """One line per entity, entities and keys in the order of the admin client's HashMaps
    (each made with the size of the response's list)."""
    found = _described(cluster, named)
    for entity, values in hash_map_order(found, _entity_hash, len(found)):
        names = dict(entity)
        shown = ", ".join(
            f"the default {word}" if not names[t] else f"{word} '{names[t]}'"
            for t, word in _WORDS.items()
            if t in names
        )
        ordered = hash_map_order(values, string_hash, len(values))
        quotas = ", ".join(f"{k}={double_to_string(v)}" for k, v in ordered)
        print(f"Quota configs for {shown} are {quotas}")


def _entity_hash(entity: Entity) -> int:
    """``ClientQuotaEntity.hashCode()``."""
    return objects_hash(map_hash(dict(entity)))


def _describe_scram(cluster: KafkaCluster, users: list[str]) -> None:
    """The script's lines for the users' SCRAM credentials (every user that has some when no
    name was given); a user's error as the ``ExecutionException`` Java's ``get`` throws."""
    from seaway.kafka.scram_credentials import describe_user_scram_credentials

    for user, error, infos in describe_user_scram_credentials(cluster, users):
        if error is None:
            shown = ", ".join(f"{mechanism}=iterations={n}" for mechanism, n in infos)
            print(f"SCRAM credential configs for user-principal '{user}' are {shown}")
        else:
            java = "".join(w.capitalize() for w in error.code.name.split("_")) + "Exception"
            print(
                f"Error retrieving SCRAM credential configs for user-principal '{user}': "
                f"ExecutionException: org.apache.kafka.common.errors.{java}: {error.message}"
            )


def _alter_quotas(cluster: KafkaCluster, named: Named, args: argparse.Namespace) -> None:
    """The script's ``--alter`` of users and clients: its checks of the keys, then one
    AlterClientQuotas of the entity (added keys set, deleted keys removed)."""
    from seaway.broker.quotas.entities import QUOTA_KEYS
    from seaway.kafka.client_quotas import alter_client_quotas
    from seaway.security.scram import MECHANISMS

    added, deleted = key_values(args.add_config, "--add-config"), _deleted(args)
    for verb, keys in (("added", list(added)), ("deleted", deleted)):
        unknown = [k for k in keys if k not in QUOTA_KEYS and k not in MECHANISMS]
        scram = [k for k in keys if k in MECHANISMS]
        if any(t == "client-id" for t, _ in named) and (unknown or scram):
            raise _Failed(
                f"Only quota configs can be {verb} for 'clients' using --bootstrap-server. "
                f"Unexpected config names: {_set(unknown + scram)}"
            )
        if unknown:
            raise _Failed(
                f"Only quota and SCRAM credential configs can be {verb} for 'users' using "
                f"--bootstrap-server. Unexpected config names: {_set(unknown)}"
            )
        if scram:
            raise _Failed(
                f"seaway configs does not alter SCRAM credentials ({_set(scram)}): use "
                "kafka-configs.sh, or the broker's seaway.scram.credentials"
            )
    found = _described(cluster, named)
    current = found[0][1] if found else []
    missing = [k for k in deleted if k not in dict(current)]
    if missing:
        raise _Failed(f"Invalid config(s): {','.join(missing)}")
    ops: list[tuple[str, float | None]] = []
    for key, value in added.items():
        try:
            ops.append((key, parse_double(value)))
        except ValueError:
            raise _Failed(f"Cannot parse quota configuration value for {key}: {value}") from None
    ops += [(key, None) for key in deleted]
    entity = tuple((t, n or None) for t, n in named)
    for _, error in alter_client_quotas(cluster, [(entity, ops)]):
        if error is not None:
            raise error


def _set(keys: Sequence[str]) -> str:
    """Names joined as the script joins a ``HashSet`` of them."""
    ordered = hash_map_order([(k, k) for k in dict.fromkeys(keys)], string_hash)
    return ",".join(k for k, _ in ordered)
