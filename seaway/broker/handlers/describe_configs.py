"""DescribeConfigs (32): every config of a topic or the broker, with its source.

Kafka returns all configs, defaults included (clients do read-modify-write on the result),
with ``config_source``: 1 dynamic topic, 4 static broker, 5 default. Each resource needs
DESCRIBE_CONFIGS (see :func:`authorize_config_resource`), checked before it is looked up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.broker.config import BROKER_CONFIG_DEF
from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.broker.log.config import TOPIC_CONFIG_DEF, TOPIC_CONFIG_SYNONYMS
from seaway.config import ConfigDef, Type
from seaway.config.types import convert_to_string
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.acl import CLUSTER_NAME, AclOperation, ResourceType

RESOURCE_TOPIC = 2
RESOURCE_BROKER = 4
RESOURCE_BROKER_LOGGER = 8
RESOURCE_CLIENT_METRICS = 16
RESOURCE_GROUP = 32

DYNAMIC_TOPIC_CONFIG = 1
STATIC_BROKER_CONFIG = 4
DEFAULT_CONFIG = 5

_CONFIG_TYPES = {
    Type.BOOLEAN: 1,
    Type.STRING: 2,
    Type.INT: 3,
    Type.SHORT: 4,
    Type.LONG: 5,
    Type.DOUBLE: 6,
    Type.LIST: 7,
    Type.CLASS: 8,
    Type.PASSWORD: 9,
}

# (name, value string, source, synonyms as (name, value, source))
_Entry = tuple[str, str | None, int, list[tuple[str, str | None, int]]]


def topic_entries(ctx: RequestContext, name: str) -> list[_Entry]:
    topic = ctx.broker.topics.get(name)
    if topic is None:
        raise KafkaError(ErrorCode.unknown_topic_or_partition, f"Topic {name} does not exist")
    originals = ctx.broker.config_originals
    entries: list[_Entry] = []
    for key in TOPIC_CONFIG_DEF.config_keys.values():
        value = convert_to_string(topic.config_values[key.name], key.type)
        synonyms: list[tuple[str, str | None, int]] = []
        source = DEFAULT_CONFIG
        if key.name in topic.record.configs:
            source = DYNAMIC_TOPIC_CONFIG
            synonyms.append((key.name, value, DYNAMIC_TOPIC_CONFIG))
        broker_key = TOPIC_CONFIG_SYNONYMS.get(key.name)
        if broker_key and broker_key in originals:
            if source == DEFAULT_CONFIG:
                source = STATIC_BROKER_CONFIG
            synonyms.append((broker_key, str(originals[broker_key]), STATIC_BROKER_CONFIG))
        synonyms.append(
            (broker_key or key.name, convert_to_string(key.default_value, key.type), DEFAULT_CONFIG)
        )
        entries.append((key.name, value, source, synonyms))
    return entries


def broker_entries(ctx: RequestContext, name: str) -> list[_Entry]:
    if name not in ("", str(ctx.broker.node_id)):
        raise KafkaError(
            ErrorCode.invalid_request, f"Unexpected broker id {name}, this is {ctx.broker.node_id}"
        )
    values = ctx.broker.config_values
    originals = ctx.broker.config_originals
    entries: list[_Entry] = []
    for key in BROKER_CONFIG_DEF.config_keys.values():
        value = convert_to_string(values[key.name], key.type)
        source = STATIC_BROKER_CONFIG if key.name in originals else DEFAULT_CONFIG
        entries.append((key.name, value, source, [(key.name, value, source)]))
    return entries


_CLUSTER_DENIED = (
    ResourceType.CLUSTER,
    ErrorCode.cluster_authorization_failed,
    "Cluster authorization failed.",
)
_ACL_RESOURCES = {
    RESOURCE_TOPIC: (ResourceType.TOPIC, ErrorCode.topic_authorization_failed,
                     "Topic authorization failed."),
    RESOURCE_GROUP: (ResourceType.GROUP, ErrorCode.group_authorization_failed,
                     "Group authorization failed."),
    RESOURCE_BROKER: _CLUSTER_DENIED,
    RESOURCE_BROKER_LOGGER: _CLUSTER_DENIED,
    RESOURCE_CLIENT_METRICS: _CLUSTER_DENIED,
}  # fmt: skip


def authorize_config_resource(
    ctx: RequestContext, operation: AclOperation, resource_type: int, name: str
) -> None:
    """Raise Kafka's error unless the caller may do *operation* (DESCRIBE_CONFIGS or
    ALTER_CONFIGS) on a config resource: a topic or group on itself, the broker-wide types
    on the cluster. An unknown type passes, to be rejected as invalid."""
    if resource_type not in _ACL_RESOURCES:
        return
    acl_type, code, message = _ACL_RESOURCES[resource_type]
    if not ctx.authorized(
        operation, acl_type, CLUSTER_NAME if acl_type is ResourceType.CLUSTER else name
    ):
        raise KafkaError(code, message)


def _definition(resource_type: int) -> ConfigDef:
    return TOPIC_CONFIG_DEF if resource_type == RESOURCE_TOPIC else BROKER_CONFIG_DEF


@handles(ApiKey.DESCRIBE_CONFIGS, max_version=4)
async def describe_configs(ctx: RequestContext) -> Any:
    req = ctx.request
    resp = ctx.response_class
    result_cls = nested(resp, "DescribeConfigsResult")
    entry_cls = nested(resp, "DescribeConfigsResourceResult")
    synonym_cls = nested(resp, "DescribeConfigsSynonym")
    include_synonyms = getattr(req, "include_synonyms", False)
    include_docs = getattr(req, "include_documentation", False)
    results = []
    for r in req.resources:
        code, message, configs = ErrorCode.none, None, ()
        try:
            authorize_config_resource(
                ctx, AclOperation.DESCRIBE_CONFIGS, r.resource_type, r.resource_name
            )
            if r.resource_type == RESOURCE_TOPIC:
                entries = topic_entries(ctx, r.resource_name)
            elif r.resource_type == RESOURCE_BROKER:
                entries = broker_entries(ctx, r.resource_name)
            else:
                raise KafkaError(
                    ErrorCode.invalid_request, f"Unsupported resource type {r.resource_type}"
                )
            wanted = set(r.configuration_keys) if r.configuration_keys else None
            keys: Mapping[str, Any] = _definition(r.resource_type).config_keys
            configs = tuple(
                make(
                    entry_cls,
                    name=name,
                    value=value,
                    read_only=r.resource_type == RESOURCE_BROKER,
                    is_default=source == DEFAULT_CONFIG,
                    config_source=source,
                    is_sensitive=False,
                    synonyms=tuple(
                        make(synonym_cls, name=n, value=v, source=s) for n, v, s in synonyms
                    )
                    if include_synonyms
                    else (),
                    config_type=_CONFIG_TYPES[keys[name].type],
                    documentation=keys[name].documentation if include_docs else None,
                )
                for name, value, source, synonyms in entries
                if wanted is None or name in wanted
            )
        except KafkaError as e:
            code, message = e.code, e.message
        results.append(
            make(
                result_cls,
                error_code=code,
                error_message=message,
                resource_type=r.resource_type,
                resource_name=r.resource_name,
                configs=configs,
            )
        )
    return make(resp, throttle_time=ZERO, results=tuple(results))
