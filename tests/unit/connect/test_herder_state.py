"""HerderState alone: marks for the herder thread, status writes, what configs say."""

from __future__ import annotations

from pathlib import Path

from seaway.connect.runtime.herder_state import HerderState
from seaway.connect.runtime.plugins import Plugins
from seaway.connect.runtime.storage import (
    ConnectorStatus,
    ConnectorTaskId,
    MemoryConfigStore,
    MemoryOffsetStore,
    MemoryStatusStore,
    State,
    TaskStatus,
)
from seaway.connect.runtime.worker import Worker
from seaway.connect.runtime.worker_config import WorkerConfig

SOURCE = {"name": "src", "connector.class": "FileStreamSource", "file": "in.txt", "topic": "t"}


def test_marks_are_taken_once_and_keep_regenerate(herder_state: HerderState) -> None:
    herder_state.mark("a", regenerate=True)
    herder_state.mark("a")
    herder_state.mark("b")
    herder_state.wait(0)
    assert herder_state.take_marked() == {"a": True, "b": False}
    assert herder_state.take_marked() == {}


def test_a_status_this_worker_wrote_last_is_not_written_again(herder_state: HerderState) -> None:
    store = herder_state.statuses
    running = ConnectorStatus("src", State.RUNNING, "w1:8083")
    other = ConnectorStatus("src", State.PAUSED, "w9:8083")
    herder_state.put_status(running)
    store.put(other)  # what the store's lagging cache may show
    herder_state.put_status(running)
    assert store.get_connector("src") == other
    herder_state.put_status_safe(running)  # a safe write: the next plain write goes through
    store.put(other)
    herder_state.put_status(running)
    assert store.get_connector("src") == running


def test_statuses_carry_the_group_generation(tmp_path: Path, plugins: Plugins) -> None:
    config = WorkerConfig({"spark.checkpoint.dir": str(tmp_path)}, distributed=False)
    state = HerderState(
        Worker(config), plugins, MemoryConfigStore(), MemoryOffsetStore(), MemoryStatusStore(),
        worker_id="w2", group_generation=lambda: 7,
    )  # fmt: skip
    state.put_status(ConnectorStatus("src", State.RUNNING, "w2"))
    status = state.statuses.get_connector("src")
    assert status is not None and status.generation == 7


def test_destroy_statuses_of_a_deleted_connector(herder_state: HerderState) -> None:
    herder_state.configs.put_connector_config("src", SOURCE)
    task = ConnectorTaskId("src", 0)
    herder_state.put_status(ConnectorStatus("src", State.RUNNING, "w1:8083"))
    herder_state.put_status(TaskStatus(task, State.RUNNING, "w1:8083"))
    herder_state.destroy_statuses("src", [task])
    assert herder_state.statuses.get_task(task) is None
    assert herder_state.statuses.get_connector("src") is not None  # its config is still there
    herder_state.configs.remove_connector_config("src")
    herder_state.destroy_statuses("src", ())
    assert herder_state.statuses.get_connector("src") is None


def test_connector_types_and_sink_groups(herder_state: HerderState) -> None:
    assert herder_state.connector_type(SOURCE) == "source"
    assert herder_state.connector_type({"connector.class": "FileStreamSink"}) == "sink"
    assert herder_state.connector_type({"connector.class": "NoSuchConnector"}) == "unknown"
    assert herder_state.connector_type({}) == "unknown"
    group, client = herder_state.sink_client_config({"name": "snk"})
    assert group == "connect-snk" and "group.id" not in client
    group, _ = herder_state.sink_client_config(
        {"name": "snk", "consumer.override.group.id": "mine"}
    )
    assert group == "mine"


def test_metrics_read_the_state(herder_state: HerderState) -> None:
    text = herder_state.metrics.exposition().decode()
    assert "kafka_connect_worker_connector_count 0.0" in text
    assert herder_state.topic_tracking == (True, True)
