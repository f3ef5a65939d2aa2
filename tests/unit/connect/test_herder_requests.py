"""ConnectorRequests alone: configs, statuses, restarts and target states over a herder
state of memory stores, with the validator and queries it is given."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from seaway.connect.api.errors import AlreadyExistsError, NotFoundError
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder import NotLeaderError
from seaway.connect.runtime.herder_queries import ConnectorQueries
from seaway.connect.runtime.herder_requests import ConnectorRequests
from seaway.connect.runtime.herder_state import HerderState
from seaway.connect.runtime.herder_validation import ConfigValidator
from seaway.connect.runtime.storage import ConnectorStatus, State, TargetState

SOURCE = {"connector.class": "FileStreamSource", "file": "in.txt", "topic": "t"}


def _anywhere(_: str) -> None:
    """A standalone worker's check: it passes."""


def _requests(
    state: HerderState,
    require_leader: Callable[[str], None] = _anywhere,
    require_owner: Callable[[str], None] = _anywhere,
) -> ConnectorRequests:
    queries = ConnectorQueries(
        state,
        may_run=lambda name: True,
        publish_task_configs=state.configs.put_task_configs,
        before_exactly_once_start=lambda name: True,
        status_generation=lambda run: run.generation,
    )
    validator = ConfigValidator(state.plugins, state.config)
    return ConnectorRequests(
        state, queries, validator, require_leader=require_leader, require_owner=require_owner
    )


def test_connector_configs(herder_state: HerderState) -> None:
    requests = _requests(herder_state)
    created, info = requests.put_connector_config("src", SOURCE, allow_replace=False)
    assert created and info == {"name": "src", "config": {**SOURCE, "name": "src"},
                                "tasks": [], "type": "source"}  # fmt: skip
    with pytest.raises(AlreadyExistsError, match="Connector src already exists"):
        requests.put_connector_config("src", SOURCE, allow_replace=False)
    with pytest.raises(BadRequestError, match="Invalid initial state"):
        requests.put_connector_config("new", SOURCE, allow_replace=False, initial_state="x")
    with pytest.raises(BadRequestError, match="Connector configuration is invalid"):
        requests.put_connector_config("bad", {"connector.class": "FileStreamSource",
                                              "topic": ""}, allow_replace=False)  # fmt: skip
    patched = requests.patch_connector_config("src", {"file": None, "topic": "u"})
    assert patched["config"] == {"connector.class": "FileStreamSource", "topic": "u",
                                 "name": "src"}  # fmt: skip
    assert requests.connectors() == ["src"]
    requests.delete_connector("src")
    with pytest.raises(NotFoundError, match="Connector src not found"):
        requests.connector_config("src")


def test_target_states_and_restarts(herder_state: HerderState) -> None:
    requests = _requests(herder_state)
    requests.put_connector_config("src", SOURCE, allow_replace=False, initial_state="PAUSED")
    assert herder_state.configs.snapshot().target_state("src") is TargetState.PAUSED
    requests.resume_connector("src")
    assert herder_state.configs.snapshot().target_state("src") is TargetState.STARTED
    with pytest.raises(NotFoundError, match="No status found for connector src"):
        requests.connector_status("src")
    herder_state.put_status(ConnectorStatus("src", State.FAILED, "w1:8083", trace="t"))
    herder_state.take_marked()
    status = requests.restart_connector("src", include_tasks=True, only_failed=True)
    assert status is not None and status["connector"]["state"] == "RESTARTING"
    assert herder_state.take_marked() == {"src": True}
    with pytest.raises(NotFoundError, match="Unknown task: src-0"):
        requests.restart_task("src", 0)
    requests.stop_connector("src")
    assert herder_state.configs.snapshot().target_state("src") is TargetState.STOPPED
    with pytest.raises(NotFoundError, match="Unknown connector nope"):
        requests.pause_connector("nope")


def test_the_leader_and_owner_checks_come_first(herder_state: HerderState) -> None:
    def not_leader(message: str) -> None:
        raise NotLeaderError(message, "http://leader:8083")

    def not_owner(name: str) -> None:
        raise NotLeaderError(f"Cannot restart connector {name}", "http://leader:8083")

    _requests(herder_state).put_connector_config("src", SOURCE, allow_replace=False)
    requests = _requests(herder_state, require_leader=not_leader, require_owner=not_owner)
    with pytest.raises(NotLeaderError, match="Only the leader can set connector configs"):
        requests.put_connector_config("other", SOURCE, allow_replace=False)
    with pytest.raises(NotLeaderError, match="Only the leader can delete connector configs"):
        requests.delete_connector("src")
    with pytest.raises(NotFoundError, match="Unknown connector: nope"):
        requests.restart_connector("nope", include_tasks=False, only_failed=False)
    with pytest.raises(NotLeaderError, match="Cannot restart connector src"):
        requests.restart_connector("src", include_tasks=False, only_failed=False)
    requests.pause_connector("src")  # any worker may
    assert herder_state.configs.snapshot().target_state("src") is TargetState.PAUSED
