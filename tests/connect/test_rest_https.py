"""The REST API over HTTPS (``listeners=https://...`` with ``listeners.https.ssl.*``): two
workers, one with a PKCS12 keystore and one with a PEM keystore, a request sent to either
forwarded to the leader over TLS, plain HTTP and clients that do not trust the certificate
refused."""

from __future__ import annotations

import ssl
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.connect.test_worker_recovery import _create_topic
from tests.connect.workers import Rest, WorkerProcess, distributed_props, wait_for


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


def test_https_listeners_on_a_cluster(tmp_path: Path, bootstrap: str, topic_name: str) -> None:
    pem, p12, cert = _certificate(tmp_path)
    common = distributed_props(bootstrap, topic_name, **{
        "listeners": "https://127.0.0.1:0",
        "listeners.https.ssl.truststore.type": "PEM",
        "listeners.https.ssl.truststore.location": str(cert)})  # fmt: skip
    pkcs12 = {**common, "listeners.https.ssl.keystore.type": "PKCS12",
              "listeners.https.ssl.keystore.location": str(p12),
              "listeners.https.ssl.keystore.password": "store-secret"}  # fmt: skip
    pem_store = {**common, "ssl.keystore.type": "PEM", "ssl.keystore.location": str(pem)}
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n", encoding="utf-8")
    _create_topic(bootstrap, f"{topic_name}-lines")
    trusting = ssl.create_default_context(cafile=str(cert))
    with (
        WorkerProcess(pkcs12, tmp_path / "one") as one,
        WorkerProcess(pem_store, tmp_path / "two") as two,
    ):
        assert one.rest is not None and two.rest is not None
        assert one.rest.url.startswith("https://") and two.rest.url.startswith("https://")
        rests = [Rest(w.rest.url, context=trusting) for w in (one, two)]
        assert rests[0].ok("GET", "/connectors") == []
        config = {"connector.class": "FileStreamSource", "file": str(source),
                  "topic": f"{topic_name}-lines"}  # fmt: skip
        rests[1].ok("POST", "/connectors", {"name": "lines", "config": config})
        rests[0].ok("PUT", "/connectors/lines2/config", {**config, "topic": f"{topic_name}-x"})
        try:
            wait_for("both connectors running", lambda: all(
                (s := rests[0].get(f"/connectors/{n}/status")[1]) and s.get("tasks")
                and s["tasks"][0]["state"] == "RUNNING" for n in ("lines", "lines2")),
                timeout=240)  # fmt: skip
        except AssertionError as error:
            statuses = [rests[0].get(f"/connectors/{n}/status") for n in ("lines", "lines2")]
            raise AssertionError(f"{error}\n{statuses}\n--- one:\n{one.tail(60)}\n"
                                 f"--- two:\n{two.tail(60)}") from None  # fmt: skip
        # A client that does not trust the certificate, and plain HTTP to the HTTPS port.
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
            urllib.request.urlopen(one.rest.url + "/connectors", timeout=30)
        plain = one.rest.url.replace("https://", "http://") + "/connectors"
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            urllib.request.urlopen(plain, timeout=30)
