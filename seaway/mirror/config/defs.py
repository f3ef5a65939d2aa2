"""MirrorMaker 2's config keys: Kafka's names (4.0), the connector classes, the prefixes of
``mm2.properties``, and the ConfigDefs of the connectors and the driver, declared as tables of
rows (name, type, default, importance, doc[, validator]). Class-valued settings
(``replication.policy.class``, ``*.filter.class``, ...) are strings holding Kafka's class names."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from seaway.config import (
    NO_DEFAULT,
    CaseInsensitiveValidString,
    ConfigDef,
    Importance,
    Range,
    Type,
    ValidString,
)
from seaway.connect.runtime.connector_config import COMMON_CONFIG_DEF
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

# Top-level prefixes the driver copies into each herder's worker config (Kafka's workerConfig).
WORKER_CONFIG_PREFIXES: Final = (
    "offset.storage", "config.storage", "status.storage", "key.converter", "value.converter",
    "header.converter", "task", "worker", "replication.policy",
)  # fmt: skip

# Seaway's own settings in mm2.properties (Spark, metrics, canary): never reported unused.
SEAWAY_KEY_PREFIXES: Final = ("spark.", "seaway.")

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
