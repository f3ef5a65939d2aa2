"""The :class:`~seaway.connect.runtime.herder.Herder` contract of a worker herder: what the
REST API asks, answered from the stores and the connectors it runs."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from seaway import __version__
from seaway.connect.api import Connector
from seaway.connect.api.errors import AlreadyExistsError, ConnectError, NotFoundError
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder import Herder, InternalRequest, JsonDict
from seaway.connect.runtime.herder_queries import HerderQueries
from seaway.connect.runtime.herder_validation import ConfigValidation
from seaway.connect.runtime.offsets_api import ConnectorOffsetsApi
from seaway.connect.runtime.storage import (
    ConnectorStatus,
    ConnectorTaskId,
    State,
    TargetState,
    TaskStatus,
)

log = logging.getLogger(__name__)

_COMMIT: Final = "unknown"


class HerderRequests(HerderQueries, ConfigValidation, ConnectorOffsetsApi, Herder):
    """The REST contract of a worker herder."""

    # --- Herder: worker ---------------------------------------------------------------------

    def server_info(self) -> JsonDict:
        return {"version": __version__, "commit": _COMMIT, "kafka_cluster_id": self._cluster()}

    def _cluster(self) -> str | None:
        if self._cluster_id is None:
            try:
                from confluent_kafka.admin import AdminClient

                admin = AdminClient({"bootstrap.servers": self.config.bootstrap_servers})
                self._cluster_id = admin.describe_cluster().result(10).cluster_id
            except Exception:
                log.warning("Could not describe the Kafka cluster", exc_info=True)
        return self._cluster_id

    def ready(self) -> bool:
        return self._ready.is_set()

    def metrics_exposition(self) -> bytes:
        return self.metrics.exposition()

    # --- Herder: connectors -----------------------------------------------------------------

    def _config(self, name: str) -> dict[str, str]:
        config = self.configs.snapshot().connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        return dict(config)

    def connectors(self) -> list[str]:
        return sorted(self.configs.snapshot().connectors())

    def connector_info(self, name: str) -> JsonDict:
        snapshot = self.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        return {
            "name": name,
            "config": dict(config),
            "tasks": [t.to_json() for t in snapshot.tasks(name)],
            "type": self._type(config),
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
        infos = self.validate_connector_config(config)
        if infos["error_count"]:
            raise BadRequestError(cc.invalid_config_message(infos))
        exists = self.configs.contains(name)
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
        self.configs.put_connector_config(name, config, state)
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
        self.configs.remove_connector_config(name)

    def connector_status(self, name: str) -> JsonDict:
        status = self.statuses.get_connector(name)
        if status is None:
            raise NotFoundError(f"No status found for connector {name}")
        config = self.configs.snapshot().connector_config(name) or {}
        tasks = sorted(self.statuses.get_all(name), key=lambda s: s.id.task)
        return {
            "name": name,
            "connector": status.to_rest(),
            "tasks": [t.to_rest() for t in tasks],
            "type": self._type(config),
        }

    def task_infos(self, name: str) -> list[JsonDict]:
        snapshot = self.configs.snapshot()
        if not snapshot.contains(name):
            raise NotFoundError(f"Connector {name} not found")
        return [
            {"id": t.to_json(), "config": dict(snapshot.task_config(t) or {})}
            for t in snapshot.tasks(name)
        ]

    def task_status(self, name: str, task: int) -> JsonDict:
        status = self.statuses.get_task(ConnectorTaskId(name, task))
        if status is None:
            raise NotFoundError(f"No status found for task {name}-{task}")
        return status.to_rest()

    def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> JsonDict | None:
        if not self.configs.contains(name):
            raise NotFoundError(f"Unknown connector: {name}")
        self._require_owner(name)
        status = self.connector_status(name)
        restart_connector = not only_failed or status["connector"]["state"] == "FAILED"
        tasks = [
            t["id"]
            for t in status["tasks"]
            if include_tasks and (not only_failed or t["state"] == "FAILED")
        ]
        with self._lock:
            run = self._running.get(name)
            if restart_connector and run is not None:
                # Only the Connector object restarts; its tasks keep running unless asked.
                if run.connector is not None:
                    try:
                        run.connector.stop()
                    except Exception:
                        log.warning("Stopping connector %s failed", name, exc_info=True)
                run.connector = None
                run.stopped_on_error = False
                self._put(ConnectorStatus(name, State.RESTARTING, self.worker_id))
            if tasks and run is not None:
                for index in tasks:
                    run.failed.pop(index, None)
                run.stopped_on_error = False
                self._stop_query(name, run)
            for index in tasks:
                self._put(TaskStatus(ConnectorTaskId(name, index), State.RESTARTING,
                                     self.worker_id))  # fmt: skip
        self.mark(name, regenerate=restart_connector)
        if not include_tasks and not only_failed:
            return None
        if restart_connector:
            status["connector"] = {**status["connector"], "state": "RESTARTING"}
        status["tasks"] = [
            {**t, "state": "RESTARTING"} if t["id"] in tasks else t for t in status["tasks"]
        ]
        return status

    def restart_task(self, name: str, task: int) -> None:
        snapshot = self.configs.snapshot()
        if not snapshot.contains(name):
            raise NotFoundError(f"Unknown connector: {name}")
        if ConnectorTaskId(name, task) not in snapshot.tasks(name):
            raise NotFoundError(f"Unknown task: {name}-{task}")
        self._require_owner(name)
        with self._lock:
            run = self._running.get(name)
            if run is not None:
                run.failed.pop(task, None)
                run.stopped_on_error = False
                self._stop_query(name, run)
            self._put(TaskStatus(ConnectorTaskId(name, task), State.RESTARTING, self.worker_id))
        self.mark(name)

    def _require(self, name: str) -> None:
        if not self.configs.contains(name):
            raise NotFoundError(f"Unknown connector {name}")

    def pause_connector(self, name: str) -> None:
        self._require(name)
        self.configs.put_target_state(name, TargetState.PAUSED)

    def resume_connector(self, name: str) -> None:
        self._require(name)
        self.configs.put_target_state(name, TargetState.STARTED)

    def stop_connector(self, name: str) -> None:
        self._require_leader("Only the leader can stop connectors.")
        self._require(name)
        self.configs.put_task_configs(name, [])  # an empty task set, as Kafka writes it
        self.configs.put_target_state(name, TargetState.STOPPED)

    # --- Herder: internal requests -----------------------------------------------------------

    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], request: InternalRequest
    ) -> None:
        raise ConnectError(
            "Kafka Connect in standalone mode does not support externally setting task "
            "configurations."
        )

    def fence_zombies(self, name: str, request: InternalRequest) -> None:
        raise ConnectError("Kafka Connect in standalone mode does not support zombie fencing.")

    def alter_connector_offsets(self, name: str, offsets: list[JsonDict]) -> str:
        self._require_leader("Only the leader can alter connector offsets.")
        return super().alter_connector_offsets(name, offsets)

    def reset_connector_offsets(self, name: str) -> str:
        self._require_leader("Only the leader can reset connector offsets.")
        return super().reset_connector_offsets(name)

    # --- Herder: topics ---------------------------------------------------------------------

    def connector_active_topics(self, name: str) -> list[str]:
        return sorted({s.topic for s in self.statuses.get_all_topics(name)})

    def reset_connector_active_topics(self, name: str) -> None:
        for status in self.statuses.get_all_topics(name):
            self.statuses.delete_topic(name, status.topic)
        with self._lock:
            run = self._running.get(name)
            if run is not None and run.query is not None:
                run.query.topics.clear()

    # --- offsets (ConnectorOffsetsApi supplies the REST semantics) --------------------------

    def _offsets_context(self, name: str) -> tuple[dict[str, str], Connector, bool]:
        """(config, a connector instance, whether it is STOPPED)."""
        snapshot = self.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        stopped = snapshot.target_state(name) is TargetState.STOPPED
        with self._lock:
            run = self._running.get(name)
            stopped = stopped and (run is None or run.query is None)
        return dict(config), self.plugins.new_connector(config[cc.CONNECTOR_CLASS]), stopped

    def _source_offsets(self, name: str) -> dict[str, Any]:
        return self.offsets.connector_offsets(name)

    def _write_source_offsets(self, name: str, offsets: Mapping[str, Any]) -> None:
        self.offsets.set(name, dict(offsets))
        self.offsets.flush()


__all__ = ["HerderRequests"]
