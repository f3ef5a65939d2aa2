"""Broker configuration, with Kafka's key names (``server.properties``).

Keys that set topic defaults (``log.retention.ms``, ``log.segment.bytes``, ...) are
defined here with the same defaults as their topic-level counterparts in
:mod:`seaway.broker.log.config`.
"""

from __future__ import annotations

import re
import sys

from seaway.broker.coordinator.assignors import assignor_name
from seaway.broker.log.config import TOPIC_CONFIG_DEF, TOPIC_CONFIG_SYNONYMS
from seaway.config import ConfigDef, ConfigException, Importance, LambdaValidator, Range, Type

__all__ = ["ADMIN_LISTENER", "BROKER_CONFIG_DEF", "admin_listener_address"]

ADMIN_LISTENER = "admin.listener"
_ADMIN_LISTENER_FORM = re.compile(r"http://\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)/?", re.IGNORECASE)


def admin_listener_address(value: str | None) -> tuple[str, int] | None:
    """``admin.listener``'s ``(host, port)``, None when unset; ConfigException naming the
    key and the form when malformed."""
    if not value or not value.strip():
        return None
    match = _ADMIN_LISTENER_FORM.fullmatch(value.strip())
    if match is None or int(match.group(2)) > 65535:
        raise ConfigException(
            f"Invalid value {value} for configuration {ADMIN_LISTENER}: expected "
            "http://HOST:PORT, e.g. http://127.0.0.1:9999 (port 0 picks a free port)"
        )
    return match.group(1), int(match.group(2))


def _check_admin_listener(name: str, value: str | None) -> None:
    admin_listener_address(value)


def _check_assignors(name: str, value: list[str]) -> None:
    if not value:
        raise ConfigException(name, value, "name at least one assignor: uniform or range")
    for entry in value:
        try:
            assignor_name(entry)
        except ValueError as e:
            raise ConfigException(name, value, str(e)) from None


# The TLS listeners' settings, as seaway.security.tls reads them (listener.name.<l>.ssl.* over
# these); none has a default.
_SSL_KEYS = (
    ("ssl.keystore.type", Type.STRING, "PEM or PKCS12 (JKS must be converted)."),
    ("ssl.keystore.location", Type.STRING, "The TLS listeners' keystore file."),
    ("ssl.keystore.password", Type.PASSWORD, "The keystore's password."),
    ("ssl.keystore.key", Type.PASSWORD, "The private key as PEM (ssl.keystore.type=PEM)."),
    ("ssl.keystore.certificate.chain", Type.STRING, "The certificate chain as PEM."),
    ("ssl.key.password", Type.PASSWORD, "The private key's password."),
    ("ssl.truststore.type", Type.STRING, "PEM or PKCS12 (JKS must be converted)."),
    ("ssl.truststore.location", Type.STRING, "The CAs client certificates are checked against."),
    ("ssl.truststore.password", Type.PASSWORD, "The truststore's password."),
    ("ssl.truststore.certificates", Type.STRING, "The trusted CAs as PEM."),
    ("ssl.client.auth", Type.STRING, "Client certificates: none, requested or required."),
)


def _broker_config_def() -> ConfigDef:
    d = (
        ConfigDef()
        .define(
            "node.id",
            Type.INT,
            1,
            Range.at_least(0),
            Importance.HIGH,
            "The node id of this broker, as returned in Metadata.",
        )
        .define("host", Type.STRING, "127.0.0.1", None, Importance.HIGH, "Interface to listen on.")
        .define(
            "port",
            Type.INT,
            9092,
            Range.between(0, 65535),
            Importance.HIGH,
            "Port to listen on (0 picks a free port).",
        )
        .define(
            "advertised.host",
            Type.STRING,
            "",
            None,
            Importance.MEDIUM,
            "Host name given to clients in Metadata (default: the listen host).",
        )
        .define(
            "listeners",
            Type.STRING,
            "",
            None,
            Importance.HIGH,
            "NAME://host:port,... to listen on (default: one PLAINTEXT listener on host:port).",
        )
        .define(
            "advertised.listeners",
            Type.STRING,
            "",
            None,
            Importance.HIGH,
            "NAME://host:port,... handed out in Metadata per listener (default: listeners).",
        )
        .define(
            "listener.security.protocol.map",
            Type.STRING,
            "",
            None,
            Importance.LOW,
            "NAME:PROTOCOL,... (default: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL as themselves).",
        )
        .define(
            "sasl.enabled.mechanisms",
            Type.STRING,
            None,
            None,
            Importance.MEDIUM,
            "SASL mechanisms of SASL listeners: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512.",
        )
        .define(
            "seaway.scram.credentials",
            Type.PASSWORD,
            None,
            None,
            Importance.LOW,
            "SCRAM users to add at start, as kafka-storage format --add-scram takes them: "
            "MECHANISM=[name=NAME,password=PASSWORD];... (Seaway's own key).",
        )
        .define(
            ADMIN_LISTENER,
            Type.STRING,
            "",
            LambdaValidator(_check_admin_listener, "http://HOST:PORT or empty"),
            Importance.LOW,
            "Where the broker serves its admin HTTP API (GET /metrics for Prometheus, GET "
            "/api/history), e.g. http://127.0.0.1:9999; empty: not served (Seaway's own key).",
        )
        .define(
            "admin.history.interval.ms",
            Type.LONG,
            5000,
            Range.at_least(10),
            Importance.LOW,
            "How often the admin API samples the metrics it keeps an hour of for /api/history "
            "(Seaway's own key).",
        )
        .define(
            "authorizer.class.name",
            Type.STRING,
            "",
            None,
            Importance.LOW,
            "org.apache.kafka.metadata.authorizer.StandardAuthorizer turns on ACLs (Kafka's "
            "rules; kafka.security.authorizer.AclAuthorizer is taken as the same); empty: off.",
        )
        .define(
            "super.users",
            Type.STRING,
            "",
            None,
            Importance.MEDIUM,
            "Principals allowed everything, separated by ';' (User:admin;User:CN=broker).",
        )
        .define(
            "allow.everyone.if.no.acl.found",
            Type.BOOLEAN,
            False,
            None,
            Importance.MEDIUM,
            "Whether a resource no ACL names is open to everyone (else only to super users).",
        )
        .define(
            "log.dirs",
            Type.STRING,
            "./seaway-data",
            None,
            Importance.HIGH,
            "Directory holding the partitions' logs and the broker's metadata.",
        )
        .define(
            "cluster.id",
            Type.STRING,
            "",
            None,
            Importance.LOW,
            "Cluster id to use when the data directory is new (default: random).",
        )
        .define(
            "num.partitions",
            Type.INT,
            1,
            Range.at_least(1),
            Importance.MEDIUM,
            "Partitions of an auto-created topic or a CreateTopics without a count.",
        )
        .define(
            "auto.create.topics.enable",
            Type.BOOLEAN,
            True,
            None,
            Importance.HIGH,
            "Create a topic on Metadata for an unknown topic when the client allows it.",
        )
        .define(
            "default.replication.factor",
            Type.SHORT,
            1,
            Range.between(1, 1),
            Importance.MEDIUM,
            "Replication factor of auto-created topics (one node: 1).",
        )
        .define(
            "delete.topic.enable",
            Type.BOOLEAN,
            True,
            None,
            Importance.HIGH,
            "Whether DeleteTopics is allowed.",
        )
        .define(
            "group.initial.rebalance.delay.ms",
            Type.INT,
            3000,
            Range.at_least(0),
            Importance.MEDIUM,
            "How long the first rebalance of an empty group waits for more members to join.",
        )
        .define(
            "group.min.session.timeout.ms",
            Type.INT,
            6000,
            Range.at_least(0),
            Importance.MEDIUM,
            "Smallest session timeout a member may ask for.",
        )
        .define(
            "group.max.session.timeout.ms",
            Type.INT,
            1800000,
            Range.at_least(0),
            Importance.MEDIUM,
            "Largest session timeout a member may ask for.",
        )
        .define(
            "group.max.size",
            Type.INT,
            2147483647,
            Range.at_least(1),
            Importance.MEDIUM,
            "Maximum members in one consumer group.",
        )
        .define(
            "group.consumer.session.timeout.ms",
            Type.INT,
            45000,
            Range.at_least(1),
            Importance.MEDIUM,
            "Consumer group protocol (KIP-848): a member is fenced after this long without a "
            "heartbeat.",
        )
        .define(
            "group.consumer.heartbeat.interval.ms",
            Type.INT,
            5000,
            Range.at_least(1),
            Importance.MEDIUM,
            "Consumer group protocol: how often members heartbeat (under the session timeout).",
        )
        .define(
            "group.consumer.assignors",
            Type.LIST,
            "uniform,range",
            LambdaValidator(_check_assignors, "uniform, range (or Kafka's class names)"),
            Importance.MEDIUM,
            "Consumer group protocol: the server-side assignors, by name or Kafka's class name; "
            "the first is the default.",
        )
        .define(
            "group.consumer.max.size",
            Type.INT,
            2147483647,
            Range.at_least(1),
            Importance.MEDIUM,
            "Consumer group protocol: maximum members in one consumer group.",
        )
        .define(
            "offsets.retention.minutes",
            Type.INT,
            10080,
            Range.at_least(1),
            Importance.HIGH,
            "Committed offsets of an empty group expire after this.",
        )
        .define(
            "offsets.retention.check.interval.ms",
            Type.LONG,
            600000,
            Range.at_least(1),
            Importance.HIGH,
            "How often expired offsets are removed.",
        )
        .define(
            "offsets.topic.num.partitions",
            Type.INT,
            50,
            Range.at_least(1),
            Importance.HIGH,
            "Partitions of __consumer_offsets, created at the first start (later changes are "
            "not applied to an existing topic).",
        )
        .define(
            "offset.metadata.max.bytes",
            Type.INT,
            4096,
            Range.at_least(0),
            Importance.HIGH,
            "Largest metadata string allowed with a committed offset.",
        )
        .define(
            "log.retention.check.interval.ms",
            Type.LONG,
            300000,
            Range.at_least(1),
            Importance.MEDIUM,
            "How often segments are checked for deletion.",
        )
        .define(
            "log.cleaner.enable",
            Type.BOOLEAN,
            True,
            None,
            Importance.MEDIUM,
            "Run the log cleaner, which compacts cleanup.policy=compact topics.",
        )
        .define(
            "log.cleaner.threads",
            Type.INT,
            1,
            Range.at_least(0),
            Importance.MEDIUM,
            "Logs cleaned at the same time (each by a worker thread).",
        )
        .define(
            "log.cleaner.dedupe.buffer.size",
            Type.LONG,
            134217728,
            Range.at_least(16),
            Importance.MEDIUM,
            "Memory for the cleaners' key maps, shared by the threads (16 bytes a key); "
            "a dirty section with more keys is cleaned in parts.",
        )
        .define(
            "log.cleaner.io.buffer.size",
            Type.INT,
            524288,
            Range.at_least(0),
            Importance.MEDIUM,
            "Memory for the cleaners' read buffers, shared by the threads.",
        )
        .define(
            "log.cleaner.io.buffer.load.factor",
            Type.DOUBLE,
            0.9,
            Range.between(0.01, 1),
            Importance.MEDIUM,
            "How full a cleaner's key map may get.",
        )
        .define(
            "log.cleaner.backoff.ms",
            Type.LONG,
            15000,
            Range.at_least(0),
            Importance.MEDIUM,
            "How long the cleaner sleeps when no log needs cleaning.",
        )
        .define(
            "log.cleaner.io.max.bytes.per.second",
            Type.DOUBLE,
            sys.float_info.max,
            Range.at_least(1),
            Importance.MEDIUM,
            "The log cleaner will be throttled so that the sum of its read and write i/o will "
            "be less than this value on average (default: unlimited).",
        )
        .define(
            "quota.window.num",
            Type.INT,
            11,
            Range.at_least(1),
            Importance.LOW,
            "The number of samples to retain in memory for client quotas.",
        )
        .define(
            "quota.window.size.seconds",
            Type.INT,
            1,
            Range.at_least(1),
            Importance.LOW,
            "The time span of each sample for client quotas.",
        )
        .define(
            "log.flush.scheduler.interval.ms",
            Type.LONG,
            1000,
            Range.at_least(1),
            Importance.HIGH,
            "How often logs are checked against flush.ms.",
        )
        .define(
            "socket.request.max.bytes",
            Type.INT,
            104857600,
            Range.at_least(1),
            Importance.HIGH,
            "Largest request frame accepted; larger closes the connection.",
        )
        .define(
            "transaction.max.timeout.ms",
            Type.INT,
            900000,
            Range.at_least(1),
            Importance.HIGH,
            "Largest transaction.timeout.ms a producer may ask for.",
        )
        .define(
            "transaction.abort.timed.out.transaction.cleanup.interval.ms",
            Type.INT,
            10000,
            Range.at_least(1),
            Importance.LOW,
            "How often transactions open longer than their timeout are aborted.",
        )
        .define(
            "producer.id.expiration.ms",
            Type.INT,
            86400000,
            Range.at_least(1),
            Importance.LOW,
            "Idle producer ids are forgotten after this.",
        )
    )
    for name, type_, doc in _SSL_KEYS:
        d.define(name, type_, None, None, Importance.MEDIUM, doc)
    for topic_key, broker_key in TOPIC_CONFIG_SYNONYMS.items():
        if broker_key in d.config_keys:
            continue
        key = TOPIC_CONFIG_DEF.config_keys[topic_key]
        d.define(
            broker_key,
            key.type,
            key.default_value,
            key.validator,
            key.importance,
            f"Default for the topic config {topic_key}: {key.documentation}",
        )
    return d


BROKER_CONFIG_DEF = _broker_config_def()
