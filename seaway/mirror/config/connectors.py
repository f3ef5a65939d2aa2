"""Typed views of the three MM2 connectors' configs (Kafka's ``MirrorConnectorConfig`` and
subclasses), their clients' settings, and those settings as librdkafka takes them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Final

from seaway.config import Config, ConfigDef
from seaway.connect.runtime.connector_config import NAME
from seaway.kafka.java_config import to_librdkafka
from seaway.mirror import filters
from seaway.mirror.config.defs import (
    ADMIN_TIMEOUT_MS,
    BASE_CONNECTOR_CONFIG_DEF,
    CLIENT_CONFIG_NAMES,
    EMIT_CHECKPOINTS_ENABLED,
    EMIT_CHECKPOINTS_INTERVAL_SECONDS,
    EMIT_HEARTBEATS_ENABLED,
    EMIT_HEARTBEATS_INTERVAL_SECONDS,
    EMIT_OFFSET_SYNCS_ENABLED,
    ENABLED,
    MIRROR_CHECKPOINT_CONFIG_DEF,
    MIRROR_HEARTBEAT_CONFIG_DEF,
    MIRROR_SOURCE_CONFIG_DEF,
    OFFSET_SYNCS_TOPIC_LOCATION,
    REFRESH_GROUPS_ENABLED,
    REFRESH_GROUPS_INTERVAL_SECONDS,
    REFRESH_TOPICS_ENABLED,
    REFRESH_TOPICS_INTERVAL_SECONDS,
    SOURCE_CLUSTER_ALIAS,
    SOURCE_CLUSTER_ALIAS_DEFAULT,
    SOURCE_CLUSTER_PREFIX,
    SOURCE_PREFIX,
    SYNC_GROUP_OFFSETS_ENABLED,
    SYNC_GROUP_OFFSETS_INTERVAL_SECONDS,
    SYNC_TOPIC_ACLS_ENABLED,
    SYNC_TOPIC_ACLS_INTERVAL_SECONDS,
    SYNC_TOPIC_CONFIGS_ENABLED,
    SYNC_TOPIC_CONFIGS_INTERVAL_SECONDS,
    TARGET_CLUSTER_ALIAS,
    TARGET_CLUSTER_PREFIX,
    TARGET_PREFIX,
)

_LIBRDKAFKA_KEYS: Final = ("bootstrap.servers", "security.protocol")
_LIBRDKAFKA_PREFIXES: Final = ("ssl.", "sasl.")


def librdkafka_config(config: Mapping[str, Any]) -> dict[str, str]:
    """The settings of a Java client config that librdkafka shares (bootstrap, security),
    as the confluent-kafka clients of a flow take them (Java-style security settings
    translated: ``sasl.jaas.config``, truststores, keystores)."""
    return to_librdkafka({
        k: str(v)
        for k, v in config.items()
        if v is not None and (k in _LIBRDKAFKA_KEYS or k.startswith(_LIBRDKAFKA_PREFIXES))
    })  # fmt: skip


def with_prefix(
    props: Mapping[str, Any], prefix: str, *, strip: bool = True, allow_equal: bool = False
) -> dict[str, Any]:
    """Entries whose key starts with *prefix* (Kafka's ``Utils.entriesWithPrefix``)."""
    return {
        (key[len(prefix) :] if strip else key): value
        for key, value in props.items()
        if key.startswith(prefix) and (allow_equal or len(key) > len(prefix))
    }


def _interval(config: Config, enabled: str, seconds: str) -> int | None:
    """The interval in seconds, or None when the feature is off (Kafka: negative Duration)."""
    return config.get_long(seconds) if config.get_boolean(enabled) else None


class MirrorConnectorConfig(Config):
    """Typed view of one MM2 connector's config, with Kafka's client-config rules.

    Client configs: the cluster's ``source.cluster.*``/``target.cluster.*`` entries limited to
    client settings (bootstrap, security, SSL, SASL), then ``consumer.*`` (or ``producer.*``,
    ``admin.*``), then ``source.consumer.*`` (``target.producer.*``, ...); consumers always get
    ``enable.auto.commit=false`` and ``auto.offset.reset=earliest`` unless set. ``client.id``
    becomes ``[<user id>|]<src>-><tgt>|<connector name>[|<role>]``.
    """

    DEFINITION: ClassVar[ConfigDef] = BASE_CONNECTOR_CONFIG_DEF

    def __init__(self, props: Mapping[str, Any]) -> None:
        super().__init__(self.DEFINITION, props)

    @property
    def connector_name(self) -> str:
        """``name``."""
        return self.get_string(NAME) or ""

    @property
    def enabled(self) -> bool:
        """``enabled``: whether the connector replicates (the heartbeat connector ignores it)."""
        return bool(self.get_boolean(ENABLED))

    @property
    def source_cluster_alias(self) -> str:
        """``source.cluster.alias``."""
        return self.get_string(SOURCE_CLUSTER_ALIAS) or ""

    @property
    def target_cluster_alias(self) -> str:
        """``target.cluster.alias``."""
        return self.get_string(TARGET_CLUSTER_ALIAS) or ""

    @property
    def admin_timeout_ms(self) -> int:
        """``admin.timeout.ms``."""
        return self.get_long(ADMIN_TIMEOUT_MS) or 0

    def entity_label(self) -> str:
        """``<source>-><target>|<connector name>``, the base of every client id."""
        return f"{self.source_cluster_alias}->{self.target_cluster_alias}|{self.connector_name}"

    def _client_config(self, side: str, client: str, role: str | None) -> dict[str, Any]:
        originals = self.originals
        cluster_prefix = SOURCE_CLUSTER_PREFIX if side == SOURCE_PREFIX else TARGET_CLUSTER_PREFIX
        props = {
            k: v for k, v in with_prefix(originals, cluster_prefix).items()
            if k in CLIENT_CONFIG_NAMES
        }  # fmt: skip
        props.update(with_prefix(originals, client))
        props.update(with_prefix(originals, side + client))
        if client == "consumer.":
            props["enable.auto.commit"] = "false"
            props.setdefault("auto.offset.reset", "earliest")
        label = self.entity_label() + ("" if role is None else f"|{role}")
        user = props.get("client.id")
        props["client.id"] = label if user is None else f"{user}|{label}"
        return props

    def source_consumer_config(self, role: str | None = None) -> dict[str, Any]:
        """Consumer settings for the source cluster."""
        return self._client_config(SOURCE_PREFIX, "consumer.", role)

    def source_producer_config(self, role: str | None = None) -> dict[str, Any]:
        """Producer settings for the source cluster."""
        return self._client_config(SOURCE_PREFIX, "producer.", role)

    def source_admin_config(self, role: str | None = None) -> dict[str, Any]:
        """Admin client settings for the source cluster."""
        return self._client_config(SOURCE_PREFIX, "admin.", role)

    def target_consumer_config(self, role: str | None = None) -> dict[str, Any]:
        """Consumer settings for the target cluster."""
        return self._client_config(TARGET_PREFIX, "consumer.", role)

    def target_producer_config(self, role: str | None = None) -> dict[str, Any]:
        """Producer settings for the target cluster."""
        return self._client_config(TARGET_PREFIX, "producer.", role)

    def target_admin_config(self, role: str | None = None) -> dict[str, Any]:
        """Admin client settings for the target cluster."""
        return self._client_config(TARGET_PREFIX, "admin.", role)


class _OffsetSyncsConfig(MirrorConnectorConfig):
    """Settings shared by the source and checkpoint connectors."""

    @property
    def offset_syncs_topic_location(self) -> str:
        """``source`` or ``target``: the cluster that hosts the offset-syncs topic."""
        return self.get_string(OFFSET_SYNCS_TOPIC_LOCATION) or SOURCE_CLUSTER_ALIAS_DEFAULT

    def offset_syncs_topic_alias(self) -> str:
        """The alias in the offset-syncs topic's name: the cluster *not* hosting it (the
        target alias when the topic lives on the source, and vice versa)."""
        if self.offset_syncs_topic_location == SOURCE_CLUSTER_ALIAS_DEFAULT:
            return self.target_cluster_alias
        return self.source_cluster_alias

    def topic_filter(self) -> filters.TopicFilter:
        """The configured ``topic.filter.class``, configured with this config's originals."""
        return filters.topic_filter(self.originals)


class MirrorSourceConfig(_OffsetSyncsConfig):
    """``MirrorSourceConnector``'s config."""

    DEFINITION: ClassVar[ConfigDef] = MIRROR_SOURCE_CONFIG_DEF

    def refresh_topics_interval(self) -> int | None:
        """Seconds between topic refreshes; None when ``refresh.topics.enabled=false``."""
        return _interval(self, REFRESH_TOPICS_ENABLED, REFRESH_TOPICS_INTERVAL_SECONDS)

    def sync_topic_configs_interval(self) -> int | None:
        """Seconds between topic config syncs; None when disabled."""
        return _interval(self, SYNC_TOPIC_CONFIGS_ENABLED, SYNC_TOPIC_CONFIGS_INTERVAL_SECONDS)

    def sync_topic_acls_interval(self) -> int | None:
        """Seconds between topic ACL syncs; None when disabled."""
        return _interval(self, SYNC_TOPIC_ACLS_ENABLED, SYNC_TOPIC_ACLS_INTERVAL_SECONDS)

    def config_property_filter(self) -> filters.ConfigPropertyFilter:
        """The configured ``config.property.filter.class``."""
        return filters.config_property_filter(self.originals)

    @staticmethod
    def validate(props: Mapping[str, str]) -> dict[str, list[str]]:
        """Kafka's extra ``MirrorSourceConnector.validate`` rule: with
        ``emit.offset-syncs.enabled=false`` no ``offset-syncs.*`` setting may be given."""
        configured = any(k.startswith("offset-syncs") for k in props)
        if props.get(EMIT_OFFSET_SYNCS_ENABLED) == "false" and configured:
            return {EMIT_OFFSET_SYNCS_ENABLED: [
                "MirrorSourceConnector can't setup offset-syncs feature while "
                f"{EMIT_OFFSET_SYNCS_ENABLED} set to false"
            ]}  # fmt: skip
        return {}


class MirrorCheckpointConfig(_OffsetSyncsConfig):
    """``MirrorCheckpointConnector``'s config."""

    DEFINITION: ClassVar[ConfigDef] = MIRROR_CHECKPOINT_CONFIG_DEF

    def emit_checkpoints_interval(self) -> int | None:
        """Seconds between checkpoints; None when ``emit.checkpoints.enabled=false``."""
        return _interval(self, EMIT_CHECKPOINTS_ENABLED, EMIT_CHECKPOINTS_INTERVAL_SECONDS)

    def refresh_groups_interval(self) -> int | None:
        """Seconds between consumer group refreshes; None when disabled."""
        return _interval(self, REFRESH_GROUPS_ENABLED, REFRESH_GROUPS_INTERVAL_SECONDS)

    def sync_group_offsets_interval(self) -> int | None:
        """Seconds between group offset syncs; None unless ``sync.group.offsets.enabled``."""
        return _interval(self, SYNC_GROUP_OFFSETS_ENABLED, SYNC_GROUP_OFFSETS_INTERVAL_SECONDS)

    def group_filter(self) -> filters.GroupFilter:
        """The configured ``group.filter.class``."""
        return filters.group_filter(self.originals)

    @staticmethod
    def validate(props: Mapping[str, str]) -> dict[str, list[str]]:
        """Kafka's ``MirrorCheckpointConfig.validate``: an enabled checkpoint connector needs
        checkpoints and offset syncs."""
        errors: dict[str, list[str]] = {}
        if props.get(ENABLED, "true") == "false":
            return errors
        if props.get(EMIT_CHECKPOINTS_ENABLED) == "false":
            errors[EMIT_CHECKPOINTS_ENABLED] = [
                f"MirrorCheckpointConnector can't run with {EMIT_CHECKPOINTS_ENABLED} set to false"
            ]
        if props.get(EMIT_OFFSET_SYNCS_ENABLED) == "false":
            errors[EMIT_OFFSET_SYNCS_ENABLED] = [
                "MirrorCheckpointConnector can't run without offset syncs"
            ]
        return errors


class MirrorHeartbeatConfig(MirrorConnectorConfig):
    """``MirrorHeartbeatConnector``'s config."""

    DEFINITION: ClassVar[ConfigDef] = MIRROR_HEARTBEAT_CONFIG_DEF

    def emit_heartbeats_interval(self) -> int | None:
        """Seconds between heartbeats; None when ``emit.heartbeats.enabled=false``."""
        return _interval(self, EMIT_HEARTBEATS_ENABLED, EMIT_HEARTBEATS_INTERVAL_SECONDS)
