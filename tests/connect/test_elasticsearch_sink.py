"""The search sink on a real Connect worker against a real OpenSearch-compatible server
(osmem-server, tests/search.py): the book's MySQL -> Kafka -> Elasticsearch session as
written, keyed upserts and tombstone deletes with external versions, a malformed document in
the dead letter queue, TLS with basic authentication, retries through an outage and through
429s, a server that stays away failing the task, and bad configs named by ``config/validate``.

One worker serves the module's connectors, each on topics of its own, against one Kafka
broker of the module (``cluster_a``) and one search server.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from seaway.broker import BrokerThread
from tests.connect.workers import Rest, WorkerProcess, distributed_props, wait_for
from tests.search import FaultProxy, SearchServer, TlsProxy
from tests.soak import soak

LOGIN_SCHEMA = {"type": "struct", "optional": False, "name": "login", "fields": [
    {"type": "string", "optional": True, "field": "username"},
    {"type": "int64", "optional": True, "name": "org.apache.kafka.connect.data.Timestamp",
     "version": 1, "field": "login_time"}]}  # fmt: skip
USER_SCHEMA = {"type": "struct", "optional": False, "name": "user", "fields": [
    {"type": "int64", "optional": False, "field": "id"},
    {"type": "string", "optional": True, "field": "email"},
    {"type": "double", "optional": True, "field": "balance"}]}  # fmt: skip


STRINGS = "org.apache.kafka.connect.storage.StringConverter"


@pytest.fixture(scope="module")
def search() -> Iterator[SearchServer]:
    with SearchServer() as server:
        yield server


@pytest.fixture(scope="module")
def worker(cluster_a: BrokerThread, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rest]:
    name = f"es-{uuid.uuid4().hex[:8]}"
    props = distributed_props(cluster_a.bootstrap_servers, name, **{"key.converter": STRINGS})
    with WorkerProcess(props, tmp_path_factory.mktemp("es-worker")) as process:
        assert process.rest is not None
        yield process.rest


def _create_topic(bootstrap: str, topic: str, partitions: int = 1) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)


def _produce(bootstrap: str, topic: str, records: list[tuple[Any, Any]]) -> None:
    """JSON values (dicts in the JsonConverter's envelope, or None for a tombstone) with
    string keys."""
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for key, value in records:
        producer.produce(
            topic,
            key=None if key is None else str(key).encode(),
            value=None if value is None else json.dumps(value).encode(),
        )
    assert producer.flush(30) == 0


def _user(i: int, email: str, balance: float) -> dict[str, Any]:
    return {"schema": USER_SCHEMA, "payload": {"id": i, "email": email, "balance": balance}}


def _hits(search: SearchServer, index: str, size: int = 100) -> list[dict[str, Any]]:
    status, body = search.request("GET", f"/{index}/_search?size={size}&version=true")
    return body["hits"]["hits"] if status == 200 else []


def _count(search: SearchServer, index: str) -> int:
    status, body = search.request("GET", f"/{index}/_count")
    return int(body["count"]) if status == 200 else 0


def _post(rest: Rest, name: str, config: dict[str, Any]) -> None:
    rest.ok("POST", "/connectors", {"name": name, "config": config})


def _documents(rest: Rest, search: SearchServer, connector: str, index: str, count: int) -> None:
    """Wait until *index* holds *count* documents; fail at once with the trace of a failed
    task."""

    def there() -> bool:
        state = _task_state(rest, connector)
        assert state is None or state["state"] != "FAILED", state.get("trace")
        return _count(search, index) == count

    wait_for(f"{count} documents in {index}", there)


def _task_state(rest: Rest, name: str) -> dict[str, Any] | None:
    status, body = rest.get(f"/connectors/{name}/status")
    if status != 200 or not body.get("tasks"):
        return None
    return dict(body["tasks"][0])


def test_the_seed_session_mysql_to_kafka_to_search(
    worker: Rest, search: SearchServer, cluster_a: BrokerThread, mariadb: Any
) -> None:
    """Seed 003 as written: the JDBC source's login table in ``mysql.login``, then the
    ``elastic-login-connector`` JSON verbatim (host and port changed), then ``_search`` shows
    the rows with ids ``mysql.login+0+N``, a row inserted later included."""
    bootstrap = cluster_a.bootstrap_servers
    with mariadb.connect() as db, db.cursor() as cursor:
        cursor.execute("CREATE DATABASE IF NOT EXISTS es_seed")
        cursor.execute("DROP TABLE IF EXISTS es_seed.login")
        cursor.execute("create table es_seed.login (username varchar(30), login_time datetime)")
        cursor.execute("insert into es_seed.login values ('gwenshap', now())")
        cursor.execute("insert into es_seed.login values ('tpalino', now())")
    _create_topic(bootstrap, "mysql.login")
    plugins = [p["class"] for p in worker.ok("GET", "/connector-plugins")]
    assert "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector" in plugins
    assert "io.aiven.kafka.connect.opensearch.OpenSearchSinkConnector" in plugins
    source = {"connector.class": "JdbcSourceConnector",
              "connection.url": f"jdbc:mysql://127.0.0.1:{mariadb.port}/es_seed?user=root",
              "mode": "timestamp", "table.whitelist": "login", "validate.non.null": False,
              "timestamp.column.name": "login_time", "topic.prefix": "mysql."}  # fmt: skip
    _post(worker, "mysql-login-connector", source)
    # The seed's JSON, as the book pipes it into curl; only the host and port changed.
    seed = ('{"name":"elastic-login-connector", "config":{"connector.class":"Elastic'
            'searchSinkConnector","connection.url":"http://localhost:9200","type.name":'
            '"mysql-data","topics":"mysql.login","key.ignore":true}}')  # fmt: skip
    posted = seed.replace("http://localhost:9200", search.url)
    status, created, _ = worker.call("POST", "/connectors", raw=posted.encode())
    assert status == 201, created
    assert created["config"] == {
        "connector.class": "ElasticsearchSinkConnector", "connection.url": search.url,
        "type.name": "mysql-data", "topics": "mysql.login", "key.ignore": "true",
        "name": "elastic-login-connector"}  # fmt: skip
    assert wait_for("the rows in the index", lambda: _count(search, "mysql.login") >= 2)
    with mariadb.connect("es_seed") as db, db.cursor() as cursor:
        cursor.execute("insert into login values ('nnarkede', now() + interval 1 second)")
    wait_for("the later row", lambda: _count(search, "mysql.login") >= 3)
    status, body = search.request("GET", "/mysql.login/_search?pretty=true")
    assert status == 200
    hits = sorted(body["hits"]["hits"], key=lambda h: h["_id"])
    assert [h["_id"] for h in hits] == ["mysql.login+0+0", "mysql.login+0+1", "mysql.login+0+2"]
    assert [h["_index"] for h in hits] == ["mysql.login"] * 3
    assert [h["_source"]["username"] for h in hits] == ["gwenshap", "tpalino", "nnarkede"]
    assert all(isinstance(h["_source"]["login_time"], int) for h in hits)  # epoch ms
    assert set(hits[0]["_source"]) == {"username", "login_time"}
    _, mapping = search.request("GET", "/mysql.login/_mapping")
    properties = mapping["mysql.login"]["mappings"]["properties"]
    assert properties["login_time"] == {"type": "date"}
    assert properties["username"]["type"] == "text"
    assert properties["username"]["fields"]["keyword"] == {"type": "keyword", "ignore_above": 256}
    state = _task_state(worker, "elastic-login-connector")
    assert state is not None and state["state"] == "RUNNING", state


def test_keyed_documents_are_replaced_and_deleted_by_tombstones(
    worker: Rest, search: SearchServer, cluster_a: BrokerThread
) -> None:
    """Keys as document ids: a later value replaces the document (its version is the
    record's offset), a tombstone deletes it, and records go in offset order."""
    bootstrap, topic = cluster_a.bootstrap_servers, f"Users-{uuid.uuid4().hex[:6]}"
    index = topic.lower()  # Confluent's index name: the topic lowercased
    _create_topic(bootstrap, topic)
    _produce(bootstrap, topic, [(i, _user(i, f"u{i}@example.org", i * 1.5)) for i in range(50)])
    config = {"connector.class": "io.confluent.connect.elasticsearch.ElasticsearchSinkConnector",
              "connection.url": search.url, "topics": topic,
              "behavior.on.null.values": "delete"}  # fmt: skip
    _post(worker, f"{topic}-sink", config)
    _documents(worker, search, f"{topic}-sink", index, 50)
    _produce(bootstrap, topic, [(7, _user(7, "new@example.org", 99.5)), (8, None)])
    wait_for("the delete", lambda: _count(search, index) == 49)
    wait_for("the update", lambda: search.request("GET", f"/{index}/_doc/7")[1]["_source"][
        "email"] == "new@example.org")  # fmt: skip
    _, doc = search.request("GET", f"/{index}/_doc/7")
    assert doc["_source"] == {"id": 7, "email": "new@example.org", "balance": 99.5}
    assert search.request("GET", f"/{index}/_doc/8")[0] == 404
    # External versions: each document's version is the offset of the record that wrote it.
    versions = {h["_id"]: h["_version"] for h in _hits(search, index)}
    assert versions == {str(i): 50 if i == 7 else i for i in range(50) if i != 8}


def test_upserts_merge_fields(worker: Rest, search: SearchServer, cluster_a: BrokerThread) -> None:
    bootstrap, topic = cluster_a.bootstrap_servers, f"upserts-{uuid.uuid4().hex[:6]}"
    _create_topic(bootstrap, topic)
    search.request("PUT", f"/{topic}")
    search.request("PUT", f"/{topic}/_doc/1", {"id": 1, "note": "kept"})
    _produce(bootstrap, topic, [(1, {"id": 1, "email": "a@example.org"}), (2, {"id": 2})])
    config = {"connector.class": "ElasticsearchSinkConnector", "connection.url": search.url,
              "topics": topic, "write.method": "upsert", "schema.ignore": "true",
              "value.converter": "org.apache.kafka.connect.json.JsonConverter",
              "value.converter.schemas.enable": "false"}  # fmt: skip
    _post(worker, f"{topic}-sink", config)
    _documents(worker, search, f"{topic}-sink", topic, 2)
    wait_for("the merge", lambda: search.request("GET", f"/{topic}/_doc/1")[1]["_source"] == {
        "id": 1, "note": "kept", "email": "a@example.org"})  # fmt: skip


def test_a_malformed_document_goes_to_the_dead_letter_queue(
    worker: Rest, search: SearchServer, cluster_a: BrokerThread
) -> None:
    """The server rejects a document (a string where the mapping has a long): with
    ``errors.tolerance=all`` it goes to the dead letter queue as consumed, with Kafka's error
    headers, and the others are indexed."""
    bootstrap, topic = cluster_a.bootstrap_servers, f"malformed-{uuid.uuid4().hex[:6]}"
    dlq = f"{topic}-dlq"
    _create_topic(bootstrap, topic)
    search.request("PUT", f"/{topic}")
    search.request("PUT", f"/{topic}/_mapping", {"properties": {"n": {"type": "long"}}})
    values = [{"n": 1}, {"n": "not a number"}, {"n": 3}]
    _produce(bootstrap, topic, [(i, v) for i, v in enumerate(values)])
    config = {"connector.class": "ElasticsearchSinkConnector", "connection.url": search.url,
              "topics": topic, "key.ignore": "true", "schema.ignore": "true",
              "behavior.on.malformed.documents": "warn",
              "value.converter": "org.apache.kafka.connect.json.JsonConverter",
              "value.converter.schemas.enable": "false", "errors.tolerance": "all",
              "errors.deadletterqueue.topic.name": dlq,
              "errors.deadletterqueue.topic.replication.factor": "1",
              "errors.deadletterqueue.context.headers.enable": "true"}  # fmt: skip
    _post(worker, f"{topic}-sink", config)
    _documents(worker, search, f"{topic}-sink", topic, 2)
    dead = wait_for("the dead letter", lambda: _read(bootstrap, dlq, 1))
    value, headers = dead[0]
    assert json.loads(value) == {"n": "not a number"}  # as consumed
    assert headers["__connect.errors.topic"] == topic
    assert headers["__connect.errors.offset"] == "1"
    assert "mapper_parsing_exception" in headers["__connect.errors.exception.message"]
    assert {h["_id"] for h in _hits(search, topic)} == {f"{topic}+0+0", f"{topic}+0+2"}
    state = _task_state(worker, f"{topic}-sink")
    assert state is not None and state["state"] == "RUNNING", state


def _read(bootstrap: str, topic: str, count: int) -> list[tuple[bytes, dict[str, str]]] | None:
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex,
                         "auto.offset.reset": "earliest"})  # fmt: skip
    try:
        consumer.subscribe([topic])
        out: list[tuple[bytes, dict[str, str]]] = []
        deadline = time.monotonic() + 10
        while len(out) < count and time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            headers = {k: (v or b"").decode() for k, v in message.headers() or []}
            out.append((message.value(), headers))
        return out if len(out) >= count else None
    finally:
        consumer.close()


def test_tls_and_basic_auth(worker: Rest, search: SearchServer, cluster_a: BrokerThread) -> None:
    """HTTPS with a truststore (PKCS12) and ``connection.username``/``password``: the documents
    arrive through the TLS proxy; a wrong password fails the task with the server's 401."""
    bootstrap, topic = cluster_a.bootstrap_servers, f"secure-{uuid.uuid4().hex[:6]}"
    _create_topic(bootstrap, topic)
    _produce(bootstrap, topic, [(i, _user(i, f"s{i}@example.org", 1.0)) for i in range(5)])
    with TlsProxy(search.url, users={"elastic": "s3cret"}, client_auth=True) as proxy:
        stores = proxy.stores
        config = {"connector.class": "ElasticsearchSinkConnector", "connection.url": proxy.url,
                  "connection.username": "elastic", "connection.password": "s3cret",
                  "topics": topic, "key.ignore": "true", "elastic.security.protocol": "SSL",
                  **stores.ssl_config("PKCS12", client=True)}  # fmt: skip
        _post(worker, f"{topic}-sink", config)
        _documents(worker, search, f"{topic}-sink", topic, 5)
        assert proxy.requests and all(r.status != 401 for r in proxy.requests)
        wrong = {**config, "connection.password": "wrong", "max.retries": "1",
                 "retry.backoff.ms": "10", "topics": f"{topic}-x"}  # fmt: skip
        _create_topic(bootstrap, f"{topic}-x")
        _produce(bootstrap, f"{topic}-x", [(1, _user(1, "x", 1.0))])
        _post(worker, f"{topic}-wrong", wrong)
        failed = wait_for("the task to fail", lambda: (s := _task_state(
            worker, f"{topic}-wrong")) and s["state"] == "FAILED" and s)  # fmt: skip
        assert "401" in failed["trace"], failed["trace"]
        assert "after 2 attempt(s)" in failed["trace"], failed["trace"]


def test_retries_through_an_outage_and_429s(
    worker: Rest, search: SearchServer, cluster_a: BrokerThread
) -> None:
    """The server unreachable for a few seconds mid-stream, then answering 429 and 503: the
    sink retries with backoff and every record arrives; a server that stays away fails the
    task with the error in its trace."""
    bootstrap, topic = cluster_a.bootstrap_servers, f"outage-{uuid.uuid4().hex[:6]}"
    _create_topic(bootstrap, topic)
    with FaultProxy(search.url) as proxy:
        config = {"connector.class": "ElasticsearchSinkConnector", "connection.url": proxy.url,
                  "topics": topic, "key.ignore": "true", "max.retries": "15",
                  "retry.backoff.ms": "10"}  # fmt: skip
        _produce(bootstrap, topic, [(i, _user(i, "a", 1.0)) for i in range(100)])
        _post(worker, f"{topic}-sink", config)
        _documents(worker, search, f"{topic}-sink", topic, 100)
        proxy.refuse(2.0)
        _produce(bootstrap, topic, [(i, _user(i, "b", 2.0)) for i in range(100, 300)])
        proxy.wait_accepting(timeout=10)
        # Confluent's RetryUtil waits a random time up to backoff * 2^attempt: the 429s start
        # on a request of their own, not on the outage's attempt count (its 10th or so),
        # whose next waits would be minutes.
        _documents(worker, search, f"{topic}-sink", topic, 300)
        proxy.fail_next(3, status=429)
        proxy.fail_next(2, status=503)
        _produce(bootstrap, topic, [(i, _user(i, "c", 3.0)) for i in range(300, 400)])
        _documents(worker, search, f"{topic}-sink", topic, 400)
        assert [r.status for r in proxy.requests].count(429) == 3
        assert [r.status for r in proxy.requests].count(503) == 2
    gone = f"gone-{uuid.uuid4().hex[:6]}"
    _create_topic(bootstrap, gone)
    _produce(bootstrap, gone, [(1, _user(1, "d", 4.0))])
    with FaultProxy(search.url) as proxy:
        proxy.refuse(120.0)
        config = {"connector.class": "ElasticsearchSinkConnector", "connection.url": proxy.url,
                  "topics": gone, "key.ignore": "true", "max.retries": "2",
                  "retry.backoff.ms": "10"}  # fmt: skip
        _post(worker, f"{gone}-sink", config)
        failed = wait_for("the task to fail", lambda: (s := _task_state(
            worker, f"{gone}-sink")) and s["state"] == "FAILED" and s)  # fmt: skip
        assert "after 3 attempt(s)" in failed["trace"], failed["trace"]
        assert "Connection refused" in failed["trace"], failed["trace"]


def test_bad_configs_are_named_by_validate(worker: Rest, search: SearchServer) -> None:
    path = "/connector-plugins/ElasticsearchSinkConnector/config/validate"
    body = worker.ok("PUT", path, {"connector.class": "ElasticsearchSinkConnector",
                                   "topics": "t", "connection.url": "localhost:9200",
                                   "behavior.on.null.values": "sometimes"})  # fmt: skip
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"]}
    assert errors["behavior.on.null.values"], errors
    assert "sometimes" in errors["behavior.on.null.values"][0]
    assert errors["connection.url"] and "http://" in errors["connection.url"][0]
    assert body["error_count"] >= 2
    good = worker.ok("PUT", path, {"connector.class": "ElasticsearchSinkConnector", "name": "g",
                                   "topics": "t", "connection.url": search.url})  # fmt: skip
    assert good["error_count"] == 0, [c["value"] for c in good["configs"] if c["value"]["errors"]]


def test_kill9_mid_stream_then_restart_indexes_every_record_once(
    search: SearchServer, cluster_a: BrokerThread, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A worker killed with -9 while it indexes 20,000 keyed records, then started again:
    every record is in the index once, each document at the version of its own offset (the
    replayed bulk requests were version conflicts, not overwrites)."""
    bootstrap, topic = cluster_a.bootstrap_servers, f"kill-{uuid.uuid4().hex[:6]}"
    total = soak(20_000)
    _create_topic(bootstrap, topic)
    _produce(bootstrap, topic, [(i, _user(i, f"k{i}@example.org", i / 4)) for i in range(total)])
    props = distributed_props(bootstrap, f"es-kill-{uuid.uuid4().hex[:6]}",
                              **{"spark.source.max.records.per.batch": 2000})  # fmt: skip
    folder = tmp_path_factory.mktemp("es-kill")
    config = {"connector.class": "ElasticsearchSinkConnector", "connection.url": search.url,
              "topics": topic, "batch.size": "500",
              "key.converter": STRINGS}  # fmt: skip
    first = WorkerProcess(props, folder).start()
    try:
        assert first.rest is not None
        _post(first.rest, f"{topic}-sink", config)
        at_kill = wait_for("a part indexed", lambda: (n := _count(search, topic)) > 0 and n)
    finally:
        first.kill()
    assert at_kill < total, "the worker was not killed mid-stream"
    with WorkerProcess(props, folder):
        wait_for("every record", lambda: _count(search, topic) >= total, timeout=180)
    assert _count(search, topic) == total
    ids = [str(i) for i in range(0, total, max(total // 500, 1))]
    status, found = search.request("POST", f"/{topic}/_mget", {"ids": ids})
    assert status == 200
    versions = {d["_id"]: d.get("_version") for d in found["docs"]}
    assert versions == {i: int(i) for i in ids}  # one partition: the key is the offset
