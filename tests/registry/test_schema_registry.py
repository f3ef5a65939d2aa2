"""Seaway's schema registry driven by a client nobody here wrote: confluent-kafka's
SchemaRegistryClient, AvroSerializer and AvroDeserializer, against the registry served over
HTTP with its schemas in a topic of the test broker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext

from seaway.registry.server import RegistryServer
from tests.conftest import registry_props

pytestmark = pytest.mark.waits

V1 = {
    "type": "record",
    "name": "login",
    "namespace": "test",
    "fields": [{"name": "id", "type": "int"}, {"name": "user", "type": "string"}],
}
V2 = {
    **V1,
    "fields": [*V1["fields"], {"name": "email", "type": ["null", "string"], "default": None}],
}
BROKEN = {**V1, "fields": [*V1["fields"], {"name": "email", "type": "string"}]}


def _call(url: str, method: str = "GET", body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/vnd.schemaregistry.v1+json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_confluent_client_registers_looks_up_and_checks(registry: RegistryServer) -> None:
    client = SchemaRegistryClient({"url": registry.url})
    first = client.register_schema("login-value", Schema(json.dumps(V1), "AVRO"))
    # The same schema spelled differently is the same schema: same id, no new version.
    respelled = json.dumps({"fields": V1["fields"], "name": "login", "namespace": "test",
                            "type": "record", "doc": "x"}, indent=2)  # fmt: skip
    client2 = SchemaRegistryClient({"url": registry.url})
    assert client2.register_schema("login-value", Schema(respelled, "AVRO")) == first
    assert client.test_compatibility("login-value", Schema(json.dumps(V2), "AVRO"))
    assert not client.test_compatibility("login-value", Schema(json.dumps(BROKEN), "AVRO"))
    second = client.register_schema("login-value", Schema(json.dumps(V2), "AVRO"))
    assert second != first
    with pytest.raises(SchemaRegistryError) as raised:
        client.register_schema("login-value", Schema(json.dumps(BROKEN), "AVRO"))
    assert raised.value.http_status_code == 409 and raised.value.error_code == 409
    assert "login-value" in raised.value.error_message
    assert "email" in raised.value.error_message

    latest = client.get_latest_version("login-value")
    assert (latest.version, latest.schema_id) == (2, second)
    assert client.get_versions("login-value") == [1, 2]
    assert json.loads(client.get_schema(first).schema_str) == V1
    found = client.lookup_schema("login-value", Schema(json.dumps(V1), "AVRO"))
    assert (found.version, found.schema_id) == (1, first)
    assert client.get_subjects() == ["login-value"]

    # The same schema under another subject keeps its id.
    assert client.register_schema("other-value", Schema(json.dumps(V1), "AVRO")) == first
    status, versions = _call(f"{registry.url}/schemas/ids/{first}/versions")
    assert status == 200
    assert versions == [{"subject": "login-value", "version": 1},
                        {"subject": "other-value", "version": 1}]  # fmt: skip

    # Compatibility levels: global and per subject.
    assert client.get_compatibility() == "BACKWARD"
    client.set_compatibility("login-value", "NONE")
    assert client.get_compatibility("login-value") == "NONE"
    assert client.register_schema("login-value", Schema(json.dumps(BROKEN), "AVRO")) > second
    client.set_compatibility(level="FULL_TRANSITIVE")
    assert client.get_compatibility() == "FULL_TRANSITIVE"

    assert client.delete_subject("other-value") == [1]
    assert client.get_subjects() == ["login-value"]


def test_errors_have_confluents_codes(registry: RegistryServer) -> None:
    url = registry.url
    assert _call(f"{url}/subjects/nope/versions") == (
        404, {"error_code": 40401, "message": "Subject 'nope' not found."})  # fmt: skip
    assert _call(f"{url}/schemas/ids/999") == (
        404, {"error_code": 40403, "message": "Schema 999 not found"})  # fmt: skip
    status, body = _call(f"{url}/subjects/s/versions", "POST", {"schema": '{"type": "nope"}'})
    assert (status, body["error_code"]) == (422, 42201)
    status, body = _call(f"{url}/subjects/s/versions", "POST", {"schema": json.dumps(V1)})
    assert status == 200
    status, body = _call(f"{url}/subjects/s/versions/7")
    assert (status, body) == (404, {"error_code": 40402, "message": "Version 7 not found."})
    status, body = _call(f"{url}/subjects/s/versions/zero")
    assert (status, body["error_code"]) == (422, 42202)
    status, body = _call(f"{url}/config", "PUT", {"compatibility": "SIDEWAYS"})
    assert (status, body["error_code"]) == (422, 42203)
    status, body = _call(f"{url}/compatibility/subjects/s/versions/latest?verbose=true", "POST",
                         {"schema": json.dumps(BROKEN)})  # fmt: skip
    assert status == 200 and body["is_compatible"] is False
    assert any("email" in m for m in body["messages"])


def test_avro_serializer_and_deserializer_round_trip_and_restart(
    bootstrap: str, topic_name: str
) -> None:
    props = registry_props(bootstrap, f"{topic_name}-schemas")
    context = SerializationContext("login", MessageField.VALUE)
    with RegistryServer(props) as server:
        client = SchemaRegistryClient({"url": server.url})
        serializer = AvroSerializer(client, json.dumps(V1))
        payload = serializer({"id": 7, "user": "ada"}, context)
        schema_id = int.from_bytes(payload[1:5], "big")
        assert payload[0] == 0 and schema_id >= 1  # Confluent's wire format
    # A restarted registry reads its schemas back from the topic.
    props["listeners"] = "http://127.0.0.1:0"
    with RegistryServer(props) as server:
        client = SchemaRegistryClient({"url": server.url})
        assert AvroDeserializer(client)(payload, context) == {"id": 7, "user": "ada"}
        assert client.get_latest_version("login-value").schema_id == schema_id


def test_the_command_serves_until_terminated(
    bootstrap: str, topic_name: str, tmp_path: Path
) -> None:
    config = tmp_path / "schema-registry.properties"
    props = registry_props(bootstrap, f"{topic_name}-schemas")
    config.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    process = subprocess.Popen(
        [sys.executable, "-m", "seaway", "schema-registry", str(config)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        assert line.startswith("Schema registry at http://127.0.0.1:"), line
        url = line.split(" at ", 1)[1].strip()
        assert _call(f"{url}/subjects") == (200, [])
        assert _call(f"{url}/config") == (200, {"compatibilityLevel": "BACKWARD"})
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
