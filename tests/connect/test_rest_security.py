"""A secured REST API on a cluster of two workers: HTTPS listeners (``listeners=https://...``
with ``listeners.https.ssl.*``, one worker with a PKCS12 keystore and one with a PEM keystore)
and HTTP basic authentication with Kafka's BasicAuthSecurityRestExtension and a JAAS file
from KAFKA_OPTS. A request sent to either worker is forwarded to the leader over TLS with its
credentials; the workers' signed internal requests (task configs) pass; anonymous or wrong
credentials get 401, plain HTTP and clients that do not trust the certificate are refused.
One worker puts its admin endpoints on a separate ``admin.listeners`` listener."""

from __future__ import annotations

import base64
import os
import ssl
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.connect.test_worker_recovery import _create_topic
from tests.connect.workers import Rest, wait_for
from tests.embedded import EmbeddedConnectCluster

pytestmark = pytest.mark.waits

EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"


def _certificate(folder: Path) -> tuple[Path, Path, Path]:
    """A self-signed certificate for 127.0.0.1: (key+cert PEM, PKCS12, cert PEM)."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True)  # fmt: skip
    pem = folder / "keystore.pem"
    pem.write_bytes(key.read_bytes() + cert.read_bytes())
    p12 = folder / "keystore.p12"
    subprocess.run(["openssl", "pkcs12", "-export", "-inkey", str(key), "-in", str(cert),
                    "-out", str(p12), "-passout", "pass:store-secret"], check=True,
                   capture_output=True)  # fmt: skip
    return pem, p12, cert


def _basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def _jaas_env(folder: Path) -> dict[str, str]:
    """KAFKA_OPTS naming a JAAS file whose login module reads two users from a file."""
    users = folder / "connect.password"
    users.write_text("admin: admin-secret\nops=ops-secret\n", encoding="utf-8")
    jaas = folder / "connect_jaas.conf"
    jaas.write_text(f'KafkaConnect {{\n  {MODULE} required\n  file="{users}";\n}};\n',
                    encoding="utf-8")  # fmt: skip
    return {**os.environ, "KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"}


def test_https_and_basic_auth_on_a_cluster(
    tmp_path: Path, connect_cluster: Callable[..., EmbeddedConnectCluster]
) -> None:
    pem, p12, cert = _certificate(tmp_path)
    pkcs12 = {"listeners.https.ssl.keystore.type": "PKCS12",
              "listeners.https.ssl.keystore.location": str(p12),
              "listeners.https.ssl.keystore.password": "store-secret"}  # fmt: skip
    pem_store = {"listeners.https.ssl.keystore.type": "PEM",
                 "listeners.https.ssl.keystore.location": str(pem)}  # fmt: skip
    cluster = connect_cluster(
        2,
        env=_jaas_env(tmp_path),
        per_worker=[{**pkcs12, "admin.listeners": "http://127.0.0.1:0"}, pem_store],
        **{
            "listeners": "https://127.0.0.1:0",
            "listeners.https.ssl.truststore.type": "PEM",
            "listeners.https.ssl.truststore.location": str(cert),
            "rest.extension.classes": EXTENSION,
        },
    )
    one, two = (w.rest for w in cluster.workers)
    assert one is not None and two is not None
    assert one.url.startswith("https://") and two.url.startswith("https://")
    trusting = ssl.create_default_context(cafile=str(cert))

    for rest in (Rest(one.url, context=trusting), Rest(one.url, _basic("admin", "nope"), trusting)):
        status, body, headers = rest.call("GET", "/connectors")
        assert (status, body) == (401, "User cannot access the resource.")
        assert "WWW-Authenticate" not in headers  # Kafka's filter sets none
    admin = [Rest(w.url, _basic("admin", "admin-secret"), trusting) for w in (one, two)]
    ops = Rest(two.url, _basic("ops", "ops-secret"), trusting)
    assert admin[0].ok("GET", "/connectors") == []

    # admin.listeners: worker one serves /admin/* only on its own listener, which REST
    # extensions do not guard (Kafka's behaviour); worker two on its main listeners, guarded.
    assert admin[0].call("GET", "/admin/loggers")[0] == 404
    log = cluster.workers[0].log.read_text(errors="replace")
    admin_url = log.split("Admin REST endpoints (/admin/*) at ", 1)[1].split()[0]
    assert "root" in Rest(admin_url).ok("GET", "/admin/loggers")
    assert Rest(admin_url).call("GET", "/connectors")[0] == 404
    assert "root" in admin[1].ok("GET", "/admin/loggers")
    assert Rest(two.url, context=trusting).call("GET", "/admin/loggers")[0] == 401

    # Whichever worker leads, writes sent to either are forwarded to the leader over TLS
    # with their credentials; its task configs reach the followers as signed requests.
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n", encoding="utf-8")
    _create_topic(cluster.bootstrap, "lines")
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": "lines"}
    ops.ok("POST", "/connectors", {"name": "lines", "config": config})
    admin[0].ok("PUT", "/connectors/lines2/config", {**config, "topic": "lines2"})
    wait_for("both connectors running", lambda: all(
        (s := admin[1].get(f"/connectors/{n}/status")[1]) and s.get("tasks")
        and s["tasks"][0]["state"] == "RUNNING" for n in ("lines", "lines2")),
        timeout=240)  # fmt: skip
    assert Rest(two.url, context=trusting).call("GET", "/connectors/lines/status")[0] == 401

    # A client that does not trust the certificate, and plain HTTP to the HTTPS port.
    with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
        urllib.request.urlopen(one.url + "/connectors", timeout=30)
    plain = one.url.replace("https://", "http://") + "/connectors"
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        urllib.request.urlopen(plain, timeout=30)
