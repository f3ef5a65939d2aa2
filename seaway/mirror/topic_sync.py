"""Topic config and ACL sync of a MirrorSource flow (MirrorSourceConnector's
``syncTopicConfigs`` and ``syncTopicAcls``), on the driver with admin calls.

* Configs at creation (:func:`creation_configs`): the source's non-default entries (plus
  its defaults with ``use.defaults.from=source``), never read-only, sensitive or
  broker-static ones, never a ``config.properties.exclude`` match.
* Configs kept in sync (:func:`config_sync_ops`, every ``sync.topic.configs.interval.seconds``,
  only for topics whose remote topic exists) with ``incrementalAlterConfigs``: an entry at
  its default on the source is a ``DELETE`` on the target (it reverts to the target's
  default) unless ``use.defaults.from=source``; every other entry is a ``SET``.
* ACLs (:func:`acls_to_sync`, every ``sync.topic.acls.interval.seconds``): literal topic
  ACLs of replicated topics, renamed to the remote topic; ``ALLOW WRITE`` dropped and
  ``ALLOW ALL`` downgraded to ``ALLOW READ`` (only the mirror writes remote topics); never
  deleted. A source cluster without an authorizer is logged once and skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from seaway.kafka import clients
from seaway.kafka.admin import authorizer_class
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.filters import ConfigPropertyFilter

log = logging.getLogger(__name__)

_NO_AUTHORIZER: Final = ("SECURITY_DISABLED", "UNSUPPORTED", "_UNSUPPORTED_FEATURE")


def _replicable(entry: Any, config_filter: ConfigPropertyFilter) -> bool:
    from confluent_kafka.admin import ConfigSource

    return (
        not entry.is_read_only
        and not entry.is_sensitive
        and entry.source != ConfigSource.STATIC_BROKER_CONFIG.value
        and config_filter.should_replicate_config_property(entry.name)
    )


def _uses_source_default(config_filter: ConfigPropertyFilter, name: str) -> bool:
    check = getattr(config_filter, "should_replicate_source_default", None)
    return bool(check(name)) if check is not None else False


def creation_configs(
    entries: Mapping[str, Any], config_filter: ConfigPropertyFilter
) -> dict[str, str]:
    """The configs a new remote topic gets from its source topic's *entries*."""
    return {
        name: entry.value
        for name, entry in entries.items()
        if entry.value is not None
        and _replicable(entry, config_filter)
        and (not entry.is_default or _uses_source_default(config_filter, name))
    }


def config_sync_ops(entries: Mapping[str, Any], config_filter: ConfigPropertyFilter) -> list[Any]:
    """``incrementalAlterConfigs`` entries bringing a remote topic to its source's *entries*."""
    from confluent_kafka.admin import AlterConfigOpType, ConfigEntry

    ops = []
    for name, entry in sorted(entries.items()):
        if not _replicable(entry, config_filter):
            continue
        if entry.is_default and not _uses_source_default(config_filter, name):
            ops.append(ConfigEntry(name, None, incremental_operation=AlterConfigOpType.DELETE))
        elif entry.value is not None:
            ops.append(ConfigEntry(name, entry.value, incremental_operation=AlterConfigOpType.SET))
    return ops


def describe_topic_configs(client: Mapping[str, str], topics: Iterable[str]) -> dict[str, Any]:
    """Every config entry of each topic on the cluster of *client*, by topic."""
    from confluent_kafka.admin import ConfigResource

    wanted = list(topics)
    if not wanted:
        return {}
    admin = clients.admin(client)
    futures = admin.describe_configs([ConfigResource("topic", t) for t in wanted])
    return {resource.name: future.result(REQUEST_TIMEOUT_S) for resource, future in futures.items()}


def sync_topic_configs(
    source_client: Mapping[str, str],
    target_client: Mapping[str, str],
    remote_topics: Mapping[str, str],
    config_filter: ConfigPropertyFilter,
) -> int:
    """Bring each existing remote topic's configs to its source's; the topics altered.

    *remote_topics* maps source topic -> remote topic. A topic that vanished on either
    side is skipped (logged), the others still synced.
    """
    from confluent_kafka.admin import ConfigResource

    target = clients.admin(target_client)
    existing = set(target.list_topics(timeout=REQUEST_TIMEOUT_S).topics)
    pairs = {s: r for s, r in remote_topics.items() if r in existing}
    if not pairs:
        return 0
    from confluent_kafka import KafkaException

    try:
        source_entries = describe_topic_configs(source_client, pairs)
    except KafkaException as error:
        log.warning("Could not read source topic configs (%s); config sync skipped", error)
        return 0
    resources = []
    for topic, remote in sorted(pairs.items()):
        ops = config_sync_ops(source_entries.get(topic, {}), config_filter)
        if ops:
            resources.append(ConfigResource("topic", remote, incremental_configs=ops))
    altered = 0
    for resource, future in target.incremental_alter_configs(resources).items():
        try:
            future.result(REQUEST_TIMEOUT_S)
            altered += 1
        except KafkaException as error:
            log.warning("Syncing the configs of %s failed: %s", resource.name, error)
    return altered


def acls_to_sync(
    bindings: Iterable[Any], should_replicate: Callable[[str], bool], rename: Callable[[str], str]
) -> list[Any]:
    """The target ACL bindings for the source's *bindings* (MM2's filter and transform)."""
    from confluent_kafka.admin import (
        AclBinding,
        AclOperation,
        AclPermissionType,
        ResourcePatternType,
        ResourceType,
    )

    out = []
    for b in bindings:
        allow = b.permission_type == AclPermissionType.ALLOW
        if (
            b.restype != ResourceType.TOPIC
            or b.resource_pattern_type != ResourcePatternType.LITERAL
            or (allow and b.operation == AclOperation.WRITE)
            or not should_replicate(b.name)
        ):
            continue
        operation = AclOperation.READ if allow and b.operation == AclOperation.ALL else b.operation
        renamed = (ResourceType.TOPIC, rename(b.name), ResourcePatternType.LITERAL)
        out.append(AclBinding(*renamed, b.principal, b.host, operation, b.permission_type))
    return out


class AclSync:
    """Copies topic ACLs of replicated topics to the target; skips (logged once) a source
    cluster without an authorizer."""

    def __init__(
        self,
        source_client: Mapping[str, str],
        target_client: Mapping[str, str],
        should_replicate: Callable[[str], bool],
        rename: Callable[[str], str],
    ) -> None:
        self.source_client = dict(source_client)
        self.target_client = dict(target_client)
        self.should_replicate = should_replicate
        self.rename = rename
        self.disabled_reason: str | None = None
        self._warned_empty = False

    def _disable(self, reason: str) -> int:
        self.disabled_reason = reason
        log.info(
            "No ACL authorizer is configured on the source Kafka cluster (%s), so no topic "
            "ACL syncing will take place. Consider disabling topic ACL syncing by setting "
            "sync.topic.acls.enabled to 'false'.",
            reason,
        )
        return 0

    def sync(self) -> int:
        """Create the target's missing ACLs; how many bindings were sent."""
        from confluent_kafka import KafkaException
        from confluent_kafka.admin import (
            AclBindingFilter,
            AclOperation,
            AclPermissionType,
            ResourcePatternType,
            ResourceType,
        )

        if self.disabled_reason is not None:
            return 0
        source = clients.admin(self.source_client)
        # None matches any: AclBindingFilter keeps AclBinding's str-only hints.
        wanted = AclBindingFilter(
            ResourceType.TOPIC, None, ResourcePatternType.ANY, None, None,  # type: ignore[arg-type]
            AclOperation.ANY, AclPermissionType.ANY,
        )  # fmt: skip
        try:
            bindings = source.describe_acls(wanted, request_timeout=REQUEST_TIMEOUT_S).result(
                REQUEST_TIMEOUT_S
            )
        except KafkaException as error:  # older librdkafka, or a broker without the API
            name = error.args[0].name() if error.args else str(error)
            if any(reason in name for reason in _NO_AUTHORIZER):
                return self._disable(name)
            raise
        if not bindings:
            # librdkafka drops DescribeAcls' error code: SECURITY_DISABLED and a refusal
            # both come back as no ACLs. The broker's own config tells the first apart.
            if authorizer_class(source, REQUEST_TIMEOUT_S) == "":
                return self._disable("SECURITY_DISABLED")
            if not self._warned_empty:
                self._warned_empty = True
                log.info(
                    "The source cluster listed no topic ACLs. If it has some, its principal "
                    "for this flow needs DESCRIBE on the CLUSTER resource to list them."
                )
            return 0
        target_bindings = acls_to_sync(bindings, self.should_replicate, self.rename)
        if not target_bindings:
            return 0
        target = clients.admin(self.target_client)
        for binding, future in target.create_acls(target_bindings).items():
            try:
                future.result(REQUEST_TIMEOUT_S)
            except KafkaException as error:
                log.warning("Creating ACL %s on the target failed: %s", binding, error)
        return len(target_bindings)


__all__ = [
    "AclSync",
    "acls_to_sync",
    "config_sync_ops",
    "creation_configs",
    "describe_topic_configs",
    "sync_topic_configs",
]
