"""TLS settings as the REST API reads them (listeners.https.ssl.* or else ssl.*), and errors
that say what to set (a JKS store, an https listener without a keystore, both listener
kinds at once)."""

from __future__ import annotations

import pytest

from seaway.config import ConfigException
from seaway.connect.rest.server import RestServer
from seaway.security.tls import TlsSettings


def test_prefixed_settings_all_or_nothing() -> None:
    """Kafka's ``valuesWithPrefixAllOrNothing``: one prefixed key and the worker's ssl.*
    are ignored entirely; none and they apply."""
    worker = {"ssl.keystore.location": "/a.p12", "ssl.truststore.location": "/t.pem",
              "bootstrap.servers": "x:9092"}  # fmt: skip
    settings = TlsSettings.of_worker({**worker, "listeners.https.ssl.keystore.location": "/b.p12"})
    assert settings.values == {"ssl.keystore.location": "/b.p12"}
    unprefixed = TlsSettings.of_worker(worker).values
    assert unprefixed == {"ssl.keystore.location": "/a.p12", "ssl.truststore.location": "/t.pem"}
    admin = TlsSettings.of_worker(
        {**worker, "admin.listeners.https.ssl.keystore.location": "/c.p12"},
        "admin.listeners.https.",
    )
    assert admin.values == {"ssl.keystore.location": "/c.p12"}


def test_clear_errors() -> None:
    with pytest.raises(ConfigException, match="keytool -importkeystore"):
        TlsSettings({"ssl.keystore.location": "/etc/kafka/connect.jks"}).server_context()
    with pytest.raises(ConfigException, match="needs a keystore"):
        RestServer(None, listeners="https://127.0.0.1:0")
    with pytest.raises(ConfigException, match="not both at once"):
        RestServer(None, listeners="http://127.0.0.1:0,https://127.0.0.1:0")
    with pytest.raises(ConfigException, match="Seaway has is"):
        RestServer(None, listeners="http://127.0.0.1:0", extensions=["com.example.Ext"])
