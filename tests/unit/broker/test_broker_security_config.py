"""The broker's security settings: bad listener TLS or SCRAM settings fail at construction,
naming the setting to fix; SCRAM credentials from config are salted, never the password."""

from __future__ import annotations

from pathlib import Path

import pytest

from seaway.broker.broker import Broker
from seaway.broker.scram_users import parse_add_scram
from seaway.config import ConfigException
from seaway.security.scram import MECHANISMS


def test_without_listeners_there_is_one_plaintext_listener_on_host_and_port(
    tmp_path: Path,
) -> None:
    broker = Broker({"log.dirs": str(tmp_path), "port": 9999})
    assert broker.listeners == {"PLAINTEXT": "127.0.0.1:9999"}
    assert broker.bootstrap_servers == "127.0.0.1:9999"


def test_bootstrap_is_the_first_plaintext_listener_and_listener_name_keys_are_kept(
    tmp_path: Path,
) -> None:
    jaas = ("org.apache.kafka.common.security.plain.PlainLoginModule required "
            'user_a="a-secret";')  # fmt: skip
    broker = Broker({
        "log.dirs": str(tmp_path),
        "listeners": "SASL_PLAINTEXT://127.0.0.1:9001,INSIDE://127.0.0.1:9002",
        "listener.security.protocol.map": "SASL_PLAINTEXT:SASL_PLAINTEXT,INSIDE:PLAINTEXT",
        "advertised.listeners": "INSIDE://broker.internal:9092",
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": jaas,
    })  # fmt: skip
    assert broker.bootstrap_servers == "broker.internal:9092"
    assert broker.listeners["SASL_PLAINTEXT"] == "127.0.0.1:9001"
    assert "listener.name.sasl_plaintext.plain.sasl.jaas.config" in broker.config_originals


def test_a_tls_listener_without_a_keystore_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigException,
        match=r"listener.name.ssl.ssl.\* over ssl.\*\) needs a keystore.*set ssl.keystore.location",
    ):
        Broker({"log.dirs": str(tmp_path), "listeners": "SSL://127.0.0.1:0"})


def test_scram_credentials_from_config_are_salted() -> None:
    found = parse_add_scram(
        'SCRAM-SHA-256=[name=alice,password="alice-secret"]; '
        "SCRAM-SHA-512=[name=bob,password=bob-secret,iterations=8192]"
    )
    assert set(found) == {("alice", "SCRAM-SHA-256"), ("bob", "SCRAM-SHA-512")}
    bob = found["bob", "SCRAM-SHA-512"]
    assert bob.iterations == 8192
    salted = MECHANISMS["SCRAM-SHA-512"].salted_password("bob-secret", bob.salt, 8192)
    assert MECHANISMS["SCRAM-SHA-512"].hmac(salted, b"Server Key") == bob.server_key
    assert b"bob-secret" not in bob.to_text().encode()


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("SCRAM-SHA-1=[name=a,password=b]", "Unknown SCRAM mechanism SCRAM-SHA-1"),
        ("SCRAM-SHA-256=[name=a]", "needs a name and a password"),
        ("SCRAM-SHA-256=[name=a,password=b,iterations=10]", "between 4096 and 16384"),
        ("alice:secret", "expected entries like"),
    ],
)
def test_bad_scram_credentials_in_config(value: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigException, match=message):
        Broker({"log.dirs": str(tmp_path), "seaway.scram.credentials": value})
