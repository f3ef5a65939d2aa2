"""Test certificates made with ``cryptography``: a CA, a server certificate for 127.0.0.1 and
localhost, a client certificate the CA signed, one it did not and an expired one, as PEM
files."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass(frozen=True)
class Certs:
    ca: Path  # the CA certificate
    server: Path  # the server's key and certificate (a PEM keystore)
    client_key: Path
    client_cert: Path
    rogue_key: Path  # a client whose certificate no trusted CA signed
    rogue_cert: Path
    expired_key: Path  # a client whose certificate the CA signed, expired yesterday
    expired_cert: Path


def _pair(
    name: str,
    issuer: tuple[x509.Name, ec.EllipticCurvePrivateKey] | None,
    ca: bool = False,
    days: int = 1,
) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    issuer_name, issuer_key = issuer or (subject, key)
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder().subject_name(subject).issuer_name(issuer_name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=2))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )  # fmt: skip
    if name == "localhost":
        san = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        builder = builder.add_extension(x509.SubjectAlternativeName(san), critical=False)
    return key, builder.sign(issuer_key, hashes.SHA256())


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())  # fmt: skip


def _cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def make_certs(folder: Path) -> Certs:
    ca_key, ca_cert = _pair("Seaway Test CA", None, ca=True)
    server_key, server_cert = _pair("localhost", (ca_cert.subject, ca_key))
    client_key, client_cert = _pair("alice", (ca_cert.subject, ca_key))
    rogue_key, rogue_cert = _pair("mallory", None)
    expired_key, expired_cert = _pair("alice", (ca_cert.subject, ca_key), days=-1)
    files = {
        "ca.pem": _cert_pem(ca_cert),
        "server.pem": _key_pem(server_key) + _cert_pem(server_cert),
        "client.key": _key_pem(client_key),
        "client.pem": _cert_pem(client_cert),
        "rogue.key": _key_pem(rogue_key),
        "rogue.pem": _cert_pem(rogue_cert),
        "expired.key": _key_pem(expired_key),
        "expired.pem": _cert_pem(expired_cert),
    }
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return Certs(*(folder / name for name in files))
