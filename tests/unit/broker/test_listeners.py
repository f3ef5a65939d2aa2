"""The broker's listener configs, read with Kafka's rules and messages."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from seaway.broker.listeners import Listener, parse_listeners
from seaway.config import ConfigException

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule"
NO_JAAS: dict[str, str] = {}


def _one(config: dict[str, Any], environ: dict[str, str] | None = None) -> Listener:
    (listener,) = parse_listeners(config, NO_JAAS if environ is None else environ)
    return listener


def _addresses(config: dict[str, Any]) -> list[tuple[str, str, str, int, str, int]]:
    return [
        (x.name, x.protocol, x.host, x.port, x.advertised_host, x.advertised_port)
        for x in parse_listeners(config, NO_JAAS)
    ]


def _jaas_env(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "kafka_server_jaas.conf"
    path.write_text(text, encoding="utf-8")
    return {"KAFKA_OPTS": f"-Xmx1g -Djava.security.auth.login.config={path} -Dx=y"}


def test_without_listeners_one_plaintext_listener_on_host_and_port() -> None:
    config = {"host": "10.0.0.5", "port": 9093}
    assert _addresses(config) == [("PLAINTEXT", "PLAINTEXT", "10.0.0.5", 9093, "10.0.0.5", 9093)]
    assert _addresses({}) == [("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 9092, "127.0.0.1", 9092)]
    listener = _one(config)
    assert not listener.tls and not listener.sasl and listener.mechanisms == ()
    assert listener.plain_users is None
    # advertised.host is what clients are told, as before listeners existed
    assert _one({"port": 0, "advertised.host": "broker-1"}).advertised_host == "broker-1"


def test_several_listeners_with_the_protocol_map() -> None:
    config = {
        "listeners": "internal://:9092, EXTERNAL://0.0.0.0:9093,REPLICATION://localhost:9094",
        "listener.security.protocol.map": "INTERNAL:plaintext,external:SSL,REPLICATION:SSL",
    }
    assert _addresses(config) == [
        ("INTERNAL", "PLAINTEXT", "", 9092, "127.0.0.1", 9092),
        ("EXTERNAL", "SSL", "0.0.0.0", 9093, "127.0.0.1", 9093),
        ("REPLICATION", "SSL", "localhost", 9094, "localhost", 9094),
    ]
    assert [x.tls for x in parse_listeners(config, NO_JAAS)] == [False, True, True]


def test_names_equal_to_a_protocol_need_no_map_entry_while_the_map_is_unset() -> None:
    config = {
        "listeners": "PLAINTEXT://:0,SSL://:0,sasl_ssl://:0,SASL_PLAINTEXT://:0",
        "sasl.enabled.mechanisms": "SCRAM-SHA-256",
    }
    protocols = [x.protocol for x in parse_listeners(config, NO_JAAS)]
    assert protocols == ["PLAINTEXT", "SSL", "SASL_SSL", "SASL_PLAINTEXT"]


def test_advertised_listeners_explicit_and_defaulted() -> None:
    config = {
        "listeners": "INTERNAL://0.0.0.0:9092,EXTERNAL://:9093,LOCAL://[::1]:9094",
        "listener.security.protocol.map": "INTERNAL:PLAINTEXT,EXTERNAL:SSL,LOCAL:PLAINTEXT",
        "advertised.listeners": "EXTERNAL://kafka.example.com:19093,INTERNAL://:9092",
    }
    assert _addresses(config) == [
        ("INTERNAL", "PLAINTEXT", "0.0.0.0", 9092, "127.0.0.1", 9092),
        ("EXTERNAL", "SSL", "", 9093, "kafka.example.com", 19093),
        ("LOCAL", "PLAINTEXT", "::1", 9094, "::1", 9094),
    ]
    hosts = [x.advertised_host for x in parse_listeners({**config, "advertised.host": "b1"})]
    assert hosts == ["b1", "kafka.example.com", "b1"]
    # advertised listeners may share a port (a load balancer in front of two listeners)
    lb = "INTERNAL://lb:9000,EXTERNAL://lb:9000"
    assert _addresses({**config, "advertised.listeners": lb})[1][4:] == ("lb", 9000)


def test_a_wildcard_bind_host_advertises_advertised_host_or_loopback() -> None:
    assert _one({"listeners": "PLAINTEXT://[::]:9092"}).advertised_host == "127.0.0.1"
    listener = _one({"listeners": "PLAINTEXT://0.0.0.0:0", "advertised.host": "broker-1"})
    assert (listener.host, listener.advertised_host) == ("0.0.0.0", "broker-1")


def test_ipv6_and_a_shared_port_on_ipv4_and_ipv6() -> None:
    config = {
        "listeners": "PLAINTEXT://127.0.0.1:9092,SSL://[::1]:9092",
        "advertised.listeners": "SSL://[::1]:9092",
    }
    assert _addresses(config) == [
        ("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 9092, "127.0.0.1", 9092),
        ("SSL", "SSL", "::1", 9092, "::1", 9092),
    ]


def test_with_port_fills_in_the_port_the_system_chose() -> None:
    listener = _one({"listeners": "PLAINTEXT://localhost:0"}).with_port(40123)
    assert (listener.port, listener.advertised_port) == (40123, 40123)
    config = {"listeners": "PLAINTEXT://:0", "advertised.listeners": "PLAINTEXT://lb:9000"}
    assert _one(config).with_port(40123).advertised_port == 9000


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"listeners": "PLAINTEXT://localhost"},
            "Invalid value PLAINTEXT://localhost for configuration listeners: Unable to parse "
            "PLAINTEXT://localhost to a broker endpoint; expected NAME://host:port",
        ),
        ({"listeners": "localhost:9092"}, "Unable to parse localhost:9092 to a broker endpoint"),
        ({"listeners": "PLAINTEXT://a b:9092"}, "Unable to parse PLAINTEXT://a b:9092"),
        ({"listeners": "PLAINTEXT://:70000"}, "Unable to parse PLAINTEXT://:70000"),
        (
            {"advertised.listeners": "PLAINTEXT://host:port"},
            "configuration advertised.listeners: Unable to parse PLAINTEXT://host:port",
        ),
        (
            {"listeners": "PLAINTEXT://:9092,plaintext://:9093"},
            "Each listener must have a different name, listeners: PLAINTEXT://:9092,plaintext",
        ),
        (
            {"advertised.listeners": "PLAINTEXT://a:1,PLAINTEXT://b:2"},
            "advertised.listeners: Each listener must have a different name",
        ),
        (
            {"listeners": "PLAINTEXT://:9092,SSL://localhost:9092"},
            "configuration listeners: Each listener must have a different port, listeners: "
            "PLAINTEXT://:9092,SSL://localhost:9092 .two may share port 9092 only if one has "
            "an IPv4 address and the other an IPv6 address.",
        ),
        (
            {"listeners": "PLAINTEXT://127.0.0.1:9092,SSL://10.0.0.1:9092"},
            "Each listener must have a different port",
        ),
        (
            {"listeners": "PLAINTEXT://:9092", "advertised.listeners": "SSL://b:9093"},
            "advertised.listeners listener names must be equal to or a subset of the ones "
            "defined in listeners. Found SSL. The valid options based on the current "
            "configuration are PLAINTEXT",
        ),
        (
            {"advertised.listeners": "PLAINTEXT://0.0.0.0:9092"},
            "advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a "
            "routable IP address.",
        ),
        (
            {"listeners": "PLAINTEXT://:9092,INTERNAL://:9093"},
            "No security protocol defined for listener INTERNAL: add INTERNAL:<protocol> .one "
            "of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL. to listener.security.protocol.map",
        ),
        (  # an explicit map replaces the default one
            {
                "listeners": "PLAINTEXT://:9092,INTERNAL://:9093",
                "listener.security.protocol.map": "INTERNAL:SSL",
            },
            "No security protocol defined for listener PLAINTEXT",
        ),
        (
            {"listener.security.protocol.map": "PLAINTEXT:TLS"},
            "Invalid security protocol `TLS` defined in listener.security.protocol.map: use one "
            "of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL",
        ),
        (
            {"listener.security.protocol.map": "PLAINTEXT"},
            "configuration listener.security.protocol.map: expected NAME:PROTOCOL, got 'PLAINTEXT'",
        ),
    ],
)
def test_listener_errors(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigException, match=message):
        parse_listeners(config, NO_JAAS)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"listeners": "SASL_PLAINTEXT://:9092"},
            "Invalid value GSSAPI for configuration sasl.enabled.mechanisms: SASL mechanism "
            "GSSAPI is not supported .GSSAPI is Kafka's default.: set sasl.enabled.mechanisms "
            "to some of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512",
        ),
        (
            {
                "listeners": "CLIENT://:9092",
                "listener.security.protocol.map": "CLIENT:SASL_SSL",
                "sasl.enabled.mechanisms": "PLAIN",
                "listener.name.client.sasl.enabled.mechanisms": "SCRAM-SHA-256,OAUTHBEARER",
            },
            "Invalid value SCRAM-SHA-256,OAUTHBEARER for configuration "
            "listener.name.client.sasl.enabled.mechanisms: SASL mechanism OAUTHBEARER is not "
            "supported: set listener.name.client.sasl.enabled.mechanisms to some of",
        ),
        (
            {"listeners": "SASL_SSL://:9092", "sasl.enabled.mechanisms": " , "},
            "listener SASL_SSL uses SASL but enables no mechanism: set sasl.enabled.mechanisms",
        ),
        (
            {"listeners": "SASL_SSL://:9092", "sasl.enabled.mechanisms": "PLAIN"},
            "Could not find a 'KafkaServer' or 'sasl_ssl.KafkaServer' entry in the JAAS "
            "configuration. System property 'java.security.auth.login.config' is not set: set "
            "listener.name.sasl_ssl.plain.sasl.jaas.config or KAFKA_OPTS=",
        ),
        (
            {
                "listeners": "SASL_SSL://:9092",
                "sasl.enabled.mechanisms": "PLAIN",
                "listener.name.sasl_ssl.plain.sasl.jaas.config": f'{PLAIN} required username="a";',
            },
            "Listener SASL_SSL enables PLAIN but has no users: set "
            f"listener.name.sasl_ssl.plain.sasl.jaas.config={PLAIN} required "
            'user_alice="alice-secret";',
        ),
        (  # a JAAS entry of another login module has no PLAIN users either
            {
                "listeners": "SASL_SSL://:9092",
                "sasl.enabled.mechanisms": "PLAIN",
                "listener.name.sasl_ssl.plain.sasl.jaas.config": f'{SCRAM} required user_a="a";',
            },
            "Listener SASL_SSL enables PLAIN but has no users",
        ),
    ],
)
def test_sasl_errors(config: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigException, match=message):
        parse_listeners(config, NO_JAAS)


def test_sasl_listener_with_scram_only_needs_no_jaas() -> None:
    config = {"listeners": "SASL_PLAINTEXT://:0", "sasl.enabled.mechanisms": ["SCRAM-SHA-512"]}
    listener = _one(config)
    assert listener.sasl and not listener.tls
    assert (listener.mechanisms, listener.plain_users) == (("SCRAM-SHA-512",), None)


def test_per_listener_settings_override_plain_ones() -> None:
    config = {
        "listeners": "INTERNAL://:9092,EXTERNAL://:9093",
        "listener.security.protocol.map": "INTERNAL:SSL,EXTERNAL:SSL",
        "ssl.keystore.location": "/etc/kafka/broker.p12",
        "ssl.client.auth": "none",
        "listener.name.external.ssl.client.auth": "required",
        "listener.name.internal.ssl.keystore.location": "/etc/kafka/internal.p12",
    }
    internal, external = parse_listeners(config, NO_JAAS)
    assert internal.settings["ssl.keystore.location"] == "/etc/kafka/internal.p12"
    assert internal.settings["ssl.client.auth"] == "none"
    assert external.settings["ssl.keystore.location"] == "/etc/kafka/broker.p12"
    assert external.settings["ssl.client.auth"] == "required"
    assert not any(key.startswith("listener.name.") for key in external.settings)


def test_plain_users_from_the_listener_jaas_config() -> None:
    config = {
        "listeners": "SASL_SSL://:0",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
        "listener.name.sasl_ssl.plain.sasl.jaas.config": (
            f'{PLAIN} required username="admin" password="admin-secret" '
            'user_admin="admin-secret" user_alice="alice-secret";'
        ),
    }
    listener = _one(config)
    assert listener.mechanisms == ("PLAIN", "SCRAM-SHA-256")
    assert listener.plain_users == {"admin": "admin-secret", "alice": "alice-secret"}
    assert listener.settings["plain.sasl.jaas.config"].startswith(PLAIN)


def test_plain_users_from_the_jaas_file_listener_context_first(tmp_path: Path) -> None:
    environ = _jaas_env(
        tmp_path,
        f'KafkaServer {{ {PLAIN} required user_alice="kafka-server"; }};\n'
        f'client.KafkaServer {{ {PLAIN} required user_alice="client-context"; }};\n',
    )
    config = {
        "listeners": "CLIENT://:9092,SASL_PLAINTEXT://:9093",
        "listener.security.protocol.map": "CLIENT:SASL_SSL,SASL_PLAINTEXT:SASL_PLAINTEXT",
        "sasl.enabled.mechanisms": "PLAIN",
    }
    client, other = parse_listeners(config, environ)
    assert client.plain_users == {"alice": "client-context"}
    assert other.plain_users == {"alice": "kafka-server"}
    # a listener's own sasl.jaas.config wins over the file
    inline = f'{PLAIN} required user_bob="inline";'
    config["listener.name.client.plain.sasl.jaas.config"] = inline
    assert parse_listeners(config, environ)[0].plain_users == {"bob": "inline"}


def test_a_listener_context_without_plain_does_not_fall_back(tmp_path: Path) -> None:
    environ = _jaas_env(
        tmp_path,
        f'KafkaServer {{ {PLAIN} required user_alice="a"; }};\n'
        f"sasl_ssl.KafkaServer {{ {SCRAM} required; }};\n",
    )
    config = {"listeners": "SASL_SSL://:9092", "sasl.enabled.mechanisms": "PLAIN"}
    with pytest.raises(ConfigException, match="Listener SASL_SSL enables PLAIN but has no users"):
        parse_listeners(config, environ)


def test_a_jaas_file_without_a_kafka_server_context(tmp_path: Path) -> None:
    environ = _jaas_env(tmp_path, f'KafkaClient {{ {PLAIN} required username="a"; }};')
    config = {"listeners": "SASL_SSL://:9092", "sasl.enabled.mechanisms": "PLAIN"}
    path = tmp_path / "kafka_server_jaas.conf"
    with pytest.raises(ConfigException, match=f"System property '[^']+' is {path}: set"):
        parse_listeners(config, environ)
    missing = {"KAFKA_OPTS": f"-Djava.security.auth.login.config={tmp_path / 'none.conf'}"}
    with pytest.raises(ConfigException, match="Cannot read the JAAS file"):
        parse_listeners(config, missing)


def test_an_unprefixed_sasl_jaas_config_is_ignored_with_kafkas_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = {
        "listeners": "SASL_SSL://:0",
        "sasl.enabled.mechanisms": "PLAIN",
        "sasl.jaas.config": f'{PLAIN} required user_eve="eve";',
        "listener.name.sasl_ssl.plain.sasl.jaas.config": f'{PLAIN} required user_alice="a";',
    }
    with caplog.at_level(logging.WARNING, logger="seaway.broker.listeners"):
        assert _one(config).plain_users == {"alice": "a"}
    assert not caplog.records
    del config["listener.name.sasl_ssl.plain.sasl.jaas.config"]
    with (
        caplog.at_level(logging.WARNING, logger="seaway.broker.listeners"),
        pytest.raises(ConfigException, match="Could not find a 'KafkaServer'"),
    ):
        parse_listeners(config, NO_JAAS)
    assert "should be prefixed with SASL mechanism name, ignoring config" in caplog.text
