"""SCRAM against RFC 7677's test vector, and the failures a broker must refuse."""

from __future__ import annotations

import base64

import pytest

from seaway.security.scram import MECHANISMS, ScramClient, ScramCredential, ScramError, ScramServer

SHA256 = MECHANISMS["SCRAM-SHA-256"]
SALT = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
CLIENT_NONCE, SERVER_NONCE = "rOprNGfwEbeRWgbNEkqO", "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"


def _credential() -> ScramCredential:
    return ScramCredential.from_password(SHA256, "pencil", 4096, SALT)


def test_rfc7677_vector_through_client_and_server() -> None:
    credential = _credential()
    assert (
        base64.b64encode(credential.stored_key) == b"WG5d8oPm3OtcPnkdi4Uo7BkeZkBFzpcXkuLmtbsT4qY="
    )
    assert (
        base64.b64encode(credential.server_key) == b"wfPLwcE6nTWhTAmQ7tl2KeoiWGPlZqQxSrmfPwDl2dU="
    )
    client = ScramClient(SHA256, "user", "pencil", nonce=CLIENT_NONCE)
    server = ScramServer(SHA256, {"user": credential}.get, nonce=SERVER_NONCE)
    assert client.first() == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    server_first = server.evaluate(client.first())
    assert server_first == (
        b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    )
    final = client.final(server_first)
    assert final.endswith(b",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
    server_final = server.evaluate(final)
    assert server_final == b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    client.verify(server_final)
    assert server.complete and server.username == "user"


def test_credential_text_round_trip_and_salted_password_path() -> None:
    credential = _credential()
    assert ScramCredential.from_text(credential.to_text()) == credential
    salted = SHA256.salted_password("pencil", SALT, 4096)
    assert ScramCredential.from_salted_password(SHA256, salted, SALT, 4096) == credential


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_wrong_password_and_unknown_user_fail(mechanism: str) -> None:
    m = MECHANISMS[mechanism]
    users = {"alice": ScramCredential.from_password(m, "alice-secret")}
    server = ScramServer(m, users.get)
    client = ScramClient(m, "alice", "nope")
    final = client.final(server.evaluate(client.first()))
    with pytest.raises(ScramError):
        server.evaluate(final)
    with pytest.raises(ScramError, match="Invalid user credentials"):
        ScramServer(m, users.get).evaluate(ScramClient(m, "bob", "x").first())
    # The right password works for this mechanism, and a name with , and = is escaped.
    users["a,b=c"] = ScramCredential.from_password(m, "pw")
    client, server = ScramClient(m, "a,b=c", "pw"), ScramServer(m, users.get)
    client.verify(server.evaluate(client.final(server.evaluate(client.first()))))
    assert server.username == "a,b=c"


@pytest.mark.parametrize(
    "first",
    [b"n,,r=abc", b"p=x,,n=user,r=abc", b"n,,m=ext,n=user,r=abc", b"n,,n=us=er,r=abc", b"\xff"],
)
def test_malformed_first_messages_fail(first: bytes) -> None:
    with pytest.raises(ScramError):
        ScramServer(SHA256, {"user": _credential()}.get).evaluate(first)


def test_final_with_another_nonce_fails() -> None:
    server = ScramServer(SHA256, {"user": _credential()}.get, nonce=SERVER_NONCE)
    server.evaluate(b"n,,n=user,r=abc")
    with pytest.raises(ScramError, match="final"):
        server.evaluate(b"c=biws,r=abcOTHER,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")


def test_too_few_stored_iterations_fail() -> None:
    weak = ScramCredential.from_password(SHA256, "pencil", 1000, SALT)
    with pytest.raises(ScramError, match="less than the minimum 4096"):
        ScramServer(SHA256, {"user": weak}.get).evaluate(b"n,,n=user,r=abc")
