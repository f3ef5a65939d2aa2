"""JAAS parsing with Kafka's grammar and error messages."""

from __future__ import annotations

import pytest

from seaway.config import ConfigException
from seaway.security.jaas import LoginModule, parse_jaas_config, parse_jaas_file

PLAIN = "org.apache.kafka.common.security.plain.PlainLoginModule"


def test_a_broker_plain_entry_with_users() -> None:
    module = parse_jaas_config(
        f'{PLAIN} required username="admin" password="admin-secret" '
        'user_admin=\'admin-secret\' user_alice="al\\"ice";'
    )
    assert module == LoginModule(PLAIN, "required", {
        "username": "admin", "password": "admin-secret", "user_admin": "admin-secret",
        "user_alice": 'al"ice'})  # fmt: skip


def test_a_file_with_contexts_comments_and_flags_in_any_case() -> None:
    contexts = parse_jaas_file(
        "// the broker\nKafkaServer {\n"
        f'  {PLAIN} REQUIRED /* users */ user_alice="a";\n'
        "  org.apache.kafka.common.security.scram.ScramLoginModule optional;\n};\n"
        'KafkaConnect { x.PropertyFileLoginModule required file="/etc/users"; };'
    )
    assert [m.flag for m in contexts["KafkaServer"]] == ["required", "optional"]
    assert contexts["KafkaConnect"][0].options == {"file": "/etc/users"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"{PLAIN} required password=1234;", "Value not specified for key 'password'"),
        (f'{PLAIN} required username="a"', "JAAS config entry not terminated by semi-colon"),
        (f"{PLAIN} mandatory;", "Invalid login module control flag 'mandatory'"),
        (f"{PLAIN} required; {PLAIN} required;", "contains 2 login modules, should be 1 module"),
        ("", "contains 0 login modules"),
    ],
)
def test_errors_are_kafkas(text: str, message: str) -> None:
    with pytest.raises(ConfigException, match=message):
        parse_jaas_config(text)
