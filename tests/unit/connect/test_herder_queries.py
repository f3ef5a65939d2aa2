"""ConnectorQueries alone: task configs generated and published, failures and releases
written as statuses (no Spark query is started here)."""

from __future__ import annotations

from seaway.connect.runtime.herder_queries import TASK_CLASS, ConnectorQueries
from seaway.connect.runtime.herder_state import HerderState, RunningConnector
from seaway.connect.runtime.storage import ConnectorStatus, ConnectorTaskId, State, TaskStatus

SINK = {"name": "snk", "connector.class": "FileStreamSink", "file": "out.txt", "topics": "t",
        "tasks.max": "2"}  # fmt: skip


def _queries(
    state: HerderState, published: list[tuple[str, list[dict[str, str]]]]
) -> ConnectorQueries:
    def publish(name: str, configs: list[dict[str, str]]) -> None:
        published.append((name, configs))
        state.configs.put_task_configs(name, configs)

    return ConnectorQueries(
        state,
        may_run=lambda name: True,
        publish_task_configs=publish,
        before_exactly_once_start=lambda name: True,
        status_generation=lambda run: 3,
    )


def _started(state: HerderState) -> RunningConnector:
    state.configs.put_connector_config("snk", SINK)
    connector = state.plugins.new_connector(SINK["connector.class"])
    connector.start(dict(SINK))
    run = state.running["snk"] = RunningConnector(dict(SINK), connector)
    return run


def test_task_configs_are_published_when_they_change(herder_state: HerderState) -> None:
    published: list[tuple[str, list[dict[str, str]]]] = []
    queries = _queries(herder_state, published)
    run = _started(herder_state)
    assert queries.generate_task_configs("snk", run, herder_state.configs.snapshot())
    ((name, configs),) = published
    assert name == "snk" and len(configs) == 2
    assert all(c[TASK_CLASS].endswith("FileStreamSinkTask") and c["topics"] == "t"
               for c in configs)  # fmt: skip
    assert not queries.generate_task_configs("snk", run, herder_state.configs.snapshot())
    assert len(published) == 1


def test_a_failed_connector_and_a_released_one(herder_state: HerderState) -> None:
    queries = _queries(herder_state, [])
    run = _started(herder_state)
    queries.connector_failed("snk", ValueError("boom"))
    status = herder_state.statuses.get_connector("snk")
    assert status is not None and status.state is State.FAILED
    assert "ValueError: boom" in (status.trace or "")
    assert run.stopped_on_error
    herder_state.configs.put_task_configs("snk", [{"k": "v"}])
    queries.release("snk")
    assert "snk" not in herder_state.running
    task = herder_state.statuses.get_task(ConnectorTaskId("snk", 0))
    assert task == TaskStatus(ConnectorTaskId("snk", 0), State.UNASSIGNED, "w1:8083", 3)
    assert herder_state.statuses.get_connector("snk") == ConnectorStatus(
        "snk", State.UNASSIGNED, "w1:8083", 3
    )


def test_a_stopped_connector_writes_its_state(herder_state: HerderState) -> None:
    queries = _queries(herder_state, [])
    _started(herder_state)
    queries.stop_connector("snk", State.UNASSIGNED)
    status = herder_state.statuses.get_connector("snk")
    assert "snk" not in herder_state.running
    assert status is not None and status.state is State.UNASSIGNED
    queries.stop_connector("snk", State.RUNNING)  # no longer running: nothing written
    assert herder_state.statuses.get_connector("snk") == status
