"""Every Kafka Connect REST endpoint, success and error, against a real distributed worker.

One worker process (Spark included) serves the whole module; each test uses its own
connectors, files and topics, and deletes its connectors afterwards. Status codes, bodies
and messages are Kafka's (``ConnectorsResource``, ``ConnectorPluginsResource``,
``LoggingResource``, ``RootResource``, ``ConnectExceptionMapper``, ``AbstractHerder`` and
``DistributedHerder`` at the commit the anchor reference was written from).
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from confluent_kafka.admin import AdminClient

from seaway.broker import BrokerThread
from tests.broker.clients import create_topic, produce, quiet
from tests.connect.storage_helpers import read_all
from tests.connect.workers import Rest, WorkerProcess, distributed_props, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.waits]

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"
CONVERTERS = {"key.converter": STRING_CONVERTER, "value.converter": STRING_CONVERTER}
SOURCE_CLASS = "org.apache.kafka.connect.file.FileStreamSourceConnector"
SINK_CLASS = "org.apache.kafka.connect.file.FileStreamSinkConnector"
WAIT_S = 90.0

HEALTHY = {
    "status": "healthy",
    "message": "Worker has completed startup and is ready to handle requests.",
}
ALTERED = "The offsets for this connector have been altered successfully"
ALTERED_FRAMEWORK = (
    "The Connect framework-managed offsets for this connector have been altered successfully. "
    "However, if this connector manages offsets externally, they will need to be manually "
    "altered in the system that the connector uses."
)
RESET = "The offsets for this connector have been reset successfully"
RESET_FRAMEWORK = (
    "The Connect framework-managed offsets for this connector have been reset successfully. "
    "However, if this connector manages offsets externally, they will need to be manually "
    "reset in the system that the connector uses."
)
NO_OFFSETS = "Partitions / offsets need to be provided for an alter offsets request"


def invalid(*errors: str) -> str:
    """``AbstractHerder.maybeAddConfigErrors``: the 400 message of a create/update."""
    return (
        f"Connector configuration is invalid and contains the following {len(errors)} error(s):"
        + "".join(f"\n{e}" for e in errors)
        + "\nYou can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`"
    )


def not_stopped(name: str) -> str:
    return (
        "Connectors must be in the STOPPED state before their offsets can be modified. This "
        "can be done for the specified connector by issuing a 'PUT' request to the "
        f"'/connectors/{name}/stop' endpoint"
    )


def error(code: int, message: str) -> tuple[int, dict[str, Any]]:
    """The (status, body) of a ``ConnectExceptionMapper`` error."""
    return code, {"error_code": code, "message": message}


def unique(base: str) -> str:
    return f"{base}-{uuid.uuid4().hex[:8]}"


# --- fixtures ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def worker(
    broker: BrokerThread, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerProcess]:
    """One distributed worker for the module, with internal topics of its own."""
    props = distributed_props(broker.bootstrap_servers, unique("rest-api"))
    process = WorkerProcess(props, tmp_path_factory.mktemp("rest-api-worker"))
    with process:
        yield process


class Api:
    """The worker's REST API for one test; remembers the connectors to delete afterwards."""

    def __init__(self, worker: WorkerProcess, bootstrap: str) -> None:
        assert worker.rest is not None
        self.worker = worker
        self.rest: Rest = worker.rest
        self.url = self.rest.url
        self.worker_id = urlsplit(self.url).netloc  # host:port, as Kafka's worker_id
        self.bootstrap = bootstrap
        self.created: list[str] = []

    def name(self, base: str) -> str:
        """A connector name unique to this test, deleted when the test ends."""
        name = unique(base)
        self.created.append(name)
        return name

    def topic(self, base: str, partitions: int = 1) -> str:
        """A new topic; one partition keeps the order of what is written to it."""
        topic = unique(base)
        create_topic(self.bootstrap, topic, partitions)
        return topic

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        status, payload, _ = self.rest.call(method, path, body)
        return status, payload

    def get(self, path: str) -> tuple[int, Any]:
        return self.call("GET", path)

    def create(
        self, name: str, config: dict[str, str], initial_state: str | None = None
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"name": name, "config": config}
        if initial_state is not None:
            request["initial_state"] = initial_state
        status, body, headers = self.rest.call("POST", "/connectors", request)
        assert status == 201, body
        assert headers["Location"] == f"{self.url}/connectors/{name}"
        return body

    def status(self, name: str) -> dict[str, Any] | None:
        code, body = self.get(f"/connectors/{name}/status")
        return body if code == 200 else None

    def wait_status(
        self, name: str, connector: str, tasks: list[str], timeout: float = WAIT_S
    ) -> dict[str, Any]:
        """Wait until the connector is in state *connector* and its tasks in *tasks*."""
        seen: list[Any] = [None]

        def check() -> dict[str, Any] | None:
            body = seen[0] = self.status(name)
            if (
                body is not None
                and body["connector"]["state"] == connector
                and [t["state"] for t in body["tasks"]] == tasks
            ):
                return body
            return None

        try:
            return wait_for(f"{name}: {connector} {tasks}", check, timeout)
        except AssertionError as e:
            raise AssertionError(f"{e}; last status: {seen[0]!r}") from None

    def wait_get(self, path: str, expected: Any, timeout: float = WAIT_S) -> Any:
        """Wait until ``GET path`` answers 200 with *expected*."""
        return wait_for(
            f"GET {path} == {expected!r}", lambda: self.get(path) == (200, expected), timeout
        )


@pytest.fixture
def api(worker: WorkerProcess, broker: BrokerThread) -> Iterator[Api]:
    api = Api(worker, broker.bootstrap_servers)
    yield api
    for name in api.created:
        api.call("DELETE", f"/connectors/{name}")


def diagnosed(test: Callable[..., None]) -> Callable[..., None]:
    """On failure, print the tail of the worker's log (shown with the failure)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            test(*args, **kwargs)
        except BaseException:
            api = kwargs.get("api")
            if api is not None:  # the threads' stacks, then the log's tail
                api.worker.dump_threads()
                print(f"--- worker log ({api.worker.log}) ---\n{api.worker.tail(400)}")
            raise

    return run


def lines_of(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []


def topic_values(bootstrap: str, topic: str) -> list[str]:
    return [value.decode() for _, value in read_all(bootstrap, topic) if value is not None]


def sink_config(topic: str, file: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSink",
        "topics": topic,
        "file": str(file),
        **CONVERTERS,
        **extra,
    }


def source_config(topic: str, file: Path, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSource",
        "topic": topic,
        "file": str(file),
        **CONVERTERS,
        **extra,
    }


# --- root, health, routing --------------------------------------------------------------------


@diagnosed
def test_root_and_health(api: Api) -> None:
    status, info = api.get("/")
    assert status == 200
    assert set(info) == {"version", "commit", "kafka_cluster_id"}
    assert isinstance(info["version"], str) and info["version"]
    assert isinstance(info["commit"], str) and info["commit"]
    admin = AdminClient(quiet({"bootstrap.servers": api.bootstrap}))
    assert info["kafka_cluster_id"] == admin.describe_cluster().result(30).cluster_id

    assert api.get("/health") == (200, HEALTHY)


@diagnosed
def test_unknown_paths_and_wrong_methods(api: Api) -> None:
    assert api.get("/no-such-path") == error(404, "HTTP 404 Not Found")
    assert api.get("/connectors/x/no-such-thing") == error(404, "HTTP 404 Not Found")
    # Jersey answers 404 when an Integer path parameter does not parse.
    assert api.get("/connectors/x/tasks/zero/status") == error(404, "HTTP 404 Not Found")
    assert api.call("DELETE", "/connectors") == error(405, "HTTP 405 Method Not Allowed")
    assert api.call("POST", "/connectors/x/pause") == error(405, "HTTP 405 Method Not Allowed")
    assert api.call("GET", "/connectors/x/restart") == error(405, "HTTP 405 Method Not Allowed")
    assert api.call("POST", "/health") == error(405, "HTTP 405 Method Not Allowed")


# --- creating connectors ----------------------------------------------------------------------


@diagnosed
def test_create_connector_errors(api: Api, tmp_path: Path) -> None:
    existing = api.name("existing")
    config = sink_config(unique("t"), tmp_path / "out.txt")
    api.create(existing, config, initial_state="STOPPED")  # no Spark query needed

    missing_topic = api.name("no-topic")
    both_topics = api.name("both-topics")
    no_tasks = api.name("no-tasks")
    mismatch = api.name("mismatch")
    no_class = api.name("no-class")
    requests = {
        "duplicate": {"name": existing, "config": config},
        "name mismatch": {"name": mismatch, "config": {**config, "name": "other"}},
        "no connector.class": {"name": no_class, "config": {}},
        "source without topic": {
            "name": missing_topic,
            "config": {"connector.class": "FileStreamSource", "file": str(tmp_path / "in")},
        },
        "topics and topics.regex": {
            "name": both_topics,
            "config": {**config, "topics.regex": "t-.*"},
        },
        "tasks.max=0": {"name": no_tasks, "config": {**config, "tasks.max": "0"}},
    }
    observed = {case: api.call("POST", "/connectors", body) for case, body in requests.items()}
    mutually_exclusive = "topics and topics.regex are mutually exclusive options, but both are set."
    assert observed == {
        "duplicate": error(409, f"Connector {existing} already exists"),
        "name mismatch": error(
            400,
            f"Connector name configuration (other) doesn't match connector name in the URL "
            f"({mismatch})",
        ),
        "no connector.class": error(
            400, f"Connector config {{name={no_class}}} contains no connector type"
        ),
        "source without topic": error(
            400, invalid('Missing required configuration "topic" which has no default value.')
        ),
        "topics and topics.regex": error(400, invalid(mutually_exclusive, mutually_exclusive)),
        "tasks.max=0": error(
            400, invalid("Invalid value 0 for configuration tasks.max: Value must be at least 1")
        ),
    }
    for name in (missing_topic, both_topics, no_tasks, mismatch, no_class):
        assert api.get(f"/connectors/{name}") == error(404, f"Connector {name} not found")

    # Jackson could not map the body: an uncaught exception, 500.
    status, body, _ = api.rest.call("POST", "/connectors", raw=b'{"name": "x", "config": {')
    assert status == 500 and body["error_code"] == 500, body
    status, body = api.call("POST", "/connectors", {"name": "x", "config": {}, "bogus": 1})
    assert status == 500 and body["error_code"] == 500, body
    assert "Unrecognized field" in body["message"], body

    # An unknown class: Plugins.newConnector throws a ConnectException, which is not a
    # ConnectRestException, so ConnectExceptionMapper answers 500 with its message.
    unknown = api.name("unknown-class")
    request = {"name": unknown, "config": {"connector.class": "com.example.NoSuchConnector"}}
    status, body = api.call("POST", "/connectors", request)
    assert (status, body["error_code"]) == (500, 500), body
    assert body["message"].startswith(
        "Failed to find any class that implements Connector and which name matches "
        "com.example.NoSuchConnector, available connectors are: "
    ), body
    assert SOURCE_CLASS in body["message"] and SINK_CLASS in body["message"], body
    assert api.get(f"/connectors/{unknown}") == error(404, f"Connector {unknown} not found")


@diagnosed
def test_initial_states_and_expanded_listing(api: Api, tmp_path: Path) -> None:
    paused, stopped = api.name("paused"), api.name("stopped")
    paused_config = source_config(unique("t"), tmp_path / "in.txt")
    stopped_config = sink_config(api.topic("stopped"), tmp_path / "out.txt")
    created = api.create(paused, paused_config, initial_state="PAUSED")
    assert created == {
        "name": paused,
        "config": {**paused_config, "name": paused},
        "tasks": [],
        "type": "source",
    }
    created = api.create(stopped, stopped_config, initial_state="stopped")  # case-insensitive
    assert created == {
        "name": stopped,
        "config": {**stopped_config, "name": stopped},
        "tasks": [],
        "type": "sink",
    }

    connector = {"worker_id": api.worker_id}
    paused_status = {
        "name": paused,
        "connector": {"state": "PAUSED", **connector},
        "tasks": [],
        "type": "source",
    }
    stopped_status = {
        "name": stopped,
        "connector": {"state": "STOPPED", **connector},
        "tasks": [],
        "type": "sink",
    }
    assert api.wait_status(paused, "PAUSED", []) == paused_status
    assert api.wait_status(stopped, "STOPPED", []) == stopped_status
    # No task configs are generated for a connector created PAUSED or STOPPED.
    assert api.get(f"/connectors/{paused}/tasks") == (200, [])
    assert api.get(f"/connectors/{stopped}/tasks") == (200, [])
    assert api.get(f"/connectors/{stopped}/tasks-config") == (200, {})

    status, names = api.get("/connectors")
    assert status == 200 and isinstance(names, list)
    assert {paused, stopped} <= set(names)

    paused_info = {
        "name": paused,
        "config": {**paused_config, "name": paused},
        "tasks": [],
        "type": "source",
    }
    stopped_info = {
        "name": stopped,
        "config": {**stopped_config, "name": stopped},
        "tasks": [],
        "type": "sink",
    }
    ours = (paused, stopped)
    expansions = {
        "status": {paused: {"status": paused_status}, stopped: {"status": stopped_status}},
        "info": {paused: {"info": paused_info}, stopped: {"info": stopped_info}},
        "status&expand=info": {
            paused: {"status": paused_status, "info": paused_info},
            stopped: {"status": stopped_status, "info": stopped_info},
        },
        "bogus": {paused: {}, stopped: {}},  # unknown expansions are ignored
        "bogus&expand=info": {paused: {"info": paused_info}, stopped: {"info": stopped_info}},
    }
    for query, expected in expansions.items():
        status, body = api.get(f"/connectors?expand={query}")
        assert status == 200 and isinstance(body, dict), (query, body)
        assert {k: v for k, v in body.items() if k in ours} == expected, query

    # Resuming a connector created STOPPED generates its tasks.
    assert api.call("PUT", f"/connectors/{stopped}/resume") == (202, None)
    api.wait_status(stopped, "RUNNING", ["RUNNING"])
    status, tasks = api.get(f"/connectors/{stopped}/tasks")
    assert status == 200 and [t["id"] for t in tasks] == [{"connector": stopped, "task": 0}]
    assert tasks[0]["config"]["topics"] == stopped_config["topics"]


# --- config: PUT, PATCH, DELETE ---------------------------------------------------------------


@diagnosed
def test_put_and_patch_config(api: Api, tmp_path: Path) -> None:
    name = api.name("put")
    config = sink_config(api.topic("put"), tmp_path / "out.txt")
    status, body, headers = api.rest.call("PUT", f"/connectors/{name}/config", config)
    assert status == 201, body  # PUT created it
    assert headers["Location"] == f"{api.url}/connectors/{name}"
    assert body["name"] == name and body["type"] == "sink"
    assert body["config"] == {**config, "name": name}
    # Paused: the config changes below restart no Spark query.
    assert api.call("PUT", f"/connectors/{name}/pause") == (202, None)

    updated = {**config, "tasks.max": "2", "name": name}
    status, body = api.call("PUT", f"/connectors/{name}/config", updated)
    assert status == 200, body  # PUT updated it
    assert (body["name"], body["config"], body["type"]) == (name, updated, "sink")
    assert api.get(f"/connectors/{name}/config") == (200, updated)

    status, body = api.call("PATCH", f"/connectors/{name}/config", {"errors.log.enable": "true"})
    assert status == 200, body
    assert body["config"] == {**updated, "errors.log.enable": "true"}
    assert api.get(f"/connectors/{name}/config") == (200, {**updated, "errors.log.enable": "true"})
    # A null value deletes the key.
    status, body = api.call("PATCH", f"/connectors/{name}/config", {"errors.log.enable": None})
    assert status == 200, body
    assert body["config"] == updated
    assert api.get(f"/connectors/{name}/config") == (200, updated)

    other = unique("other")
    assert api.call("PATCH", f"/connectors/{other}/config", {"tasks.max": "1"}) == error(
        404, f"Connector {other} not found"
    )
    assert api.get(f"/connectors/{other}/config") == error(404, f"Connector {other} not found")
    assert api.call("PUT", f"/connectors/{name}/config", {**config, "name": other}) == error(
        400,
        f"Connector name configuration ({other}) doesn't match connector name in the URL ({name})",
    )
    assert api.call("PUT", f"/connectors/{name}/config", {}) == error(
        400, f"Connector config {{name={name}}} contains no connector type"
    )
    assert api.call("PUT", f"/connectors/{name}/config", {**config, "tasks.max": "0"}) == error(
        400, invalid("Invalid value 0 for configuration tasks.max: Value must be at least 1")
    )
    assert api.call("PATCH", f"/connectors/{name}/config", {"tasks.max": "0"}) == error(
        400, invalid("Invalid value 0 for configuration tasks.max: Value must be at least 1")
    )
    assert api.get(f"/connectors/{name}/config") == (200, updated)  # unchanged by the 400s

    # DELETE: 204 without a body, then the connector is gone.
    assert api.call("DELETE", f"/connectors/{name}") == (204, None)
    assert api.get(f"/connectors/{name}") == error(404, f"Connector {name} not found")
    assert api.call("DELETE", f"/connectors/{name}") == error(404, f"Connector {name} not found")
    status, names = api.get("/connectors")
    assert status == 200 and name not in names


# --- a running connector: reads, pause, resume, stop ------------------------------------------


@diagnosed
def test_connector_lifecycle(api: Api, tmp_path: Path) -> None:
    name = api.name("life")
    topic = api.topic("life")
    config = sink_config(topic, tmp_path / "out.txt")
    created = api.create(name, config)
    assert created["name"] == name and created["type"] == "sink"
    assert created["config"] == {**config, "name": name}
    assert created["tasks"] in ([], [{"connector": name, "task": 0}])
    assert api.call("POST", "/connectors", {"name": name, "config": config}) == error(
        409, f"Connector {name} already exists"
    )

    running = api.wait_status(name, "RUNNING", ["RUNNING"])
    assert running == {
        "name": name,
        "connector": {"state": "RUNNING", "worker_id": api.worker_id},
        "tasks": [{"id": 0, "state": "RUNNING", "worker_id": api.worker_id}],
        "type": "sink",
    }
    info = {
        "name": name,
        "config": {**config, "name": name},
        "tasks": [{"connector": name, "task": 0}],
        "type": "sink",
    }
    api.wait_get(f"/connectors/{name}", info)
    assert api.get(f"/connectors/{name}/config") == (200, {**config, "name": name})
    status, tasks = api.get(f"/connectors/{name}/tasks")
    assert status == 200 and [t["id"] for t in tasks] == [{"connector": name, "task": 0}]
    task_config = tasks[0]["config"]
    assert {k: task_config.get(k) for k in ("file", "topics")} == {
        "file": config["file"],
        "topics": topic,
    }
    assert "task.class" in task_config
    assert api.get(f"/connectors/{name}/tasks-config") == (200, {f"{name}-0": task_config})
    assert api.get(f"/connectors/{name}/tasks/0/status") == (
        200,
        {"id": 0, "state": "RUNNING", "worker_id": api.worker_id},
    )

    other = unique("nobody")
    assert api.get(f"/connectors/{name}/tasks/9/status") == error(
        404, f"No status found for task {name}-9"
    )
    assert api.get(f"/connectors/{other}") == error(404, f"Connector {other} not found")
    assert api.get(f"/connectors/{other}/status") == error(
        404, f"No status found for connector {other}"
    )
    assert api.get(f"/connectors/{other}/tasks") == error(404, f"Connector {other} not found")
    assert api.get(f"/connectors/{other}/tasks-config") == error(
        404, f"Connector {other} not found"
    )
    assert api.get(f"/connectors/{other}/tasks/0/status") == error(
        404, f"No status found for task {other}-0"
    )
    for action in ("pause", "resume", "stop"):
        assert api.call("PUT", f"/connectors/{other}/{action}") == error(
            404, f"Unknown connector {other}"
        ), action

    # Pause: connector and tasks PAUSED, task configs kept; idempotent.
    assert api.call("PUT", f"/connectors/{name}/pause") == (202, None)
    api.wait_status(name, "PAUSED", ["PAUSED"])
    assert api.call("PUT", f"/connectors/{name}/pause") == (202, None)
    assert api.get(f"/connectors/{name}/tasks") == (200, tasks)
    assert api.call("PUT", f"/connectors/{name}/resume") == (202, None)
    api.wait_status(name, "RUNNING", ["RUNNING"])

    # Stop: tasks shut down and their configs removed; resume generates them again.
    assert api.call("PUT", f"/connectors/{name}/stop") == (204, None)
    stopped = api.wait_status(name, "STOPPED", [])
    assert stopped["tasks"] == []
    assert api.get(f"/connectors/{name}/tasks") == (200, [])
    assert api.get(f"/connectors/{name}") == (200, {**info, "tasks": []})
    assert api.call("PUT", f"/connectors/{name}/stop") == (204, None)  # idempotent
    assert api.call("PUT", f"/connectors/{name}/resume") == (202, None)
    api.wait_status(name, "RUNNING", ["RUNNING"])
    api.wait_get(f"/connectors/{name}", info)

    assert api.call("DELETE", f"/connectors/{name}") == (204, None)
    assert api.get(f"/connectors/{name}") == error(404, f"Connector {name} not found")
    wait_for(
        "the deleted connector's status to go",
        lambda: (
            api.get(f"/connectors/{name}/status")
            == error(404, f"No status found for connector {name}")
        ),
        WAIT_S,
    )


# --- a failing task, restarts -----------------------------------------------------------------


@diagnosed
def test_failed_task_and_restarts(api: Api, tmp_path: Path) -> None:
    topic = api.topic("restart")
    first = ["one", "two", "three"]
    produce(api.bootstrap, topic, [(None, line.encode()) for line in first])
    good, bad = api.name("good"), api.name("bad")
    good_file = tmp_path / "good.txt"
    bad_file = tmp_path / "missing" / "bad.txt"  # its directory does not exist (yet)
    api.create(good, sink_config(topic, good_file))
    api.create(bad, sink_config(topic, bad_file))

    wait_for("the good sink's copy", lambda: lines_of(good_file) == first, WAIT_S)
    failed = api.wait_status(bad, "RUNNING", ["FAILED"])
    trace = failed["tasks"][0].get("trace", "")
    assert f"Couldn't find or create file '{bad_file}' for FileStreamSinkTask" in trace, trace
    assert failed["tasks"][0]["worker_id"] == api.worker_id
    status, task = api.get(f"/connectors/{bad}/tasks/0/status")
    assert status == 200 and task["state"] == "FAILED" and task["id"] == 0
    assert "Couldn't find or create file" in task["trace"]

    # The other connector keeps running and copying.
    second = ["four", "five"]
    produce(api.bootstrap, topic, [(None, line.encode()) for line in second])
    wait_for("the good sink's copy", lambda: lines_of(good_file) == first + second, WAIT_S)
    api.wait_status(good, "RUNNING", ["RUNNING"], timeout=5)

    # KIP-745: only the failed instances are marked RESTARTING (the connector is RUNNING).
    path = f"/connectors/{bad}/restart?includeTasks=true&onlyFailed=true"
    status, restart_plan = api.call("POST", path)
    assert status == 202, restart_plan
    assert restart_plan["name"] == bad and restart_plan["type"] == "sink"
    assert restart_plan["connector"] == {"state": "RUNNING", "worker_id": api.worker_id}
    assert [(t["id"], t["state"]) for t in restart_plan["tasks"]] == [(0, "RESTARTING")]
    # The directory is still missing: the task fails again.
    api.wait_status(bad, "RUNNING", ["FAILED"])

    assert api.call("POST", f"/connectors/{bad}/tasks/5/restart") == error(
        404, f"Unknown task: {bad}-5"
    )
    other = unique("nobody")
    assert api.call("POST", f"/connectors/{other}/restart") == error(
        404, f"Unknown connector: {other}"
    )
    assert api.call("POST", f"/connectors/{other}/restart?includeTasks=true") == error(
        404, f"Unknown connector: {other}"
    )
    assert api.call("POST", f"/connectors/{other}/tasks/0/restart") == error(
        404, f"Unknown connector: {other}"
    )

    # Fix the cause, restart the task: it runs and catches up.
    bad_file.parent.mkdir()
    assert api.call("POST", f"/connectors/{bad}/tasks/0/restart") == (204, None)
    running = api.wait_status(bad, "RUNNING", ["RUNNING"])
    assert "trace" not in running["tasks"][0]
    wait_for("the fixed sink's copy", lambda: lines_of(bad_file) == first + second, WAIT_S)
    assert api.get(f"/connectors/{bad}/tasks/0/status") == (
        200,
        {"id": 0, "state": "RUNNING", "worker_id": api.worker_id},
    )
    api.wait_status(good, "RUNNING", ["RUNNING"], timeout=5)

    # A restart request that selects nothing is 202 with the current states.
    path = f"/connectors/{good}/restart?includeTasks=true&onlyFailed=true"
    assert api.call("POST", path) == (
        202,
        {
            "name": good,
            "connector": {"state": "RUNNING", "worker_id": api.worker_id},
            "tasks": [{"id": 0, "state": "RUNNING", "worker_id": api.worker_id}],
            "type": "sink",
        },
    )

    # Plain restart: the connector instance only, 204 without a body; it comes back RUNNING.
    assert api.call("POST", f"/connectors/{bad}/restart") == (204, None)
    api.wait_status(bad, "RUNNING", ["RUNNING"], timeout=30)
    third = ["six"]
    produce(api.bootstrap, topic, [(None, line.encode()) for line in third])
    for file in (good_file, bad_file):
        wait_for(f"{file.name}", lambda f=file: lines_of(f) == first + second + third, WAIT_S)

    # Kafka's restart plan (AbstractHerder.buildRestartPlan) keeps each instance's stored
    # trace: the task marked RESTARTING still shows why it failed.
    assert "Couldn't find or create file" in restart_plan["tasks"][0].get("trace", ""), restart_plan


# --- offsets and active topics ----------------------------------------------------------------


@diagnosed
def test_source_offsets(api: Api, tmp_path: Path) -> None:
    lines = ["alpha", "bravo", "charlie", "delta"]
    source = tmp_path / "in.txt"
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    ends = [6, 12, 20, 26]  # the position after each line
    topic = api.topic("source-offsets")
    name = api.name("source")
    api.create(name, source_config(topic, source))
    offsets_path = f"/connectors/{name}/offsets"

    def offsets(position: int) -> dict[str, Any]:
        return {
            "offsets": [{"partition": {"filename": str(source)}, "offset": {"position": position}}]
        }

    wait_for("the lines in the topic", lambda: topic_values(api.bootstrap, topic) == lines, WAIT_S)
    api.wait_get(offsets_path, offsets(ends[-1]))
    api.wait_get(f"/connectors/{name}/topics", {name: {"topics": [topic]}})

    # Offsets change only while STOPPED (PAUSED is not enough); the body is checked first.
    assert api.call("PATCH", offsets_path, offsets(ends[1])) == error(400, not_stopped(name))
    assert api.call("DELETE", offsets_path) == error(400, not_stopped(name))
    assert api.call("PATCH", offsets_path, {}) == error(400, NO_OFFSETS)
    assert api.call("PATCH", offsets_path, {"offsets": []}) == error(400, NO_OFFSETS)
    other = unique("nobody")
    for method in ("GET", "DELETE"):
        assert api.call(method, f"/connectors/{other}/offsets") == error(
            404, f"Connector {other} not found"
        ), method
    assert api.call("PATCH", f"/connectors/{other}/offsets", offsets(0)) == error(
        404, f"Connector {other} not found"
    )

    assert api.call("PUT", f"/connectors/{name}/stop") == (204, None)
    api.wait_status(name, "STOPPED", [])
    assert api.get(f"/connectors/{name}/tasks") == (200, [])
    assert api.get(offsets_path) == (200, offsets(ends[-1]))  # readable while stopped

    # Back to the end of "bravo": after resuming, the two lines after it come again.
    status, body = api.call("PATCH", offsets_path, offsets(ends[1]))
    assert status == 200 and body in ({"message": ALTERED}, {"message": ALTERED_FRAMEWORK}), body
    assert api.get(offsets_path) == (200, offsets(ends[1]))
    assert api.call("PUT", f"/connectors/{name}/resume") == (202, None)
    api.wait_status(name, "RUNNING", ["RUNNING"])
    wait_for(
        "the re-emitted lines",
        lambda: topic_values(api.bootstrap, topic) == lines + lines[2:],
        WAIT_S,
    )
    api.wait_get(offsets_path, offsets(ends[-1]))

    # Reset: no offsets at all.
    assert api.call("PUT", f"/connectors/{name}/stop") == (204, None)
    api.wait_status(name, "STOPPED", [])
    status, body = api.call("DELETE", offsets_path)
    assert status == 200 and body in ({"message": RESET}, {"message": RESET_FRAMEWORK}), body
    assert api.get(offsets_path) == (200, {"offsets": []})

    # Active topics survive a stop; a reset forgets them (no state required).
    assert api.get(f"/connectors/{name}/topics") == (200, {name: {"topics": [topic]}})
    assert api.call("PUT", f"/connectors/{name}/topics/reset") == (202, None)
    api.wait_get(f"/connectors/{name}/topics", {name: {"topics": []}})


@diagnosed
def test_sink_offsets_and_topics(api: Api, tmp_path: Path) -> None:
    topic = api.topic("sink-offsets")
    lines = ["red", "green", "blue"]
    produce(api.bootstrap, topic, [(None, line.encode()) for line in lines])
    name = api.name("sink")
    out = tmp_path / "out.txt"
    api.create(name, sink_config(topic, out))
    offsets_path = f"/connectors/{name}/offsets"

    def offsets(offset: int) -> dict[str, Any]:
        return {
            "offsets": [
                {
                    "partition": {"kafka_topic": topic, "kafka_partition": 0},
                    "offset": {"kafka_offset": offset},
                }
            ]
        }

    wait_for("the sink's copy", lambda: lines_of(out) == lines, WAIT_S)
    api.wait_get(offsets_path, offsets(3))
    api.wait_get(f"/connectors/{name}/topics", {name: {"topics": [topic]}})
    assert api.call("PATCH", offsets_path, offsets(1)) == error(400, not_stopped(name))
    assert api.call("DELETE", offsets_path) == error(400, not_stopped(name))

    # PAUSED is not STOPPED.
    assert api.call("PUT", f"/connectors/{name}/pause") == (202, None)
    api.wait_status(name, "PAUSED", ["PAUSED"])
    assert api.call("PATCH", offsets_path, offsets(1)) == error(400, not_stopped(name))

    # Forget the active topics (a paused sink reads nothing, so none come back).
    assert api.call("PUT", f"/connectors/{name}/topics/reset") == (202, None)
    api.wait_get(f"/connectors/{name}/topics", {name: {"topics": []}})
    other = unique("nobody")
    assert api.get(f"/connectors/{other}/topics") == (200, {other: {"topics": []}})

    # A sink created STOPPED: the format checks of SinkUtils.parseSinkConnectorOffsets.
    stopped = api.name("sink-stopped")
    api.create(stopped, sink_config(topic, tmp_path / "stopped.txt"), initial_state="STOPPED")
    api.wait_status(stopped, "STOPPED", [])
    partition = {"kafka_topic": topic, "kafka_partition": 0}
    bad_requests: dict[str, Any] = {
        "no offsets": {},
        "empty offsets": {"offsets": []},
        "no partition": {"offsets": [{"offset": {"kafka_offset": 1}}]},
        "no kafka_partition": {
            "offsets": [{"partition": {"kafka_topic": topic}, "offset": {"kafka_offset": 1}}]
        },
        "bad kafka_partition": {
            "offsets": [
                {
                    "partition": {**partition, "kafka_partition": "zero"},
                    "offset": {"kafka_offset": 1},
                }
            ]
        },
        "no kafka_offset": {"offsets": [{"partition": partition, "offset": {"position": 1}}]},
        "bad kafka_offset": {
            "offsets": [{"partition": partition, "offset": {"kafka_offset": "ten"}}]
        },
    }
    observed = {
        case: api.call("PATCH", f"/connectors/{stopped}/offsets", body)
        for case, body in bad_requests.items()
    }

    # Partition values may be strings; then reset.
    stopped_path = f"/connectors/{stopped}/offsets"
    request = {
        "offsets": [
            {"partition": {**partition, "kafka_partition": "0"}, "offset": {"kafka_offset": 1}}
        ]
    }
    status, body = api.call("PATCH", stopped_path, request)
    assert status == 200 and body in ({"message": ALTERED}, {"message": ALTERED_FRAMEWORK}), body
    api.wait_get(
        stopped_path, {"offsets": [{"partition": partition, "offset": {"kafka_offset": 1}}]}
    )
    # FileStreamSinkConnector.alterOffsets returns true: the plain message. Kafka treats a
    # group that does not exist as already reset.
    observed["reset"] = api.call("DELETE", stopped_path)
    observed["after reset"] = api.get(stopped_path)
    observed["reset again"] = api.call("DELETE", stopped_path)

    # Checked last, so that a wrong answer does not hide the others.
    assert observed == {
        "reset": (200, {"message": RESET}),
        "after reset": (200, {"offsets": []}),
        "reset again": (200, {"message": RESET}),
        "no offsets": error(400, NO_OFFSETS),
        "empty offsets": error(400, NO_OFFSETS),
        "no partition": error(
            400, "The partition for a sink connector offset cannot be null or missing"
        ),
        "no kafka_partition": error(
            400,
            "The partition for a sink connector offset must contain the keys 'kafka_topic' "
            "and 'kafka_partition'",
        ),
        "bad kafka_partition": error(
            400,
            "Failed to parse the following Kafka partition value in the provided offsets: "
            "'zero'. Partition values for sink connectors need to be integers.",
        ),
        "no kafka_offset": error(
            400,
            "The offset for a sink connector should either be null or contain the key "
            "'kafka_offset'",
        ),
        "bad kafka_offset": error(
            400,
            "Failed to parse the following Kafka offset value in the provided offsets: 'ten'. "
            "Offset values for sink connectors need to be integers.",
        ),
    }


# --- plugins and validation -------------------------------------------------------------------

PLUGIN_TYPES = ["sink", "source", "transformation", "predicate", "converter", "header_converter"]


@diagnosed
def test_connector_plugins(api: Api) -> None:
    status, connectors = api.get("/connector-plugins")
    assert status == 200
    assert api.get("/connector-plugins?connectorsOnly=true") == (200, connectors)
    types = [p["type"] for p in connectors]
    assert set(types) == {"sink", "source"}
    assert types == sorted(types, key=PLUGIN_TYPES.index)  # sinks before sources
    by_class = {p["class"]: p for p in connectors}
    for cls, kind in ((SOURCE_CLASS, "source"), (SINK_CLASS, "sink")):
        assert set(by_class[cls]) == {"class", "type", "version"}
        assert by_class[cls]["type"] == kind and by_class[cls]["version"]

    status, everything = api.get("/connector-plugins?connectorsOnly=false")
    assert status == 200
    assert everything[: len(connectors)] == connectors
    types = [p["type"] for p in everything]
    assert types == sorted(types, key=PLUGIN_TYPES.index)
    assert set(types) == set(PLUGIN_TYPES)
    pairs = {(p["class"], p["type"]) for p in everything}
    assert {
        ("org.apache.kafka.connect.transforms.RegexRouter", "transformation"),
        ("org.apache.kafka.connect.transforms.predicates.TopicNameMatches", "predicate"),
        ("org.apache.kafka.connect.json.JsonConverter", "converter"),
        (STRING_CONVERTER, "converter"),
        (STRING_CONVERTER, "header_converter"),
        ("org.apache.kafka.connect.storage.SimpleHeaderConverter", "header_converter"),
    } <= pairs


@diagnosed
def test_plugin_config(api: Api) -> None:
    status, keys = api.get("/connector-plugins/FileStreamSource/config")
    assert status == 200, keys
    names = [k["name"] for k in keys]
    by_name = {k["name"]: k for k in keys}
    regex_router = api.get(
        "/connector-plugins/org.apache.kafka.connect.transforms.RegexRouter/config"
    )
    observed = {
        # The plugin's own keys first, then the framework's (SourceConnectorConfig), as
        # AbstractHerder.connectorPluginConfig merges them.
        "own keys": names[:3],
        "framework keys": sorted({"name", "connector.class", "tasks.max"} & set(names[3:])),
        "topic": by_name.get("topic"),
        "batch.size": {k: by_name.get("batch.size", {}).get(k) for k in ("type", "default_value")},
        "by alias": api.get("/connector-plugins/FileStreamSourceConnector/config"),
        "by class": api.get(f"/connector-plugins/{SOURCE_CLASS}/config"),
        "RegexRouter": (regex_router[0], [k["name"] for k in regex_router[1]]),
        "unknown": api.get("/connector-plugins/com.example.Nope/config"),
    }
    assert observed == {
        "own keys": ["file", "topic", "batch.size"],
        "framework keys": ["connector.class", "name", "tasks.max"],
        "topic": {
            "name": "topic",
            "type": "STRING",
            "required": True,
            "default_value": None,
            "importance": "HIGH",
            "documentation": "The topic to publish data to",
            "group": None,
            "order": -1,
            "width": "NONE",
            "display_name": "topic",
            "dependents": [],
        },
        "batch.size": {"type": "INT", "default_value": "2000"},
        "by alias": (200, keys),
        "by class": (200, keys),
        "RegexRouter": (200, ["regex", "replacement"]),
        "unknown": error(404, "Unknown plugin com.example.Nope."),
    }


@diagnosed
def test_validate_config(api: Api) -> None:
    path = "/connector-plugins/FileStreamSink/config/validate"
    config = {
        "connector.class": "FileStreamSink",
        "name": "validated",
        "topics": "a,b",
        "topics.regex": "b.*",
        "tasks.max": "0",
    }
    status, infos = api.call("PUT", path, config)
    assert status == 200, infos  # 200 even with errors
    assert set(infos) == {"name", "error_count", "groups", "configs"}
    assert infos["name"] == "FileStreamSink"
    both = "topics and topics.regex are mutually exclusive options, but both are set."
    errors = {
        c["value"]["name"]: c["value"]["errors"]
        for c in infos["configs"]
        if c["value"] and c["value"]["errors"]
    }
    assert errors == {
        "tasks.max": ["Invalid value 0 for configuration tasks.max: Value must be at least 1"],
        "topics": [both],
        "topics.regex": [both],
    }
    assert infos["error_count"] == 3
    assert "Common" in infos["groups"]
    for info in infos["configs"]:
        assert set(info) == {"definition", "value"}
        assert set(info["value"]) == {"name", "value", "recommended_values", "errors", "visible"}
    by_name = {c["definition"]["name"]: c for c in infos["configs"] if c["definition"]}
    assert by_name["tasks.max"]["value"]["value"] == "0"
    assert by_name["connector.class"]["definition"]["required"] is True

    # A valid config: no errors.
    valid = {"connector.class": SINK_CLASS, "name": "ok", "topics": "a"}
    status, infos = api.call(
        "PUT", "/connector-plugins/FileStreamSinkConnector/config/validate", valid
    )
    assert status == 200 and infos["error_count"] == 0, infos
    assert infos["name"] == SINK_CLASS

    assert api.call("PUT", "/connector-plugins/FileStreamSource/config/validate", config) == error(
        400, "Included connector type FileStreamSink does not match request type FileStreamSource"
    )

    def errors_of(infos: dict[str, Any]) -> dict[str, list[str]]:
        return {
            c["value"]["name"]: c["value"]["errors"]
            for c in infos["configs"]
            if c["value"] and c["value"]["errors"]
        }

    # SinkConnectorConfig.validate reports a DLQ topic among the topics on `topics`.
    dlq = {
        "connector.class": "FileStreamSink",
        "name": "dlq",
        "topics": "a,b",
        "errors.deadletterqueue.topic.name": "a",
    }
    status, dlq_infos = api.call("PUT", path, dlq)
    assert status == 200, dlq_infos
    # A transformation of an unknown class: ConnectorConfig.enrich defines
    # `transforms.<alias>.type` (type CLASS, group "Transforms: <alias>") and ConfigDef
    # reports the class it could not find on it.
    transform = {
        "connector.class": "FileStreamSink",
        "name": "tx",
        "topics": "a",
        "transforms": "x",
        "transforms.x.type": "com.example.Nope",
    }
    status, tx_infos = api.call("PUT", path, transform)
    assert status == 200, tx_infos
    (type_info,) = [
        c for c in tx_infos["configs"] if (c["value"] or {}).get("name") == "transforms.x.type"
    ]
    definition = type_info["definition"] or {}
    name = api.name("tx")
    message = (
        "Invalid value com.example.Nope for configuration transforms.x.type: "
        "Class com.example.Nope could not be found."
    )
    observed = {
        "dlq errors": errors_of(dlq_infos),
        "transform errors": (tx_infos["error_count"], errors_of(tx_infos)),
        "transform type key": (definition.get("type"), definition.get("group")),
        "transform group listed": "Transforms: x" in tx_infos["groups"],
        # ... and creating such a connector fails with the bare message.
        "create": api.call(
            "POST", "/connectors", {"name": name, "config": {**transform, "name": name}}
        ),
    }
    assert observed == {
        "dlq errors": {
            "topics": [
                "The DLQ topic 'a' may not be included in the list of topics ('topics=[a, b]') "
                "consumed by the connector"
            ]
        },
        "transform errors": (1, {"transforms.x.type": [message]}),
        "transform type key": ("CLASS", "Transforms: x"),
        "transform group listed": True,
        "create": error(400, invalid(message)),
    }

    # DistributedHerder.validateSinkConnectorGroupId: a sink's consumer group may not be the
    # workers' own group, whether by the connector's name or by consumer.override.group.id.
    props = api.worker.props_file.read_text(encoding="utf-8").splitlines()
    group = next(line.split("=", 1)[1] for line in props if line.startswith("group.id="))
    named = {"connector.class": "FileStreamSink", "topics": "a", "name": group[len("connect-") :]}
    status, named_infos = api.call("PUT", path, named)
    assert status == 200 and errors_of(named_infos) == {"name": [
        f"Consumer group for sink connector named {named['name']} conflicts with Connect "
        f"worker group {group}"]}, named_infos  # fmt: skip
    overridden = {**named, "name": "other", "consumer.override.group.id": group}
    status, overridden_infos = api.call("PUT", path, overridden)
    assert status == 200 and errors_of(overridden_infos) == {"consumer.override.group.id": [
        f"Consumer group {group} conflicts with Connect worker group {group}"]}  # fmt: skip


# --- loggers ----------------------------------------------------------------------------------


@diagnosed
def test_admin_loggers(api: Api) -> None:
    status, levels = api.get("/admin/loggers")
    assert status == 200
    assert list(levels) == sorted(levels)
    assert set(levels["root"]) == {"level", "last_modified"}
    assert api.get("/admin/loggers/root") == (200, levels["root"])

    namespace = unique("org.example.rest")
    assert api.get(f"/admin/loggers/{namespace}") == error(404, f"Logger {namespace} not found.")
    assert api.call("PUT", f"/admin/loggers/{namespace}", {"level": "debug"}) == (200, [namespace])
    status, level = api.get(f"/admin/loggers/{namespace}")
    assert status == 200 and level["level"] == "DEBUG" and isinstance(level["last_modified"], int)
    status, levels = api.get("/admin/loggers")
    assert status == 200 and levels[namespace] == level
    # The same level again changes nothing, not even last_modified.
    assert api.call("PUT", f"/admin/loggers/{namespace}", {"level": "DEBUG"}) == (200, [namespace])
    assert api.get(f"/admin/loggers/{namespace}") == (200, level)

    assert api.call("PUT", f"/admin/loggers/{namespace}", {}) == error(
        400, "Desired 'level' parameter was not specified in request."
    )
    assert api.call("PUT", f"/admin/loggers/{namespace}", {"level": "LOUD"}) == error(
        404, "invalid log level 'LOUD'."
    )
    # Cluster scope: 204 without a body; an unknown scope falls back to the worker's.
    assert api.call("PUT", f"/admin/loggers/{namespace}?scope=cluster", {"level": "WARN"}) == (
        204,
        None,
    )
    wait_for(
        "the cluster-scoped level",
        lambda: api.get(f"/admin/loggers/{namespace}")[1]["level"] == "WARN",
        30,
    )
    path = f"/admin/loggers/{namespace}?scope=galaxy"
    assert api.call("PUT", path, {"level": "INFO"}) == (200, [namespace])
    assert api.get(f"/admin/loggers/{namespace}")[1]["level"] == "INFO"
