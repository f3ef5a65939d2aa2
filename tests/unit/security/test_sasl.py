"""The broker's SASL servers: PLAIN's checks and messages, SCRAM's single failure message."""

from __future__ import annotations

import pytest

from seaway.security.sasl import SaslAuthenticationError, new_server, plain_token
from seaway.security.scram import MECHANISMS, ScramClient, ScramCredential

USERS = {"alice": "alice-secret"}


def _scram(user: str, mechanism: str) -> ScramCredential | None:
    if user != "alice":
        return None
    return ScramCredential.from_password(MECHANISMS[mechanism], "alice-secret")


def test_plain_accepts_a_user_and_names_it() -> None:
    server = new_server("PLAIN", USERS, _scram)
    assert server.evaluate(plain_token("alice", "alice-secret")) == b""
    assert server.complete and server.authorization_id == "alice"
    same_authzid = new_server("PLAIN", USERS, _scram)
    same_authzid.evaluate(b"alice\0alice\0alice-secret")
    assert same_authzid.authorization_id == "alice"


@pytest.mark.parametrize(
    ("token", "message"),
    [
        (b"alice\0alice-secret", "Invalid SASL/PLAIN response: expected 3 tokens, got 2"),
        (b"\0\0pw", "Authentication failed: username not specified"),
        (b"\0alice\0", "Authentication failed: password not specified"),
        (b"\0alice\0wrong", "Authentication failed: Invalid username or password"),
        (b"\0bob\0alice-secret", "Authentication failed: Invalid username or password"),
        (b"bob\0alice\0alice-secret", "Client requested an authorization id that is different"),
    ],
)
def test_plain_failures_say_what_kafka_says(token: bytes, message: str) -> None:
    server = new_server("PLAIN", USERS, _scram)
    with pytest.raises(SaslAuthenticationError, match=message):
        server.evaluate(token)
    assert not server.complete


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_scram_failures_hide_the_reason(mechanism: str) -> None:
    expected = (
        "Authentication failed during authentication due to invalid credentials with SASL "
        f"mechanism {mechanism}"
    )
    unknown = new_server(mechanism, {}, _scram)
    with pytest.raises(SaslAuthenticationError) as error:
        unknown.evaluate(ScramClient(MECHANISMS[mechanism], "bob", "x").first())
    assert str(error.value) == expected
    server = new_server(mechanism, {}, _scram)
    client = ScramClient(MECHANISMS[mechanism], "alice", "wrong")
    with pytest.raises(SaslAuthenticationError) as error:
        server.evaluate(client.final(server.evaluate(client.first())))
    assert str(error.value) == expected
    server = new_server(mechanism, {}, _scram)
    client = ScramClient(MECHANISMS[mechanism], "alice", "alice-secret")
    client.verify(server.evaluate(client.final(server.evaluate(client.first()))))
    assert server.complete and server.authorization_id == "alice"
