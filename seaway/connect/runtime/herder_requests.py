"""The connectors part of the :class:`~seaway.connect.runtime.herder.Herder` contract: configs,
statuses, restarts and target states, and the topics connectors used (KIP-558).

:class:`ConnectorRequests` answers from the stores of a
:class:`~seaway.connect.runtime.herder_state.HerderState` and writes to them; a running
connector restarts through :class:`~seaway.connect.runtime.herder_queries.ConnectorQueries`.
Whether this worker may write configs or restart a connector (a cluster's leader, a
connector's owner) comes in as callbacks that raise a
:class:`~seaway.connect.runtime.herder.RequestTargetError`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping

from seaway.connect.api.errors import AlreadyExistsError, NotFoundError
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder import JsonDict
from seaway.connect.runtime.herder_queries import ConnectorQueries
from seaway.connect.runtime.herder_state import HerderState
from seaway.connect.runtime.herder_validation import ConfigValidator
from seaway.connect.runtime.storage import (
    ConnectorStatus,
    ConnectorTaskId,
    State,
    TargetState,
    TaskStatus,
)

log = logging.getLogger(__name__)


def _anywhere(_: str) -> None:
    """A check that passes: a standalone worker writes configs and runs every connector."""


class ConnectorRequests:
    """Answers the REST requests about connectors from a herder's state; each method is the
    :class:`~seaway.connect.runtime.herder.Herder` method of the same name."""

    def __init__(
        self,
        state: HerderState,
        queries: ConnectorQueries,
        validator: ConfigValidator,
        *,
        require_leader: Callable[[str], None] = _anywhere,
        require_owner: Callable[[str], None] = _anywhere,
    ) -> None:
        """*require_leader(message)* raises unless this worker may write configs;
        *require_owner(name)* raises unless it runs connector *name*."""
        self._state = state
        self._queries = queries
        self._validator = validator
        self._require_leader = require_leader
        self._require_owner = require_owner

    def _config(self, name: str) -> dict[str, str]:
        config = self._state.configs.snapshot().connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        return dict(config)

    def connectors(self) -> list[str]:
        return sorted(self._state.configs.snapshot().connectors())

    def connector_info(self, name: str) -> JsonDict:
        snapshot = self._state.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        return {
            "name": name,
            "config": dict(config),
            "tasks": [t.to_json() for t in snapshot.tasks(name)],
            "type": self._state.connector_type(config),
        }

    def connector_config(self, name: str) -> dict[str, str]:
        return self._config(name)

    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: str | None = None,
    ) -> tuple[bool, JsonDict]:
        self._require_leader("Only the leader can set connector configs.")
        config = {k: v for k, v in config.items() if v is not None}
        if cc.NAME not in config:
            config[cc.NAME] = name
        infos = self._validator.validate_connector_config(config)
        if infos["error_count"]:
            raise BadRequestError(cc.invalid_config_message(infos))
        exists = self._state.configs.contains(name)
        if exists and not allow_replace:
            raise AlreadyExistsError(f"Connector {name} already exists")
        state = None
        if initial_state and not exists:
            wanted = initial_state.strip().upper()
            state = {"RUNNING": TargetState.STARTED, "PAUSED": TargetState.PAUSED,
                     "STOPPED": TargetState.STOPPED}.get(wanted)  # fmt: skip
            if state is None:
                raise BadRequestError(
                    f"Invalid initial state {initial_state}; it must be one of RUNNING, "
                    "PAUSED or STOPPED"
                )
        self._state.configs.put_connector_config(name, config, state)
        return not exists, self.connector_info(name)

    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> JsonDict:
        config = self._config(name)
        for key, value in patch.items():
            if value is None:
                config.pop(key, None)
            else:
                config[key] = value
        return self.put_connector_config(name, config, allow_replace=True)[1]

    def delete_connector(self, name: str) -> None:
        self._require_leader("Only the leader can delete connector configs.")
        self._config(name)
        self._state.configs.remove_connector_config(name)

    def connector_status(self, name: str) -> JsonDict:
        status = self._state.statuses.get_connector(name)
        if status is None:
            raise NotFoundError(f"No status found for connector {name}")
        config = self._state.configs.snapshot().connector_config(name) or {}
        tasks = sorted(self._state.statuses.get_all(name), key=lambda s: s.id.task)
        return {
            "name": name,
            "connector": status.to_rest(),
            "tasks": [t.to_rest() for t in tasks],
            "type": self._state.connector_type(config),
        }

    def task_infos(self, name: str) -> list[JsonDict]:
        snapshot = self._state.configs.snapshot()
        if not snapshot.contains(name):
            raise NotFoundError(f"Connector {name} not found")
        return [
            {"id": t.to_json(), "config": dict(snapshot.task_config(t) or {})}
            for t in snapshot.tasks(name)
        ]

    def task_status(self, name: str, task: int) -> JsonDict:
        status = self._state.statuses.get_task(ConnectorTaskId(name, task))
        if status is None:
            raise NotFoundError(f"No status found for task {name}-{task}")
        return status.to_rest()

    def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> JsonDict | None:
        if not self._state.configs.contains(name):
            raise NotFoundError(f"Unknown connector: {name}")
        self._require_owner(name)
        status = self.connector_status(name)
        restart_connector = not only_failed or status["connector"]["state"] == "FAILED"
        tasks = [
            t["id"]
            for t in status["tasks"]
            if include_tasks and (not only_failed or t["state"] == "FAILED")
        ]
        worker_id = self._state.worker_id
        with self._state.lock:
            run = self._state.running.get(name)
            if restart_connector and run is not None:
                # Only the Connector object restarts; its tasks keep running unless asked.
                if run.connector is not None:
                    try:
                        run.connector.stop()
                    except Exception:
                        log.warning("Stopping connector %s failed", name, exc_info=True)
                run.connector = None
                run.stopped_on_error = False
                self._state.put_status(ConnectorStatus(name, State.RESTARTING, worker_id))
            if tasks and run is not None:
                for index in tasks:
                    run.failed.pop(index, None)
                run.stopped_on_error = False
                self._queries.stop_query(name, run)
            for index in tasks:
                task_id = ConnectorTaskId(name, index)
                self._state.put_status(TaskStatus(task_id, State.RESTARTING, worker_id))
        self._state.mark(name, regenerate=restart_connector)
        if not include_tasks and not only_failed:
            return None
        if restart_connector:
            status["connector"] = {**status["connector"], "state": "RESTARTING"}
        status["tasks"] = [
            {**t, "state": "RESTARTING"} if t["id"] in tasks else t for t in status["tasks"]
        ]
        return status

    def restart_task(self, name: str, task: int) -> None:
        snapshot = self._state.configs.snapshot()
        if not snapshot.contains(name):
            raise NotFoundError(f"Unknown connector: {name}")
        if ConnectorTaskId(name, task) not in snapshot.tasks(name):
            raise NotFoundError(f"Unknown task: {name}-{task}")
        self._require_owner(name)
        with self._state.lock:
            run = self._state.running.get(name)
            if run is not None:
                run.failed.pop(task, None)
                run.stopped_on_error = False
                self._queries.stop_query(name, run)
            task_id = ConnectorTaskId(name, task)
            self._state.put_status(TaskStatus(task_id, State.RESTARTING, self._state.worker_id))
        self._state.mark(name)

    def _require(self, name: str) -> None:
        if not self._state.configs.contains(name):
            raise NotFoundError(f"Unknown connector {name}")

    def pause_connector(self, name: str) -> None:
        self._require(name)
        self._state.configs.put_target_state(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._require(name)
        self._state.configs.put_target_state(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        self._require_leader("Only the leader can stop connectors.")
        self._require(name)
        self._state.configs.put_task_configs(name, [])  # an empty task set, as Kafka writes it
        self._state.configs.put_target_state(name, TargetState.STOPPED)

    # --- topics ---------------------------------------------------------------------------

    def connector_active_topics(self, name: str) -> list[str]:
        return sorted({s.topic for s in self._state.statuses.get_all_topics(name)})

    def reset_connector_active_topics(self, name: str) -> None:
        for status in self._state.statuses.get_all_topics(name):
            self._state.statuses.delete_topic(name, status.topic)
        with self._state.lock:
            run = self._state.running.get(name)
            if run is not None and run.query is not None:
                run.query.topics.clear()


__all__ = ["ConnectorRequests"]
