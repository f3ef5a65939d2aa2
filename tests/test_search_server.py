"""What the search sink relies on in osmem-server (tests/search.py), checked: the answers
of ``GET /``, index creation, mappings, ``_bulk`` with external versions, updates, mapping
failures, search and count, content types and compression; then the helpers themselves
(pause, kill, the TLS and fault proxies).

Where osmem differs from Elasticsearch 7/8/9 the test says so: it answers as OpenSearch 3
(the tagline and ``distribution``, which Elasticsearch clients reject) yet sends
``X-Elastic-Product: Elasticsearch``, and refuses Elasticsearch's ``compatible-with`` media
types with 406, as OpenSearch does.
"""

from __future__ import annotations

import gzip
import http.client
import json
import socket
import ssl
import time
import urllib.error
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from seaway.security.tls import TlsSettings
from tests.search import FaultProxy, SearchServer, TlsProxy, http_request


@pytest.fixture(scope="module")
def server() -> Iterator[SearchServer]:
    with SearchServer() as s:
        yield s


@pytest.fixture
def index(server: SearchServer) -> str:
    """A new index's name (not created)."""
    return f"idx-{uuid.uuid4().hex[:8]}"


def _raw(url: str, method: str = "GET", body: bytes | None = None,
         headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:  # fmt: skip
    """``(status, headers, body)`` over http.client, headers lowercased."""
    parts = url.split("/", 3)
    connection = http.client.HTTPConnection(parts[2], timeout=10)
    try:
        connection.request(method, "/" + (parts[3] if len(parts) > 3 else ""), body,
                           headers or {})  # fmt: skip
        response = connection.getresponse()
        return (response.status, {k.lower(): v for k, v in response.getheaders()},
                response.read())  # fmt: skip
    finally:
        connection.close()


def _item(answer: tuple[int, Any], n: int = 0) -> dict[str, Any]:
    """The *n*-th item of a bulk answer (its one action's result)."""
    status, body = answer
    assert status == 200, body
    return next(iter(body["items"][n].values()))


def _external(index: str, doc_id: str, version: int, op: str = "index") -> dict[str, Any]:
    return {op: {"_index": index, "_id": doc_id, "version": version,
                 "version_type": "external"}}  # fmt: skip


def _error_type(answer: tuple[int, Any]) -> str:
    return str(answer[1]["error"]["type"])


# --- the server ---------------------------------------------------------------------------


def test_root_is_opensearch_3_that_says_it_is_elasticsearch(server: SearchServer) -> None:
    status, headers, body = _raw(server.url + "/")
    root = json.loads(body)
    assert status == 200
    assert root["version"]["number"] == "3.8.0"
    assert root["version"]["distribution"] == "opensearch"  # absent in Elasticsearch
    assert root["tagline"] == "The OpenSearch Project: https://opensearch.org/"
    assert "build_flavor" not in root["version"]  # Elasticsearch 7.0-7.13 clients need it
    # Sent on every answer (errors too), though real OpenSearch never sends it.
    assert headers["x-elastic-product"] == "Elasticsearch"
    assert headers["content-type"] == "application/json; charset=UTF-8"
    assert _raw(server.url + "/missing-index")[1]["x-elastic-product"] == "Elasticsearch"


def test_index_exists_and_created_once(server: SearchServer, index: str) -> None:
    assert server.request("HEAD", f"/{index}") == (404, None)
    assert server.request("PUT", f"/{index}") == (
        200, {"acknowledged": True, "index": index, "shards_acknowledged": True})  # fmt: skip
    assert server.request("HEAD", f"/{index}") == (200, None)
    again = server.request("PUT", f"/{index}")
    assert again[0] == 400
    assert _error_type(again) == "resource_already_exists_exception"
    assert again[1]["error"]["reason"].startswith(f"index [{index}/")
    assert _error_type(server.request("PUT", "/Upper")) == "invalid_index_name_exception"
    assert _error_type(server.request("PUT", "/_under")) == "invalid_index_name_exception"


def test_mapping_of_a_new_index_is_empty_until_put(server: SearchServer, index: str) -> None:
    assert server.request("GET", f"/{index}/_mapping")[0] == 404  # index_not_found_exception
    server.request("PUT", f"/{index}")
    assert server.request("GET", f"/{index}/_mapping") == (200, {index: {"mappings": {}}})
    keyword = {"keyword": {"type": "keyword", "ignore_above": 256}}
    properties = {"username": {"type": "text", "fields": keyword},
                  "login_time": {"type": "date"}, "n": {"type": "long"}}  # fmt: skip
    assert server.request("PUT", f"/{index}/_mapping", {"properties": properties}) == (
        200, {"acknowledged": True})  # fmt: skip
    got = server.request("GET", f"/{index}/_mapping")[1][index]["mappings"]["properties"]
    assert got == properties
    changed = server.request("PUT", f"/{index}/_mapping", {"properties": {"n": {"type": "text"}}})
    assert changed[0] == 400
    assert _error_type(changed) == "illegal_argument_exception"
    reason = "mapper [n] cannot be changed from type [long] to [text]"
    assert changed[1]["error"]["reason"] == reason
    added = server.request("PUT", f"/{index}/_mapping", {"properties": {"x": {"type": "keyword"}}})
    assert added == (200, {"acknowledged": True})


def test_bulk_creates_the_index_with_dynamic_mappings(server: SearchServer, index: str) -> None:
    source = {"i": 1, "f": 1.5, "b": True, "s": "x", "d": "2026-01-02T03:04:05Z", "o": {"a": 1},
              "big": 1767346200123, "nul": None}  # fmt: skip
    item = _item(server.bulk({"index": {"_index": index, "_id": "1"}}, source))
    assert (item["status"], item["result"], item["_version"]) == (201, "created", 1)
    assert "_type" not in item
    properties = server.request("GET", f"/{index}/_mapping")[1][index]["mappings"]["properties"]
    assert properties == {
        "i": {"type": "long"}, "f": {"type": "float"}, "b": {"type": "boolean"},
        "s": {"type": "text", "fields": {"keyword": {"type": "keyword", "ignore_above": 256}}},
        "d": {"type": "date"}, "o": {"properties": {"a": {"type": "long"}}},
        "big": {"type": "long"},
    }  # fmt: skip
    # Visible at once, without a refresh; _source as sent (nulls kept).
    assert server.request("GET", f"/{index}/_doc/1")[1]["_source"] == source


def test_external_versions_conflict_per_item(server: SearchServer, index: str) -> None:
    first = _item(server.bulk(_external(index, "1", 42), {"n": 1}))
    assert (first["status"], first["result"], first["_version"]) == (201, "created", 42)
    for version in (42, 41):  # a replay, a stale record: 409 in the item, 200 for the bulk
        status, body = server.bulk(_external(index, "1", version), {"n": 2})
        assert status == 200 and body["errors"] is True
        item = _item((status, body))
        assert item["status"] == 409
        assert item["error"]["type"] == "version_conflict_engine_exception"
        reason = f"current version [42] is higher or equal to the one provided [{version}]"
        assert item["error"]["reason"] == f"[1]: version conflict, {reason}"
    newer = _item(server.bulk(_external(index, "1", 43), {"n": 3}))
    assert (newer["status"], newer["result"], newer["_version"]) == (200, "updated", 43)
    assert server.request("GET", f"/{index}/_doc/1")[1]["_source"] == {"n": 3}
    # external_gte takes an equal version.
    gte = {"index": {"_index": index, "_id": "1", "version": 43, "version_type": "external_gte"}}
    assert _item(server.bulk(gte, {"n": 4}))["status"] == 200
    # Internal versions are refused for the whole request.
    internal = server.bulk({"index": {"_index": index, "_id": "1", "version": 1}}, {"n": 5})
    assert internal[0] == 400 and _error_type(internal) == "action_request_validation_exception"


def test_external_deletes_leave_tombstones(server: SearchServer, index: str) -> None:
    server.bulk(_external(index, "1", 10), {"n": 1})
    same = _item(server.bulk(_external(index, "1", 10, "delete")))
    assert (same["status"], same["error"]["type"]) == (409, "version_conflict_engine_exception")
    deleted = _item(server.bulk(_external(index, "1", 11, "delete")))
    assert (deleted["status"], deleted["result"], deleted["_version"]) == (200, "deleted", 11)
    assert server.request("GET", f"/{index}/_doc/1") == (
        404, {"_id": "1", "_index": index, "found": False})  # fmt: skip
    # The tombstone keeps version 11: a replayed older index is a conflict.
    assert _item(server.bulk(_external(index, "1", 11), {"n": 2}))["status"] == 409
    assert _item(server.bulk(_external(index, "1", 12), {"n": 3}))["result"] == "created"
    # A delete of a missing document: 404 "not_found" in the item, no error; a tombstone too.
    status, body = server.bulk(_external(index, "gone", 5, "delete"))
    assert body["errors"] is False
    assert (_item((status, body))["status"], _item((status, body))["result"]) == (404, "not_found")
    assert _item(server.bulk(_external(index, "gone", 4), {"n": 1}))["status"] == 409
    # An external delete creates a missing index (as Elasticsearch does).
    other = f"{index}-deleted"
    assert _item(server.bulk(_external(other, "1", 1, "delete")))["status"] == 404
    assert server.request("HEAD", f"/{other}")[0] == 200


def test_updates_upsert(server: SearchServer, index: str) -> None:
    def upsert(doc: dict[str, Any]) -> dict[str, Any]:
        action = {"update": {"_index": index, "_id": "u", "retry_on_conflict": 3}}
        return _item(server.bulk(action, {"doc": doc, "upsert": doc}))

    created = upsert({"user": "bob", "n": 1})
    assert (created["status"], created["result"], created["_version"]) == (201, "created", 1)
    updated = upsert({"user": "bob", "n": 2})
    assert (updated["status"], updated["result"], updated["_version"]) == (200, "updated", 2)
    same = upsert({"user": "bob", "n": 2})
    assert (same["status"], same["result"], same["_version"]) == (200, "noop", 2)
    as_upsert = {"update": {"_index": index, "_id": "d"}}
    item = _item(server.bulk(as_upsert, {"doc": {"n": 1}, "doc_as_upsert": True}))
    assert item["result"] == "created"
    # A versioned update is refused for the whole request.
    versioned = {"update": {"_index": index, "_id": "u", "version": 9, "version_type": "external"}}
    refused = server.bulk(versioned, {"doc": {"n": 3}})
    assert refused[0] == 400 and _error_type(refused) == "illegal_argument_exception"
    assert "do not support versioning" in refused[1]["error"]["reason"]


def test_malformed_documents_fail_their_item_only(server: SearchServer, index: str) -> None:
    server.request("PUT", f"/{index}")
    properties = {"n": {"type": "long"}, "t": {"type": "date"}, "o": {"properties": {}}}
    server.request("PUT", f"/{index}/_mapping", {"properties": properties})
    status, body = server.bulk(
        {"index": {"_index": index, "_id": "1"}}, {"n": "not a number"},
        {"index": {"_index": index, "_id": "2"}}, {"n": 2},
        {"index": {"_index": index, "_id": "3"}}, {"t": "yesterday-ish"},
        {"index": {"_index": index, "_id": "4"}}, {"o": "a string"},
    )  # fmt: skip
    assert status == 200 and body["errors"] is True
    statuses = [_item((status, body), n)["status"] for n in range(4)]
    assert statuses == [400, 201, 400, 400]
    for n in (0, 2, 3):
        error = _item((status, body), n)["error"]
        assert error["type"] == "mapper_parsing_exception"
        assert error["caused_by"]["type"] == "illegal_argument_exception"
    assert _item((status, body))["error"]["reason"] == (
        "failed to parse field [n] of type [long] in document with id '1'. "
        "Preview of field's value: 'not a number'")  # fmt: skip
    # A source that is not a JSON object: mapper_parsing_exception too.
    bad = f'{{"index":{{"_index":"{index}","_id":"5"}}}}\n[1,2]\n'
    assert _item(server.request("POST", "/_bulk", bad))["error"]["type"] == (
        "mapper_parsing_exception")  # fmt: skip


def test_bulk_request_errors(server: SearchServer, index: str) -> None:
    # No _id: generated (20 characters).
    item = _item(server.bulk({"index": {"_index": index}}, {"n": 1}))
    assert item["status"] == 201 and len(item["_id"]) == 20
    # A create of an existing id: 409 in the item.
    create = {"create": {"_index": index, "_id": item["_id"]}}
    assert _item(server.bulk(create, {"n": 2}))["error"]["type"] == (
        "version_conflict_engine_exception")  # fmt: skip
    # _type (Elasticsearch 6, the sink up to 10.x) is refused for the whole request.
    typed = server.bulk({"index": {"_index": index, "_id": "t", "_type": "_doc"}}, {"n": 1})
    assert typed[0] == 400 and "unknown parameter [_type]" in typed[1]["error"]["reason"]
    # The body must end with a newline, and must not be empty.
    unterminated = server.request("POST", "/_bulk", f'{{"index":{{"_index":"{index}"}}}}\n{{}}')
    assert unterminated[0] == 400
    assert "must be terminated by a newline" in unterminated[1]["error"]["reason"]
    assert _error_type(server.request("POST", "/_bulk", b"")) == "parse_exception"


def test_search_and_count_shapes(server: SearchServer, index: str) -> None:
    server.bulk({"index": {"_index": index, "_id": "1"}}, {"user": "anne"},
                {"index": {"_index": index, "_id": "2"}}, {"user": "bob"})  # fmt: skip
    status, body = server.request("GET", f"/{index}/_search")
    assert status == 200
    assert body["hits"]["total"] == {"value": 2, "relation": "eq"}  # an object, as in ES 7+
    assert [h["_id"] for h in body["hits"]["hits"]] == ["1", "2"]
    assert all("_type" not in h for h in body["hits"]["hits"])
    assert body["hits"]["hits"][0]["_source"] == {"user": "anne"}
    assert server.request("GET", f"/{index}/_count")[1]["count"] == 2
    assert server.request("GET", f"/{index}/_count?q=user:bob")[1]["count"] == 1
    query = {"query": {"term": {"user.keyword": "bob"}}}
    assert server.request("POST", f"/{index}/_search", query)[1]["hits"]["total"]["value"] == 1
    pretty = _raw(f"{server.url}/{index}/_search?pretty=true")[2].decode()
    assert '\n  "hits" : {\n' in pretty  # Elasticsearch's pretty layout
    assert json.loads(pretty)["hits"]["total"]["value"] == 2
    missing = server.request("GET", f"/{index}-missing/_search")
    assert missing[0] == 404 and _error_type(missing) == "index_not_found_exception"


def test_authorization_is_ignored(server: SearchServer) -> None:
    for value in ("Basic ZWxhc3RpYzp3cm9uZw==", "Bearer token", "ApiKey abc"):
        assert server.request("GET", "/", headers={"Authorization": value})[0] == 200


def test_content_types(server: SearchServer, index: str) -> None:
    lines = f'{{"index":{{"_index":"{index}"}}}}\n{{"n":1}}\n'.encode()
    for kind in (
        "application/x-ndjson",
        "application/json",
        "application/json; charset=UTF-8",
        "application/x-ndjson; charset=UTF-8",
        "application/vnd.opensearch+json",
    ):
        assert _raw(server.url + "/_bulk", "POST", lines, {"Content-Type": kind})[0] == 200
    # Elasticsearch 8/9 clients' compatibility types and anything not JSON: 406, with a
    # string as the error (not an object).
    for kind in (
        "application/vnd.elasticsearch+json; compatible-with=8",
        "application/vnd.elasticsearch+x-ndjson; compatible-with=8",
        "application/x-www-form-urlencoded",
        "text/plain",
        "application/smile",
    ):
        status, _, body = _raw(server.url + "/_bulk", "POST", lines, {"Content-Type": kind})
        error = f"Content-Type header [{kind}] is not supported"
        assert (status, json.loads(body)) == (406, {"error": error, "status": 406})
    # A compatibility Accept header alone is ignored.
    compatible = {"Accept": "application/vnd.elasticsearch+json; compatible-with=8"}
    status, headers, _ = _raw(server.url + "/", headers=compatible)
    assert status == 200 and headers["content-type"] == "application/json; charset=UTF-8"


def test_gzip_request_bodies_no_gzip_answers(server: SearchServer, index: str) -> None:
    lines = f'{{"index":{{"_index":"{index}","_id":"g"}}}}\n{{"n":1}}\n'.encode()
    headers = {"Content-Type": "application/x-ndjson", "Content-Encoding": "gzip",
               "Accept-Encoding": "gzip"}  # fmt: skip
    status, answer_headers, body = _raw(server.url + "/_bulk", "POST", gzip.compress(lines),
                                        headers)  # fmt: skip
    assert status == 200 and json.loads(body)["errors"] is False
    assert "content-encoding" not in answer_headers  # Elasticsearch would gzip its answer
    assert server.request("GET", f"/{index}/_doc/g")[1]["_source"] == {"n": 1}


def test_connections_are_kept_alive(server: SearchServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("GET", "/")
        connection.getresponse().read()
        first = connection.sock
        connection.request("GET", "/_cluster/health")
        assert connection.getresponse().status == 200
        assert connection.sock is first
    finally:
        connection.close()


# --- the helpers --------------------------------------------------------------------------


def test_pause_kill_and_restart() -> None:
    with SearchServer() as server:
        server.request("PUT", "/kept")
        server.pause()
        started = time.monotonic()
        with pytest.raises((TimeoutError, urllib.error.URLError)):
            server.request("GET", "/kept/_count", timeout=0.3)
        assert time.monotonic() - started < 5
        server.resume()
        assert server.request("GET", "/kept/_count")[1]["count"] == 0
        port, pid = server.port, server.pid
        server.kill()
        with pytest.raises(urllib.error.URLError):
            server.request("GET", "/", timeout=2)
        server.start()
        assert (server.port, server.request("HEAD", "/kept")[0]) == (port, 404)
        assert server.pid != pid


def test_tls_proxy_with_basic_auth(server: SearchServer) -> None:
    with TlsProxy(server.url, users={"elastic": "secret"}) as proxy:
        assert proxy.url.startswith("https://127.0.0.1:")
        context = proxy.stores.client_context()
        url = proxy.url + "/"
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
            http_request("GET", url)  # the system's CAs
        status, body = http_request("GET", url, context=context)
        assert status == 401 and body["error"]["type"] == "security_exception"
        assert "missing authentication credentials" in body["error"]["reason"]
        wrong = {"Authorization": "Basic ZWxhc3RpYzp3cm9uZw=="}  # elastic:wrong
        assert http_request("GET", url, headers=wrong, context=context)[0] == 401
        right = {"Authorization": "Basic ZWxhc3RpYzpzZWNyZXQ="}  # elastic:secret
        status, body = http_request("GET", url, headers=right, context=context)
        assert status == 200 and body["version"]["distribution"] == "opensearch"
        challenge = proxy.requests[0].status, proxy.requests[0].forwarded
        assert challenge == (401, False)
        assert [r.status for r in proxy.requests] == [401, 401, 200]
        # The PEM and PKCS12 truststores as Seaway reads them.
        for kind in ("PEM", "PKCS12"):
            settings = TlsSettings(proxy.stores.ssl_config(kind, prefix=""))
            assert http_request("HEAD", url, headers=right,
                                context=settings.client_context())[0] == 200  # fmt: skip


def test_tls_proxy_requiring_client_certificates(server: SearchServer) -> None:
    with TlsProxy(server.url, client_auth=True) as proxy:
        with pytest.raises((urllib.error.URLError, ssl.SSLError, ConnectionError)):
            http_request("GET", proxy.url + "/", context=proxy.stores.client_context())
        context = proxy.stores.client_context(client=True)
        assert http_request("GET", proxy.url + "/", context=context)[0] == 200
        for kind in ("PEM", "PKCS12"):
            config = proxy.stores.ssl_config(kind, client=True)
            assert config["elastic.https.ssl.keystore.type"] == kind
            settings = TlsSettings({k.removeprefix("elastic.https."): v for k, v in config.items()})
            assert http_request("GET", proxy.url + "/", context=settings.client_context())[0] == 200
        assert proxy.connection_errors >= 1  # the handshake without a certificate


def test_tls_proxy_keeps_connections_alive_and_forwards_bodies(server: SearchServer) -> None:
    with TlsProxy(server.url) as proxy:
        context = proxy.stores.client_context()
        connection = http.client.HTTPSConnection("127.0.0.1", proxy.port, context=context)
        try:
            lines = b'{"index":{"_index":"via-tls","_id":"1"}}\n{"n":1}\n'
            connection.request("POST", "/_bulk", gzip.compress(lines),
                               {"Content-Type": "application/x-ndjson",
                                "Content-Encoding": "gzip"})  # fmt: skip
            assert json.loads(connection.getresponse().read())["errors"] is False
            first = connection.sock
            connection.request("HEAD", "/via-tls")
            response = connection.getresponse()
            assert (response.status, response.read()) == (200, b"")
            connection.request("GET", "/via-tls/_doc/1")
            assert json.loads(connection.getresponse().read())["_source"] == {"n": 1}
            assert connection.sock is first
        finally:
            connection.close()


def test_fault_proxy(server: SearchServer) -> None:
    with FaultProxy(server.url) as proxy:
        proxy.fail_next(2, status=429)
        status, body = http_request("GET", proxy.url + "/")
        assert status == 429 and body["error"]["type"] == "es_rejected_execution_exception"
        proxy.fail_next(1, status=503, body="busy")
        assert http_request("GET", proxy.url + "/x") == (429, body)
        assert http_request("GET", proxy.url + "/y") == (503, "busy")
        assert http_request("GET", proxy.url + "/")[0] == 200
        seen = [(r.path, r.status, r.forwarded) for r in proxy.requests]
        assert seen == [("/", 429, False), ("/x", 429, False), ("/y", 503, False),
                        ("/", 200, True)]  # fmt: skip
        # Refused for a while, on the same port; an open keep-alive connection is closed.
        connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=5)
        connection.request("GET", "/")
        connection.getresponse().read()
        port = proxy.port
        proxy.refuse(0.5)
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        with pytest.raises((http.client.HTTPException, OSError)):
            connection.request("GET", "/")
            connection.getresponse().read()
        connection.close()
        proxy.wait_accepting()
        assert proxy.port == port
        assert http_request("GET", proxy.url + "/")[0] == 200
    # The backend gone: 502 from the proxy.
    with SearchServer() as gone:
        url = gone.url
    with FaultProxy(url) as proxy:
        status, body = http_request("GET", proxy.url + "/")
        assert status == 502 and body["error"]["type"] == "bad_gateway"
