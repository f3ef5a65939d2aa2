"""MirrorMaker 2 configuration: the connectors' configs and the driver's ``mm2.properties``.

Connector configs (Kafka's ``MirrorConnectorConfig`` and subclasses) use Kafka's names, types
and defaults (4.0): :data:`MIRROR_SOURCE_CONFIG_DEF`, :data:`MIRROR_CHECKPOINT_CONFIG_DEF` and
:data:`MIRROR_HEARTBEAT_CONFIG_DEF`, with typed views :class:`MirrorSourceConfig`,
:class:`MirrorCheckpointConfig` and :class:`MirrorHeartbeatConfig`. Class-valued settings
(``replication.policy.class``, ``*.filter.class``, ...) are strings holding Kafka's class names.

:class:`MirrorMakerConfig` reads a driver-mode ``mm2.properties`` exactly as Kafka's
``MirrorMakerConfig`` does (``clusters``, ``<alias>.*``, ``<src>-><tgt>.*``, top-level
defaults), and derives each herder's worker config and each connector's config from it.
Unlike Kafka, it checks the file when it is built and raises :class:`MirrorConfigError`
naming the offending key: unknown or identical aliases in ``<src>-><tgt>.*`` keys, a missing
``<alias>.bootstrap.servers`` for a cluster in an enabled flow, values of the wrong type and
malformed topic/group regexes.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar, Final

from seaway.config import (
    NO_DEFAULT,
    CaseInsensitiveValidString,
    Config,
    ConfigDef,
    ConfigException,
    Importance,
    Range,
    Type,
    ValidString,
    convert_to_string,
    load_properties,
    parse_type,
)
from seaway.config.providers import ConfigTransformer
from seaway.connect.runtime.connector_config import COMMON_CONFIG_DEF, CONNECTOR_CLASS, NAME
from seaway.kafka.java_config import to_librdkafka
from seaway.mirror import filters
from seaway.mirror.filters import (
    CONFIG_PROPERTIES_EXCLUDE,
    CONFIG_PROPERTIES_EXCLUDE_DEFAULT,
    CONFIG_PROPERTY_FILTER_CLASS,
    DEFAULT_CONFIG_PROPERTY_FILTER_CLASS,
    DEFAULT_GROUP_FILTER_CLASS,
    DEFAULT_TOPIC_FILTER_CLASS,
    DEPRECATED_ALIASES,
    GROUP_FILTER_CLASS,
    GROUPS,
    GROUPS_DEFAULT,
    GROUPS_EXCLUDE,
    GROUPS_EXCLUDE_DEFAULT,
    TOPIC_FILTER_CLASS,
    TOPICS,
    TOPICS_DEFAULT,
    TOPICS_EXCLUDE,
    TOPICS_EXCLUDE_DEFAULT,
)

logger = logging.getLogger(__name__)

_KAFKA: Final = "org.apache.kafka.connect.mirror."

# Connector classes, in the order the driver configures them (Kafka's CONNECTOR_CLASSES).
MIRROR_SOURCE_CONNECTOR: Final = _KAFKA + "MirrorSourceConnector"
MIRROR_HEARTBEAT_CONNECTOR: Final = _KAFKA + "MirrorHeartbeatConnector"
MIRROR_CHECKPOINT_CONNECTOR: Final = _KAFKA + "MirrorCheckpointConnector"
CONNECTOR_CLASSES: Final = (
    MIRROR_SOURCE_CONNECTOR,
    MIRROR_HEARTBEAT_CONNECTOR,
    MIRROR_CHECKPOINT_CONNECTOR,
)

# ---------------------------------------------------------------------------- names

ENABLED: Final = "enabled"
SOURCE_CLUSTER_ALIAS: Final = "source.cluster.alias"
TARGET_CLUSTER_ALIAS: Final = "target.cluster.alias"
SOURCE_CLUSTER_ALIAS_DEFAULT: Final = "source"
TARGET_CLUSTER_ALIAS_DEFAULT: Final = "target"
ADMIN_TIMEOUT_MS: Final = "admin.timeout.ms"
REPLICATION_POLICY_CLASS: Final = "replication.policy.class"
REPLICATION_POLICY_CLASS_DEFAULT: Final = _KAFKA + "DefaultReplicationPolicy"
REPLICATION_POLICY_SEPARATOR: Final = "replication.policy.separator"
REPLICATION_POLICY_SEPARATOR_DEFAULT: Final = "."
INTERNAL_TOPIC_SEPARATOR_ENABLED: Final = "replication.policy.internal.topic.separator.enabled"
FORWARDING_ADMIN_CLASS: Final = "forwarding.admin.class"
FORWARDING_ADMIN_CLASS_DEFAULT: Final = "org.apache.kafka.clients.admin.ForwardingAdmin"
METRIC_REPORTERS: Final = "metric.reporters"
BOOTSTRAP_SERVERS: Final = "bootstrap.servers"
SECURITY_PROTOCOL: Final = "security.protocol"

OFFSET_SYNCS_TOPIC_LOCATION: Final = "offset-syncs.topic.location"
OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR: Final = "offset-syncs.topic.replication.factor"
EMIT_OFFSET_SYNCS_ENABLED: Final = "emit.offset-syncs.enabled"
HEARTBEATS_REPLICATION_ENABLED: Final = "heartbeats.replication.enabled"
REPLICATION_FACTOR: Final = "replication.factor"
OFFSET_LAG_MAX: Final = "offset.lag.max"
CONSUMER_POLL_TIMEOUT_MS: Final = "consumer.poll.timeout.ms"
REFRESH_TOPICS_ENABLED: Final = "refresh.topics.enabled"
REFRESH_TOPICS_INTERVAL_SECONDS: Final = "refresh.topics.interval.seconds"
SYNC_TOPIC_CONFIGS_ENABLED: Final = "sync.topic.configs.enabled"
SYNC_TOPIC_CONFIGS_INTERVAL_SECONDS: Final = "sync.topic.configs.interval.seconds"
SYNC_TOPIC_ACLS_ENABLED: Final = "sync.topic.acls.enabled"
SYNC_TOPIC_ACLS_INTERVAL_SECONDS: Final = "sync.topic.acls.interval.seconds"

REFRESH_GROUPS_ENABLED: Final = "refresh.groups.enabled"
REFRESH_GROUPS_INTERVAL_SECONDS: Final = "refresh.groups.interval.seconds"
EMIT_CHECKPOINTS_ENABLED: Final = "emit.checkpoints.enabled"
EMIT_CHECKPOINTS_INTERVAL_SECONDS: Final = "emit.checkpoints.interval.seconds"
SYNC_GROUP_OFFSETS_ENABLED: Final = "sync.group.offsets.enabled"
SYNC_GROUP_OFFSETS_INTERVAL_SECONDS: Final = "sync.group.offsets.interval.seconds"
CHECKPOINTS_TOPIC_REPLICATION_FACTOR: Final = "checkpoints.topic.replication.factor"

EMIT_HEARTBEATS_ENABLED: Final = "emit.heartbeats.enabled"
EMIT_HEARTBEATS_INTERVAL_SECONDS: Final = "emit.heartbeats.interval.seconds"
HEARTBEATS_TOPIC_REPLICATION_FACTOR: Final = "heartbeats.topic.replication.factor"

# Task configs the connectors add for their tasks.
TASK_TOPIC_PARTITIONS: Final = "task.assigned.partitions"
TASK_CONSUMER_GROUPS: Final = "task.assigned.groups"
TASK_INDEX: Final = "task.index"

# Driver (mm2.properties) settings.
CLUSTERS: Final = "clusters"
CONFIG_PROVIDERS: Final = "config.providers"
ENABLE_INTERNAL_REST: Final = "dedicated.mode.enable.internal.rest"
BYTE_ARRAY_CONVERTER: Final = "org.apache.kafka.connect.converters.ByteArrayConverter"

SOURCE_CLUSTER_PREFIX: Final = "source.cluster."
TARGET_CLUSTER_PREFIX: Final = "target.cluster."
SOURCE_PREFIX: Final = "source."
TARGET_PREFIX: Final = "target."
CLIENT_PREFIXES: Final = ("producer.", "consumer.", "admin.")

# ---------------------------------------------------------------------------- definitions

_Row = tuple[Any, ...]  # (name, type, default, importance, doc[, validator])


def _define(d: ConfigDef, rows: Iterable[_Row]) -> ConfigDef:
    for name, type_, default, importance, doc, *validator in rows:
        d.define(name, type_, default, validator[0] if validator else None, importance, doc)
    return d


_H, _M, _L = Importance.HIGH, Importance.MEDIUM, Importance.LOW
_SECURITY_PROTOCOLS: Final = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")

# Kafka's security.protocol plus ConfigDef.withClientSslSupport()/withClientSaslSupport().
# Class-valued settings are kept as strings (Java class names).
_CLIENT_SECURITY: Final[tuple[_Row, ...]] = (
    (SECURITY_PROTOCOL, Type.STRING, "PLAINTEXT", _M,
     "Protocol used to communicate with brokers. Valid values are: "
     + ", ".join(_SECURITY_PROTOCOLS) + ".",
     CaseInsensitiveValidString(_SECURITY_PROTOCOLS)),
    ("ssl.protocol", Type.STRING, "TLSv1.3", _M,
     "The SSL protocol used to generate the SSLContext."),
    ("ssl.provider", Type.STRING, None, _M, "The name of the security provider for SSL."),
    ("ssl.cipher.suites", Type.LIST, None, _L, "A list of cipher suites."),
    ("ssl.enabled.protocols", Type.LIST, "TLSv1.2,TLSv1.3", _M,
     "The list of protocols enabled for SSL connections."),
    ("ssl.keystore.type", Type.STRING, "JKS", _M, "The file format of the key store file."),
    ("ssl.keystore.location", Type.STRING, None, _H, "The location of the key store file."),
    ("ssl.keystore.password", Type.PASSWORD, None, _H, "The store password for the key store."),
    ("ssl.key.password", Type.PASSWORD, None, _H, "The password of the private key."),
    ("ssl.keystore.key", Type.PASSWORD, None, _H,
     "Private key in the format of ssl.keystore.type."),
    ("ssl.keystore.certificate.chain", Type.PASSWORD, None, _H,
     "Certificate chain in the format of ssl.keystore.type."),
    ("ssl.truststore.certificates", Type.PASSWORD, None, _H,
     "Trusted certificates in the format of ssl.truststore.type."),
    ("ssl.truststore.type", Type.STRING, "JKS", _M, "The file format of the trust store file."),
    ("ssl.truststore.location", Type.STRING, None, _H, "The location of the trust store file."),
    ("ssl.truststore.password", Type.PASSWORD, None, _H, "The password for the trust store."),
    ("ssl.keymanager.algorithm", Type.STRING, "SunX509", _L,
     "The algorithm used by the key manager factory for SSL connections."),
    ("ssl.trustmanager.algorithm", Type.STRING, "PKIX", _L,
     "The algorithm used by the trust manager factory for SSL connections."),
    ("ssl.endpoint.identification.algorithm", Type.STRING, "https", _L,
     "The endpoint identification algorithm to validate the server host name."),
    ("ssl.secure.random.implementation", Type.STRING, None, _L,
     "The SecureRandom PRNG implementation to use for SSL cryptography operations."),
    ("ssl.engine.factory.class", Type.STRING, None, _L,
     "The class of type SslEngineFactory to provide SSLEngine objects."),
    ("sasl.kerberos.service.name", Type.STRING, None, _M,
     "The Kerberos principal name that Kafka runs as."),
    ("sasl.kerberos.kinit.cmd", Type.STRING, "/usr/bin/kinit", _L, "Kerberos kinit command path."),
    ("sasl.kerberos.ticket.renew.window.factor", Type.DOUBLE, 0.8, _L,
     "Fraction of the ticket lifetime after which the login thread renews the ticket."),
    ("sasl.kerberos.ticket.renew.jitter", Type.DOUBLE, 0.05, _L,
     "Percentage of random jitter added to the renewal time."),
    ("sasl.kerberos.min.time.before.relogin", Type.LONG, 60000, _L,
     "Login thread sleep time between refresh attempts."),
    ("sasl.login.refresh.window.factor", Type.DOUBLE, 0.8, _L,
     "Fraction of the credential lifetime after which the login refresh thread refreshes it.",
     Range.between(0.5, 1.0)),
    ("sasl.login.refresh.window.jitter", Type.DOUBLE, 0.05, _L,
     "Maximum random jitter added to the login refresh thread's sleep time.",
     Range.between(0.0, 0.25)),
    ("sasl.login.refresh.min.period.seconds", Type.SHORT, 60, _L,
     "Minimum time the login refresh thread waits before refreshing a credential.",
     Range.between(0, 900)),
    ("sasl.login.refresh.buffer.seconds", Type.SHORT, 300, _L,
     "Buffer time to keep before credential expiration when refreshing.",
     Range.between(0, 3600)),
    ("sasl.mechanism", Type.STRING, "GSSAPI", _M, "SASL mechanism used for client connections."),
    ("sasl.jaas.config", Type.PASSWORD, None, _M, "JAAS login context parameters for SASL."),
    ("sasl.client.callback.handler.class", Type.STRING, None, _M,
     "A SASL client callback handler class."),
    ("sasl.login.callback.handler.class", Type.STRING, None, _M,
     "A SASL login callback handler class."),
    ("sasl.login.class", Type.STRING, None, _M, "A class that implements the Login interface."),
    ("sasl.login.connect.timeout.ms", Type.INT, None, _L,
     "Connection timeout for the external authentication provider."),
    ("sasl.login.read.timeout.ms", Type.INT, None, _L,
     "Read timeout for the external authentication provider."),
    ("sasl.login.retry.backoff.max.ms", Type.LONG, 10000, _L,
     "Maximum wait between login attempts to the external authentication provider."),
    ("sasl.login.retry.backoff.ms", Type.LONG, 100, _L,
     "Initial wait between login attempts to the external authentication provider."),
    ("sasl.oauthbearer.scope.claim.name", Type.STRING, "scope", _L,
     "The OAuth claim for the scope."),
    ("sasl.oauthbearer.sub.claim.name", Type.STRING, "sub", _L, "The OAuth claim for the subject."),
    ("sasl.oauthbearer.token.endpoint.url", Type.STRING, None, _M,
     "The URL of the OAuth/OIDC identity provider."),
    ("sasl.oauthbearer.jwks.endpoint.url", Type.STRING, None, _M,
     "The OAuth/OIDC provider URL from which the provider's JWKS can be retrieved."),
    ("sasl.oauthbearer.jwks.endpoint.refresh.ms", Type.LONG, 3600000, _L,
     "How often the JWKS cache is refreshed."),
    ("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", Type.LONG, 10000, _L,
     "Maximum wait between attempts to retrieve the JWKS."),
    ("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", Type.LONG, 100, _L,
     "Initial wait between attempts to retrieve the JWKS."),
    ("sasl.oauthbearer.clock.skew.seconds", Type.INT, 30, _L,
     "Allowed clock difference between the OAuth provider and the broker."),
    ("sasl.oauthbearer.expected.audience", Type.LIST, None, _L,
     "Comma-delimited audiences the broker expects the JWT to have been issued for."),
    ("sasl.oauthbearer.expected.issuer", Type.STRING, None, _L,
     "The issuer identifier the broker expects in the JWT."),
    ("sasl.oauthbearer.header.urlencode", Type.BOOLEAN, False, _L,
     "Whether to URL-encode the client id and secret in the authorization header."),
)  # fmt: skip

CLIENT_CONFIG_DEF: Final = _define(
    ConfigDef().define(
        BOOTSTRAP_SERVERS, Type.LIST, None, None, _H,
        "A list of host/port pairs used to establish the initial connection to the Kafka cluster.",
    ),
    _CLIENT_SECURITY,
)  # fmt: skip
"""Settings MM2 gives its internal Kafka clients (``MirrorClientConfig.CLIENT_CONFIG_DEF``)."""

CLIENT_CONFIG_NAMES: Final = frozenset(CLIENT_CONFIG_DEF.names())

BASE_CONNECTOR_CONFIG_DEF: Final = _define(COMMON_CONFIG_DEF.copy(), (
    (ENABLED, Type.BOOLEAN, True, _L, "Whether to replicate source->target."),
    (SOURCE_CLUSTER_ALIAS, Type.STRING, NO_DEFAULT, _H, "Alias of source cluster"),
    (TARGET_CLUSTER_ALIAS, Type.STRING, TARGET_CLUSTER_ALIAS_DEFAULT, _H,
     "Alias of target cluster. Used in metrics reporting."),
    (ADMIN_TIMEOUT_MS, Type.LONG, 60000, _L,
     "Timeout for administrative tasks, e.g. detecting new topics."),
    (REPLICATION_POLICY_CLASS, Type.STRING, REPLICATION_POLICY_CLASS_DEFAULT, _L,
     "Class which defines the remote topic naming convention."),
    (REPLICATION_POLICY_SEPARATOR, Type.STRING, REPLICATION_POLICY_SEPARATOR_DEFAULT, _L,
     "Separator used in remote topic naming convention."),
    (INTERNAL_TOPIC_SEPARATOR_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to use replication.policy.separator to control the names of topics used for "
     "checkpoints and offset syncs. By default, custom separators are used in these topic "
     "names; however, if upgrading MirrorMaker 2 from older versions that did not allow for "
     "these topic names to be customized, it may be necessary to set this property to "
     "'false' in order to continue using the same names for those topics."),
    (FORWARDING_ADMIN_CLASS, Type.STRING, FORWARDING_ADMIN_CLASS_DEFAULT, _L,
     "Class which extends ForwardingAdmin to define custom cluster resource management "
     "(topics, configs, etc)."),
    (METRIC_REPORTERS, Type.LIST, "org.apache.kafka.common.metrics.JmxReporter", _L,
     "A list of classes to use as metrics reporters."),
    *_CLIENT_SECURITY,
))  # fmt: skip
"""Keys shared by the three connectors (Kafka's ``MirrorConnectorConfig``), on top of
Connect's connector keys (``name``, ``connector.class``, ``tasks.max``, ...).

``source.cluster.alias`` is required: Kafka declares it without a default.
"""

_OFFSET_SYNCS_LOCATION_ROW: Final[_Row] = (
    OFFSET_SYNCS_TOPIC_LOCATION, Type.STRING, SOURCE_CLUSTER_ALIAS_DEFAULT, _L,
    "The location (source/target) of the offset-syncs topic.",
    ValidString.in_(SOURCE_CLUSTER_ALIAS_DEFAULT, TARGET_CLUSTER_ALIAS_DEFAULT),
)  # fmt: skip
_CONSUMER_POLL_TIMEOUT_ROW: Final[_Row] = (
    CONSUMER_POLL_TIMEOUT_MS, Type.LONG, 1000, _L, "Timeout when polling source cluster.",
)  # fmt: skip
_TOPIC_FILTER_CLASS_ROW: Final[_Row] = (
    TOPIC_FILTER_CLASS, Type.STRING, DEFAULT_TOPIC_FILTER_CLASS, _L,
    "TopicFilter to use. Selects topics to replicate.",
)  # fmt: skip

MIRROR_SOURCE_CONFIG_DEF: Final = _define(BASE_CONNECTOR_CONFIG_DEF.copy(), (
    (TOPICS, Type.LIST, TOPICS_DEFAULT, _H,
     "Topics to replicate. Supports comma-separated topic names and regexes."),
    (TOPICS_EXCLUDE, Type.LIST, TOPICS_EXCLUDE_DEFAULT, _H,
     "Excluded topics. Supports comma-separated topic names and regexes. "
     "Excludes take precedence over includes."),
    (CONFIG_PROPERTIES_EXCLUDE, Type.LIST, CONFIG_PROPERTIES_EXCLUDE_DEFAULT, _H,
     "Topic config properties that should not be replicated. Supports comma-separated "
     "property names and regexes."),
    _TOPIC_FILTER_CLASS_ROW,
    (CONFIG_PROPERTY_FILTER_CLASS, Type.STRING, DEFAULT_CONFIG_PROPERTY_FILTER_CLASS, _L,
     "ConfigPropertyFilter to use. Selects topic config  properties to replicate."),
    _CONSUMER_POLL_TIMEOUT_ROW,
    (REFRESH_TOPICS_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to periodically check for new topics and partitions."),
    (REFRESH_TOPICS_INTERVAL_SECONDS, Type.LONG, 600, _L, "Frequency of topic refresh."),
    (SYNC_TOPIC_CONFIGS_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to periodically configure remote topics to match their corresponding "
     "upstream topics."),
    (SYNC_TOPIC_CONFIGS_INTERVAL_SECONDS, Type.LONG, 600, _L, "Frequency of topic config sync."),
    (SYNC_TOPIC_ACLS_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to periodically configure remote topic ACLs to match their corresponding "
     "upstream topics."),
    (SYNC_TOPIC_ACLS_INTERVAL_SECONDS, Type.LONG, 600, _L, "Frequency of topic ACL sync."),
    (REPLICATION_FACTOR, Type.INT, 2, _L, "Replication factor for newly created remote topics."),
    (OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR, Type.SHORT, 3, _L,
     "Replication factor for offset-syncs topic."),
    (OFFSET_LAG_MAX, Type.LONG, 100, _L,
     "How out-of-sync a remote partition can be before it is resynced."),
    _OFFSET_SYNCS_LOCATION_ROW,
    (EMIT_OFFSET_SYNCS_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to store the new offset of the replicated records in offset-syncs topic or "
     "not. MirrorCheckpointConnector will not be able to sync group offsets or emit "
     "checkpoints if emit.checkpoints.enabled and/or sync.group.offsets.enabled are enabled "
     "while emit.offset-syncs.enabled is disabled."),
    (HEARTBEATS_REPLICATION_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to replicate the heartbeats topics even when the topic filter does not include "
     "them. If set to true, heartbeats topics identified by the replication policy will "
     "always be replicated, regardless of the topic filter configuration. If set to false, "
     "heartbeats topics will only be replicated if the topic filter allows."),
))  # fmt: skip
"""``MirrorSourceConnector`` (Kafka's ``MirrorSourceConfig``)."""

MIRROR_CHECKPOINT_CONFIG_DEF: Final = _define(BASE_CONNECTOR_CONFIG_DEF.copy(), (
    _CONSUMER_POLL_TIMEOUT_ROW,
    (GROUPS, Type.LIST, GROUPS_DEFAULT, _H,
     "Consumer groups to replicate. Supports comma-separated group IDs and regexes."),
    (GROUPS_EXCLUDE, Type.LIST, GROUPS_EXCLUDE_DEFAULT, _H,
     "Exclude groups. Supports comma-separated group IDs and regexes. "
     "Excludes take precedence over includes."),
    (GROUP_FILTER_CLASS, Type.STRING, DEFAULT_GROUP_FILTER_CLASS, _L,
     "GroupFilter to use. Selects consumer groups to replicate."),
    (REFRESH_GROUPS_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to periodically check for new consumer groups."),
    (REFRESH_GROUPS_INTERVAL_SECONDS, Type.LONG, 600, _L, "Frequency of group refresh."),
    (EMIT_CHECKPOINTS_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to replicate consumer offsets to target cluster."),
    (EMIT_CHECKPOINTS_INTERVAL_SECONDS, Type.LONG, 60, _L, "Frequency of checkpoints."),
    (SYNC_GROUP_OFFSETS_ENABLED, Type.BOOLEAN, False, _L,
     "Whether to periodically write the translated offsets to __consumer_offsets topic in "
     "target cluster, as long as no active consumers in that group are connected to the "
     "target cluster"),
    (SYNC_GROUP_OFFSETS_INTERVAL_SECONDS, Type.LONG, 60, _L,
     "Frequency of consumer group offset sync."),
    (CHECKPOINTS_TOPIC_REPLICATION_FACTOR, Type.SHORT, 3, _L,
     "Replication factor for checkpoints topic."),
    _OFFSET_SYNCS_LOCATION_ROW,
    _TOPIC_FILTER_CLASS_ROW,
))  # fmt: skip
"""``MirrorCheckpointConnector`` (Kafka's ``MirrorCheckpointConfig``)."""

MIRROR_HEARTBEAT_CONFIG_DEF: Final = _define(BASE_CONNECTOR_CONFIG_DEF.copy(), (
    (EMIT_HEARTBEATS_ENABLED, Type.BOOLEAN, True, _L,
     "Whether to emit heartbeats to target cluster."),
    (EMIT_HEARTBEATS_INTERVAL_SECONDS, Type.LONG, 1, _L, "Frequency of heartbeats."),
    (HEARTBEATS_TOPIC_REPLICATION_FACTOR, Type.SHORT, 3, _L,
     "Replication factor for heartbeats topic."),
))  # fmt: skip
"""``MirrorHeartbeatConnector`` (Kafka's ``MirrorHeartbeatConfig``)."""

CONNECTOR_CONFIG_DEFS: Final[Mapping[str, ConfigDef]] = {
    MIRROR_SOURCE_CONNECTOR: MIRROR_SOURCE_CONFIG_DEF,
    MIRROR_HEARTBEAT_CONNECTOR: MIRROR_HEARTBEAT_CONFIG_DEF,
    MIRROR_CHECKPOINT_CONNECTOR: MIRROR_CHECKPOINT_CONFIG_DEF,
}

CONNECTOR_CONFIG_NAMES: Final = frozenset(
    name for d in CONNECTOR_CONFIG_DEFS.values() for name in d.names()
) | frozenset(DEPRECATED_ALIASES)
"""Top-level mm2.properties keys the driver passes to every connector (Kafka's
``allConfigNames()``), plus the 3.x ``*.blacklist`` names."""

MIRROR_MAKER_CONFIG_DEF: Final = _define(ConfigDef(), (
    (CLUSTERS, Type.LIST, NO_DEFAULT, _H, "List of cluster aliases."),
    (ENABLE_INTERNAL_REST, Type.BOOLEAN, False, _H,
     "Whether to bring up an internal-only REST server that allows multi-node clusters to "
     "operate correctly."),
    (CONFIG_PROVIDERS, Type.LIST, "", _L, "Names of ConfigProviders to use."),
    *_CLIENT_SECURITY,
    # Connect's RestServerConfig.addInternalConfig, used by the internal REST server.
    ("listeners", Type.LIST, "http://:8083", _L,
     "List of comma-separated URIs the REST API will listen on."),
    ("rest.advertised.host.name", Type.STRING, None, _L,
     "If this is set, this is the hostname that will be given out to other workers."),
    ("rest.advertised.port", Type.INT, None, _L,
     "If this is set, this is the port that will be given out to other workers."),
    ("rest.advertised.listener", Type.STRING, None, _L,
     "The advertised listener (HTTP or HTTPS) which will be given to other workers."),
    ("access.control.allow.origin", Type.STRING, "", _L,
     "Value to set the Access-Control-Allow-Origin header to for REST API requests."),
    ("access.control.allow.methods", Type.STRING, "", _L,
     "Methods supported for cross origin requests."),
    ("response.http.headers.config", Type.STRING, "", _L,
     "Rules for REST API HTTP response headers."),
    ("ssl.client.auth", Type.STRING, "none", _L,
     "Whether the REST server requests or requires client authentication.",
     ValidString.in_("required", "requested", "none")),
))  # fmt: skip
"""The driver's own top-level settings (Kafka's ``MirrorMakerConfig.config()``)."""

# Top-level prefixes the driver copies into each herder's worker config (Kafka's workerConfig).
WORKER_CONFIG_PREFIXES: Final = (
    "offset.storage", "config.storage", "status.storage", "key.converter", "value.converter",
    "header.converter", "task", "worker", "replication.policy",
)  # fmt: skip


# ---------------------------------------------------------------------------- errors, pairs


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


# Seaway's own settings in mm2.properties (Spark, metrics, canary): never reported unused.
SEAWAY_KEY_PREFIXES: Final = ("spark.", "seaway.")


class MirrorConfigError(ConfigException):
    """An invalid MirrorMaker 2 configuration; the message names the offending key."""


def _key_error(key: str, message: str) -> MirrorConfigError:
    """An error about *key* whose value is not repeated (it may be a secret)."""
    error = MirrorConfigError(message)
    error.name = key
    return error


def _mirror_error(exc: ConfigException, name: str | None = None) -> MirrorConfigError:
    """*exc* as a :class:`MirrorConfigError`, optionally renamed to the key *name*."""
    if exc.name is None:
        return MirrorConfigError(str(exc))
    return MirrorConfigError(name or exc.name, exc.value, exc.reason)


@dataclasses.dataclass(frozen=True, order=True)
class SourceAndTarget:
    """A directed replication flow between two cluster aliases; ``str()`` is ``"A->B"``."""

    source: str
    target: str

    def __str__(self) -> str:
        return f"{self.source}->{self.target}"


# ---------------------------------------------------------------------------- connector configs


def _with_prefix(
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
            k: v for k, v in _with_prefix(originals, cluster_prefix).items()
            if k in CLIENT_CONFIG_NAMES
        }  # fmt: skip
        props.update(_with_prefix(originals, client))
        props.update(_with_prefix(originals, side + client))
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


# ---------------------------------------------------------------------------- driver config


def _as_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    secret = getattr(value, "value", None)  # Password
    if isinstance(secret, str):
        return secret
    return convert_to_string(value) or ""


def _is_client_key(key: str) -> bool:
    """Kafka's ``(^consumer.*|^producer.*|^admin.*)``: a cluster setting for one client type."""
    return key.startswith(("consumer", "producer", "admin"))


def _connector_names(connector_class: str | type) -> tuple[str, str]:
    """(default connector name, class name): Kafka's simple and full class names."""
    if isinstance(connector_class, type):
        cls = connector_class
        return cls.__name__, f"{cls.__module__}.{cls.__qualname__}"
    text = str(connector_class)
    return text.rpartition(":")[2].rpartition(".")[2], text


_Entries = dict[str, tuple[str, str]]  # key -> (value, the mm2.properties key it came from)

_DEFAULT_FILTERS: Final = (
    (TOPIC_FILTER_CLASS, DEFAULT_TOPIC_FILTER_CLASS, filters.DefaultTopicFilter),
    (GROUP_FILTER_CLASS, DEFAULT_GROUP_FILTER_CLASS, filters.DefaultGroupFilter),
    (CONFIG_PROPERTY_FILTER_CLASS, DEFAULT_CONFIG_PROPERTY_FILTER_CLASS,
     filters.DefaultConfigPropertyFilter),
)  # fmt: skip


class MirrorMakerConfig:
    """A driver-mode ``mm2.properties`` (Kafka's ``MirrorMakerConfig``).

    * ``clusters`` lists the aliases; ``<alias>.<setting>`` configures one cluster (its
      ``bootstrap.servers``, security, ``<alias>.consumer.*``/``producer.*``/``admin.*``
      client overrides and Connect worker settings for herders targeting it);
    * top-level connector settings (``topics``, ``tasks.max``, ...) apply to every flow and
      ``<src>-><tgt>.<setting>`` overrides them for one flow;
    * flows are off unless ``<src>-><tgt>.enabled = true``.

    Raises :class:`MirrorConfigError` (a :class:`ConfigException`) naming the bad key.
    """

    def __init__(self, props: Mapping[str, Any]) -> None:
        self._raw: dict[str, str] = {str(k): _as_string(v) for k, v in props.items()}
        try:
            self._values = MIRROR_MAKER_CONFIG_DEF.parse(self._raw)
        except ConfigException as exc:
            raise _mirror_error(exc) from None
        self._clusters = self._parse_clusters(self._values[CLUSTERS])
        for key in self._raw:
            if "->" in key:
                self._check_flow_key(key)
        self._validate_cluster_settings()
        for pair in self.all_pairs():
            self._validate_connector_settings(pair)
        for pair in self.enabled_flows():
            for alias in (pair.source, pair.target):
                self._require_bootstrap(alias, f"the enabled replication flow {pair}")
        ignored = self.ignored_keys()
        if ignored:
            logger.warning("These MirrorMaker settings are not used by any cluster, flow or "
                           "connector: %s", ", ".join(ignored))  # fmt: skip

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> MirrorMakerConfig:
        """Load an ``mm2.properties`` file, its ``${provider:path:key}`` references resolved
        with the providers its ``config.providers*`` settings name (as Kafka's driver does;
        the driver keeps its configuration in memory only)."""
        props = load_properties(path)
        return cls(ConfigTransformer.from_worker(props).transform(props))

    # ------------------------------------------------------------------ parsing and checks

    @staticmethod
    def _parse_clusters(aliases: list[str]) -> list[str]:
        clusters = list(dict.fromkeys(aliases))
        if not clusters:
            raise MirrorConfigError(CLUSTERS, "", "At least one cluster alias is required")
        for alias in clusters:
            if not alias or "->" in alias or any(c.isspace() for c in alias):
                raise MirrorConfigError(
                    CLUSTERS, ", ".join(aliases),
                    f"Invalid cluster alias '{alias}': aliases are comma-separated and may "
                    "contain neither whitespace nor '->'",
                )  # fmt: skip
        return clusters

    def _check_flow_key(self, key: str) -> None:
        """Check both aliases of a ``<src>-><tgt>.<setting>`` key."""
        known = ", ".join(self._clusters)
        source, _, rest = key.partition("->")
        targets = [a for a in self._clusters if rest.startswith(a + ".") and len(rest) > len(a) + 1]
        if source not in self._clusters:
            reason = f"Unknown source cluster alias '{source}' (clusters: {known})"
        elif not targets and rest in self._clusters:
            reason = f"Expected {source}->{rest}.<setting>"
        elif not targets:
            reason = f"Unknown target cluster alias '{rest.split('.', 1)[0]}' (clusters: {known})"
        elif max(targets, key=len) == source:
            reason = f"A replication flow needs two different clusters, not {source}->{source}"
        else:
            return
        raise _key_error(key, f"Invalid configuration {key}: {reason}")

    def _validate_cluster_settings(self) -> None:
        """Type-check ``<alias>.<client setting>`` (bootstrap, security, SSL, SASL)."""
        for alias in self._clusters:
            for name, config_key in CLIENT_CONFIG_DEF.config_keys.items():
                key = f"{alias}.{name}"
                if key in self._raw:
                    try:
                        CLIENT_CONFIG_DEF.parse_value(config_key, self._raw[key], True)
                    except ConfigException as exc:
                        raise _mirror_error(exc, key) from None

    def _validate_connector_settings(self, pair: SourceAndTarget) -> None:
        """Parse the connector configs of *pair* and build its default filters; errors name
        the mm2.properties key that supplied the bad value."""
        entries = self._connector_entries(pair, MIRROR_SOURCE_CONNECTOR)
        values = {k: v for k, (v, _) in entries.items()}

        def renamed(exc: ConfigException) -> MirrorConfigError:
            entry = entries.get(exc.name or "")
            return _mirror_error(exc, entry[1] if entry else None)

        for definition in CONNECTOR_CONFIG_DEFS.values():
            try:
                definition.parse(values)
            except ConfigException as exc:
                raise renamed(exc) from None
        for key, default, filter_class in _DEFAULT_FILTERS:
            if filters.is_default_filter_class(values.get(key), default):
                try:
                    filter_class(values)
                except ConfigException as exc:
                    raise renamed(exc) from None

    def _require_bootstrap(self, alias: str, user: str) -> None:
        if not self.cluster_props(alias).get(BOOTSTRAP_SERVERS, "").strip():
            key = f"{alias}.{BOOTSTRAP_SERVERS}"
            raise _key_error(
                key,
                f'Missing required configuration "{key}" which has no default value: '
                f"cluster {alias} is used by {user}.",
            )

    def _check_alias(self, alias: str) -> None:
        if alias not in self._clusters:
            raise MirrorConfigError(
                f"Unknown cluster alias '{alias}' (clusters: {', '.join(self._clusters)})"
            )

    def _check_pair(self, pair: SourceAndTarget) -> None:
        self._check_alias(pair.source)
        self._check_alias(pair.target)
        if pair.source == pair.target:
            raise MirrorConfigError(f"{pair} is not a replication flow: the clusters are the same")

    # ------------------------------------------------------------------ clusters and flows

    @property
    def raw(self) -> dict[str, str]:
        """A copy of the properties as given (values as strings)."""
        return dict(self._raw)

    @property
    def clusters(self) -> list[str]:
        """The cluster aliases, in the order of ``clusters`` (duplicates dropped)."""
        return list(self._clusters)

    @property
    def enable_internal_rest(self) -> bool:
        """``dedicated.mode.enable.internal.rest``."""
        return bool(self._values[ENABLE_INTERNAL_REST])

    def all_pairs(self) -> list[SourceAndTarget]:
        """Every ordered pair of different clusters, in ``clusters`` order."""
        return [SourceAndTarget(s, t) for s in self._clusters for t in self._clusters if s != t]

    def _flag(self, key: str, default: bool) -> bool:
        value = self._raw.get(key)
        return default if value is None else bool(parse_type(key, value, Type.BOOLEAN))

    def cluster_pairs(self, targets: Iterable[str] | None = None) -> list[SourceAndTarget]:
        """The pairs that get a herder (Kafka's ``clusterPairs``), in ``clusters`` order.

        A pair gets one if ``<src>-><tgt>.enabled`` is true **or** heartbeats are enabled
        for it (``<src>-><tgt>.emit.heartbeats.enabled``, else the top-level
        ``emit.heartbeats.enabled``, default true): with ``A->B`` enabled, herder ``B->A``
        emits the heartbeats that ``A->B`` replicates. So by default every ordered pair is
        listed; :meth:`enabled_flows` gives the ones that replicate data. *targets* (the
        driver's ``--clusters``) keeps only pairs whose target is listed.
        """
        wanted: set[str] | None = None
        if targets is not None:
            wanted = set(targets)
            for alias in wanted:
                self._check_alias(alias)
        beats = self._flag(EMIT_HEARTBEATS_ENABLED, True)
        return [
            pair for pair in self.all_pairs()
            if (wanted is None or pair.target in wanted)
            and (self._flag(f"{pair}.{ENABLED}", False)
                 or self._flag(f"{pair}.{EMIT_HEARTBEATS_ENABLED}", beats))
        ]  # fmt: skip

    def is_enabled(self, pair: SourceAndTarget) -> bool:
        """The ``enabled`` its connectors get: ``<src>-><tgt>.enabled``, else the top-level
        ``enabled``, else false."""
        self._check_pair(pair)
        value = self._flow_props(pair).get(ENABLED, self._raw.get(ENABLED, "false"))
        return bool(parse_type(ENABLED, value, Type.BOOLEAN))

    def enabled_flows(self) -> list[SourceAndTarget]:
        """The herder pairs whose connectors are enabled, i.e. that replicate data."""
        return [pair for pair in self.cluster_pairs() if self.is_enabled(pair)]

    def _flow_props(self, pair: SourceAndTarget) -> dict[str, str]:
        return _with_prefix(self._raw, f"{pair}.")

    # ------------------------------------------------------------------ derived configs

    def _cluster_entries(self, alias: str) -> _Entries:
        prefix = alias + "."
        entries: _Entries = {
            key[len(prefix) :]: (value, key)
            for key, value in self._raw.items()
            if key.startswith(prefix) and len(key) > len(prefix)
        }
        for name in CLIENT_CONFIG_DEF.names():
            if name in entries:
                for client in CLIENT_PREFIXES:
                    entries.setdefault(client + name, entries[name])
        for name in CLIENT_CONFIG_DEF.names():
            if name in self._raw:
                entry = (self._raw[name], name)
                for client in CLIENT_PREFIXES:
                    entries.setdefault(client + name, entry)
                entries.setdefault(name, entry)
        return entries

    def cluster_props(self, alias: str) -> dict[str, str]:
        """One cluster's settings (Kafka's ``clusterProps``): its ``<alias>.*`` entries with
        the prefix removed; its client settings (bootstrap, security, SSL, SASL) also copied
        to ``producer.``/``consumer.``/``admin.`` unless set there; then top-level client
        settings for whatever is still unset, both plain and with those three prefixes."""
        self._check_alias(alias)
        return {key: value for key, (value, _) in self._cluster_entries(alias).items()}

    def client_config(self, alias: str) -> dict[str, str]:
        """Properties for a ``MirrorClient`` on *alias*: everything, overridden by its
        :meth:`cluster_props` (Kafka's ``clientConfig``, without config providers)."""
        return {**self._raw, **self.cluster_props(alias)}

    def _connector_entries(self, pair: SourceAndTarget, connector_class: str | type) -> _Entries:
        raw = self._raw
        entries: _Entries = {k: (v, k) for k, v in raw.items() if k in CONNECTOR_CONFIG_NAMES}
        for prefix in (CONFIG_PROVIDERS, "replication.policy"):
            matching = _with_prefix(raw, prefix, strip=False, allow_equal=True)
            entries.update((k, (v, k)) for k, v in matching.items())
        for alias, cluster_prefix, client_prefix in (
            (pair.source, SOURCE_CLUSTER_PREFIX, SOURCE_PREFIX),
            (pair.target, TARGET_CLUSTER_PREFIX, TARGET_PREFIX),
        ):
            for key, entry in self._cluster_entries(alias).items():
                entries[(client_prefix if _is_client_key(key) else cluster_prefix) + key] = entry
        name, class_name = _connector_names(connector_class)
        for key, value in (
            (NAME, name),
            (CONNECTOR_CLASS, class_name),
            (SOURCE_CLUSTER_ALIAS, pair.source),
            (TARGET_CLUSTER_ALIAS, pair.target),
        ):
            entries.setdefault(key, (value, key))
        entries.update((k, (v, f"{pair}.{k}")) for k, v in self._flow_props(pair).items())
        entries.setdefault(ENABLED, ("false", ENABLED))
        return entries

    def connector_base_config(
        self, pair: SourceAndTarget, connector_class: str | type = MIRROR_SOURCE_CONNECTOR
    ) -> dict[str, str]:
        """The config the driver gives one connector of *pair* (Kafka's ``connectorBaseConfig``).

        In order, later steps winning: top-level connector settings; ``config.providers*``
        and ``replication.policy*``; the source cluster's settings as ``source.cluster.*``
        (``source.consumer.*``, ``source.producer.*``, ``source.admin.*`` for client ones)
        and the target's as ``target.cluster.*``/``target.*``; ``name`` (the class's simple
        name), ``connector.class``, ``source.cluster.alias`` and ``target.cluster.alias``
        unless already set; the ``<src>-><tgt>.*`` overrides; ``enabled=false`` if unset.
        Values are not resolved through config providers.
        """
        self._check_pair(pair)
        return {k: v for k, (v, _) in self._connector_entries(pair, connector_class).items()}

    def connector_configs(self, pair: SourceAndTarget) -> dict[str, dict[str, str]]:
        """The three connectors' configs for *pair*, by connector name, in Kafka's order
        (source, heartbeat, checkpoint)."""
        configs = (self.connector_base_config(pair, cls) for cls in CONNECTOR_CLASSES)
        return {config[NAME]: config for config in configs}

    def worker_config(self, pair: SourceAndTarget) -> dict[str, str]:
        """The Connect worker config of the herder for *pair* (Kafka's ``workerConfig``).

        The target cluster's :meth:`cluster_props`, plus top-level ``offset.storage*``,
        ``config.storage*``, ``status.storage*``, ``key|value|header.converter*``, ``task*``,
        ``worker*``, ``replication.policy*`` and ``config.providers*``; then, unless set:
        ``client.id=<src>-><tgt>``, ``group.id=<src>-mm2``, the internal topics
        ``mm2-offsets.<src>.internal``, ``mm2-status.<src>.internal`` and
        ``mm2-configs.<src>.internal`` (on the target), and ByteArrayConverter for keys,
        values and headers. Raises :class:`MirrorConfigError` if the target has no
        ``bootstrap.servers``.
        """
        self._check_pair(pair)
        self._require_bootstrap(pair.target, f"the herder for {pair}")
        props = self.cluster_props(pair.target)
        for prefix in (*WORKER_CONFIG_PREFIXES, CONFIG_PROVIDERS):
            props.update(_with_prefix(self._raw, prefix, strip=False, allow_equal=True))
        source = pair.source
        for key, value in (
            ("client.id", str(pair)),
            ("group.id", f"{source}-mm2"),
            ("offset.storage.topic", f"mm2-offsets.{source}.internal"),
            ("status.storage.topic", f"mm2-status.{source}.internal"),
            ("config.storage.topic", f"mm2-configs.{source}.internal"),
            ("key.converter", BYTE_ARRAY_CONVERTER),
            ("value.converter", BYTE_ARRAY_CONVERTER),
            ("header.converter", BYTE_ARRAY_CONVERTER),
        ):
            props.setdefault(key, value)
        return props

    def ignored_keys(self) -> list[str]:
        """Top-level keys that no cluster, flow, worker or connector uses (logged as a
        warning). Note that, as in Kafka, top-level ``use.defaults.from`` is among them: it is
        not a connector setting, so only ``<src>-><tgt>.use.defaults.from`` reaches the filter."""
        prefixes = (*WORKER_CONFIG_PREFIXES, CONFIG_PROVIDERS, *(a + "." for a in self._clusters))
        return sorted(
            key for key in self._raw
            if "->" not in key and not key.startswith(prefixes)
            and key not in MIRROR_MAKER_CONFIG_DEF and key not in CONNECTOR_CONFIG_NAMES
            and key not in CLIENT_CONFIG_NAMES
            and not key.startswith(SEAWAY_KEY_PREFIXES)
        )  # fmt: skip

    def __repr__(self) -> str:
        flows = [str(p) for p in self.enabled_flows()]
        return f"MirrorMakerConfig(clusters={self._clusters}, flows={flows})"


__all__ = [
    "BASE_CONNECTOR_CONFIG_DEF",
    "CLIENT_CONFIG_DEF",
    "CONNECTOR_CLASSES",
    "CONNECTOR_CONFIG_DEFS",
    "CONNECTOR_CONFIG_NAMES",
    "MIRROR_CHECKPOINT_CONFIG_DEF",
    "MIRROR_CHECKPOINT_CONNECTOR",
    "MIRROR_HEARTBEAT_CONFIG_DEF",
    "MIRROR_HEARTBEAT_CONNECTOR",
    "MIRROR_MAKER_CONFIG_DEF",
    "MIRROR_SOURCE_CONFIG_DEF",
    "MIRROR_SOURCE_CONNECTOR",
    "MirrorCheckpointConfig",
    "MirrorConfigError",
    "MirrorConnectorConfig",
    "MirrorHeartbeatConfig",
    "MirrorMakerConfig",
    "MirrorSourceConfig",
    "SourceAndTarget",
    "librdkafka_config",
]
