"""seaway.asgi.AsgiServer: port 0, a taken port, the port released on stop, HTTPS."""

from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
import urllib.request

import pytest
from starlette.responses import PlainTextResponse

from seaway.asgi import AsgiServer
from seaway.security.tls import TlsSettings

APP = PlainTextResponse("hello")


def _get(url: str, context: ssl.SSLContext | None = None) -> bytes:
    with urllib.request.urlopen(url, timeout=10, context=context) as response:
        return response.read()


def test_port_zero_serves_and_stop_releases_the_port() -> None:
    server = AsgiServer(APP, ("127.0.0.1", 0), ("", 0))
    assert server.ports == [0, 0]
    with server:
        port, other = server.ports
        assert port > 0 and other > 0 and server.url == f"http://127.0.0.1:{port}"
        assert _get(server.url) == b"hello"
        assert _get(f"http://localhost:{other}/") == b"hello"  # '' binds every interface
    with pytest.raises(OSError):
        _get(server.url)
    socket.create_server(("127.0.0.1", port)).close()  # free again
    with server:  # and it starts again
        assert _get(server.url) == b"hello"


def test_a_taken_port_raises_the_bind_error() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        server = AsgiServer(APP, ("127.0.0.1", 0), ("127.0.0.1", taken.getsockname()[1]))
        with pytest.raises(OSError, match="in use"):
            server.start()
        server.stop()
    with pytest.raises(ValueError):
        AsgiServer(APP)


def _self_signed() -> tuple[str, str]:
    """(key PEM, certificate PEM) for 127.0.0.1."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return key_pem.decode(), cert.public_bytes(serialization.Encoding.PEM).decode()


def test_https_with_a_context_from_tls_settings() -> None:
    key, cert = _self_signed()
    settings = TlsSettings({"ssl.keystore.type": "PEM", "ssl.keystore.key": key,
                            "ssl.keystore.certificate.chain": cert})  # fmt: skip
    with AsgiServer(APP, ("127.0.0.1", 0), ssl_context=settings.server_context()) as server:
        assert server.url.startswith("https://127.0.0.1:")
        assert _get(server.url, ssl.create_default_context(cadata=cert)) == b"hello"
