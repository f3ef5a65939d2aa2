"""Reading BasicAuthSecurityRestExtension's users: the JAAS file from KAFKA_OPTS, its
KafkaConnect section and the users file, with errors that say what to write."""

from __future__ import annotations

from pathlib import Path

import pytest

from seaway.config import ConfigException
from seaway.connect.rest.basic_auth import credentials_from_environment

MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"


def test_users_from_the_jaas_file(tmp_path: Path) -> None:
    users = tmp_path / "users"
    users.write_text("admin: admin-secret\nops=s3:cret\n", encoding="utf-8")
    jaas = tmp_path / "jaas.conf"
    jaas.write_text(f'KafkaServer {{ x required; }};\nKafkaConnect {{\n {MODULE} required\n'
                    f' file="{users}";\n}};\n', encoding="utf-8")  # fmt: skip
    first = "-Djava.security.auth.login.config=/nope -Xmx1g"  # the JVM keeps the last -D
    opts = {"KAFKA_OPTS": f"{first} -Djava.security.auth.login.config={jaas} -Dfoo=bar"}
    assert credentials_from_environment(opts) == {"admin": "admin-secret", "ops": "s3:cret"}


def test_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigException, match=r"set KAFKA_OPTS=-Djava\.security\.auth"):
        credentials_from_environment({})
    jaas = tmp_path / "jaas.conf"
    jaas.write_text("KafkaServer { x required; };\n", encoding="utf-8")
    with pytest.raises(ConfigException, match="has no KafkaConnect section"):
        credentials_from_environment({"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"})
    jaas.write_text(f'KafkaConnect {{ {MODULE} required file="{tmp_path}/nope"; }};',
                    encoding="utf-8")  # fmt: skip
    with pytest.raises(ConfigException, match="Cannot read the users file"):
        credentials_from_environment({"KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"})
