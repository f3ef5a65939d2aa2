"""HTTP basic authentication of the REST API with Kafka's BasicAuthSecurityRestExtension and
a JAAS file from KAFKA_OPTS, on a cluster of two workers: 401 without the right
credentials, a request sent to the follower forwarded to the leader with its credentials,
the workers' signed internal requests (task configs) passing."""

from __future__ import annotations

import base64
import os
from pathlib import Path

from tests.connect.test_worker_recovery import _create_topic
from tests.connect.workers import Rest, WorkerProcess, distributed_props, wait_for

EXTENSION = "org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension"
MODULE = "org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule"


def _basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def test_basic_auth_on_a_cluster(tmp_path: Path, bootstrap: str, topic_name: str) -> None:
    users = tmp_path / "connect.password"
    users.write_text("admin: admin-secret\nops=ops-secret\n", encoding="utf-8")
    jaas = tmp_path / "connect_jaas.conf"
    jaas.write_text(f'KafkaConnect {{\n  {MODULE} required\n  file="{users}";\n}};\n',
                    encoding="utf-8")  # fmt: skip
    env = {**os.environ, "KAFKA_OPTS": f"-Djava.security.auth.login.config={jaas}"}
    props = distributed_props(bootstrap, topic_name, **{"rest.extension.classes": EXTENSION})
    source = tmp_path / "in.txt"
    source.write_text("a\nb\n", encoding="utf-8")
    _create_topic(bootstrap, f"{topic_name}-lines")
    with (
        WorkerProcess(props, tmp_path / "one", env=env) as one,
        WorkerProcess(props, tmp_path / "two", env=env) as two,
    ):
        assert one.rest is not None and two.rest is not None
        anonymous, wrong = Rest(one.rest.url), Rest(one.rest.url, _basic("admin", "nope"))
        for rest in (anonymous, wrong):
            status, body, headers = rest.call("GET", "/connectors")
            assert (status, body) == (401, "User cannot access the resource.")
            assert headers["WWW-Authenticate"].startswith("Basic")
        admin = [Rest(w.rest.url, _basic("admin", "admin-secret")) for w in (one, two)]
        ops = Rest(two.rest.url, _basic("ops", "ops-secret"))
        assert admin[0].ok("GET", "/connectors") == []
        # Whichever worker leads, a create sent to both is forwarded to the leader once.
        config = {"connector.class": "FileStreamSource", "file": str(source),
                  "topic": f"{topic_name}-lines"}  # fmt: skip
        ops.ok("POST", "/connectors", {"name": "lines", "config": config})
        status = wait_for("the connector running with its task", lambda: (
            (s := admin[0].get("/connectors/lines/status")[1]) and s.get("tasks")
            and s["tasks"][0]["state"] == "RUNNING" and s))  # fmt: skip
        assert status["connector"]["state"] == "RUNNING"
        assert Rest(two.rest.url).call("GET", "/connectors/lines/status")[0] == 401
