"""Java client security settings translated for librdkafka, checked by librdkafka itself
(a client built from the translation), with errors that name what cannot be honoured."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from confluent_kafka import Producer

from seaway.config import ConfigException
from seaway.kafka.java_config import to_librdkafka

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


def _pkcs12(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate as (PEM key+cert, PKCS12 with password 'pw')."""
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=broker"],
                   check=True, capture_output=True)  # fmt: skip
    pem = folder / "store.pem"
    pem.write_bytes(key.read_bytes() + cert.read_bytes())
    p12 = folder / "store.p12"
    subprocess.run(["openssl", "pkcs12", "-export", "-inkey", str(key), "-in", str(cert),
                    "-out", str(p12), "-passout", "pass:pw"],
                   check=True, capture_output=True)  # fmt: skip
    return pem, p12


def test_sasl_and_stores_as_librdkafka_takes_them(tmp_path: Path) -> None:
    pem, p12 = _pkcs12(tmp_path)
    java = {
        "bootstrap.servers": "127.0.0.1:1", "security.protocol": "SASL_SSL",
        "sasl.mechanism": "PLAIN",
        "sasl.jaas.config": f'{PLAIN} required username="alice" password="a\\"b";',
        "ssl.truststore.type": "PKCS12", "ssl.truststore.location": str(p12),
        "ssl.truststore.password": "pw", "ssl.keystore.type": "PKCS12",
        "ssl.keystore.location": str(p12), "ssl.keystore.password": "pw",
        "ssl.endpoint.identification.algorithm": "", "ssl.protocol": "TLSv1.3",
        "linger.ms": "5",
    }  # fmt: skip
    out = to_librdkafka(java)
    assert out["sasl.username"] == "alice" and out["sasl.password"] == 'a"b'
    assert out["ssl.ca.pem"].startswith("-----BEGIN CERTIFICATE-----")
    assert out["ssl.keystore.location"] == str(p12) and out["ssl.keystore.password"] == "pw"
    assert out["ssl.endpoint.identification.algorithm"] == "none"
    assert "ssl.protocol" not in out and "sasl.jaas.config" not in out
    Producer(out)  # librdkafka accepts every key and value
    pem_out = to_librdkafka({"security.protocol": "SSL", "ssl.truststore.type": "PEM",
                             "ssl.truststore.location": str(pem), "ssl.keystore.type": "PEM",
                             "ssl.keystore.location": str(pem)})  # fmt: skip
    assert pem_out["ssl.ca.location"] == str(pem)
    assert pem_out["ssl.key.location"] == pem_out["ssl.certificate.location"] == str(pem)
    Producer({"bootstrap.servers": "127.0.0.1:1", **pem_out})


def test_what_cannot_be_honoured_is_an_error() -> None:
    with pytest.raises(ConfigException, match=r"JKS store.*keytool -importkeystore"):
        to_librdkafka({"ssl.truststore.location": "/etc/kafka/truststore.jks"})
    with pytest.raises(ConfigException, match="OAuthBearerLoginModule, which librdkafka"):
        to_librdkafka({"sasl.jaas.config": "org.apache.kafka.common.security.oauthbearer."
                       "OAuthBearerLoginModule required;"})  # fmt: skip
    with pytest.raises(ConfigException, match=r'needs username="\.\.\." and password'):
        to_librdkafka({"sasl.jaas.config": f"{PLAIN} required;"})
    with pytest.raises(ConfigException, match=r"ssl\.protocol=SSLv3 cannot be honoured"):
        to_librdkafka({"ssl.protocol": "SSLv3"})
