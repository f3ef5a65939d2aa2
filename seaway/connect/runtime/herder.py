"""The herder contract: what the REST API asks of a worker (Kafka's ``Herder``).

Every method is synchronous and may block (it runs on the REST server's thread pool). Results
are the JSON entities of Kafka Connect's REST API as plain dicts and lists, with Connect's
exact field names; errors are raised as:

* :class:`~seaway.connect.api.errors.NotFoundError` → 404 (message as Kafka words it, e.g.
  ``"Connector n not found"``),
* :class:`~seaway.connect.api.errors.AlreadyExistsError` → 409,
* :class:`~seaway.connect.runtime.errors.BadRequestError` (400) and
  :class:`~seaway.connect.runtime.errors.ConnectRestError` (any status),
* anything else → 500.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from seaway.connect.api.errors import ConnectError

JsonDict = dict[str, Any]


class RequestTargetError(ConnectError):
    """Another worker must serve this request (Kafka's ``RequestTargetException``): the
    REST layer forwards it to *url*, or answers 409 when it cannot."""

    def __init__(self, message: str, url: str | None) -> None:
        super().__init__(message)
        self.url = url


class NotLeaderError(RequestTargetError):
    """Only the leader may do this (Kafka's ``NotLeaderException``)."""


class NotAssignedError(RequestTargetError):
    """Only the worker running the connector may do this (``NotAssignedException``)."""


@dataclass(frozen=True, slots=True)
class InternalRequest:
    """A request another worker sent: its headers (the KIP-507 signature) and exact body."""

    headers: Mapping[str, str]
    body: bytes


class Herder(ABC):
    """Runs connectors and answers for them; one per worker."""

    # --- worker ---------------------------------------------------------------------------

    @abstractmethod
    def server_info(self) -> JsonDict:
        """``{"version": ..., "commit": ..., "kafka_cluster_id": ...}`` for ``GET /``."""

    @abstractmethod
    def ready(self) -> bool:
        """True once the worker has finished starting (``GET /health``)."""

    @abstractmethod
    def metrics_exposition(self) -> bytes:
        """Kafka Connect's worker metrics in Prometheus' text format (``GET /metrics``)."""

    # --- connectors -----------------------------------------------------------------------

    @abstractmethod
    def connectors(self) -> list[str]:
        """Names of all connectors, sorted."""

    @abstractmethod
    def connector_info(self, name: str) -> JsonDict:
        """``ConnectorInfo``: ``{"name", "config", "tasks": [{"connector", "task"}], "type"}``."""

    @abstractmethod
    def connector_config(self, name: str) -> dict[str, str]:
        """The connector's config as submitted (config-provider variables unresolved)."""

    @abstractmethod
    def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str],
        *,
        allow_replace: bool,
        initial_state: str | None = None,
    ) -> tuple[bool, JsonDict]:
        """Create (or, with *allow_replace*, update) a connector.

        Returns ``(created, ConnectorInfo)``. Raises AlreadyExistsError when it exists and
        replacing is not allowed; BadRequestError with Connect's message when the config is
        invalid; *initial_state* is ``RUNNING``, ``PAUSED`` or ``STOPPED`` (KIP-980).
        """

    @abstractmethod
    def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> JsonDict:
        """Merge *patch* into the config (None deletes a key); NotFoundError if absent."""

    @abstractmethod
    def delete_connector(self, name: str) -> None:
        """Stop and remove a connector (its offsets are kept)."""

    @abstractmethod
    def connector_status(self, name: str) -> JsonDict:
        """``ConnectorStateInfo``; NotFoundError ``"No status found for connector n"``."""

    @abstractmethod
    def task_infos(self, name: str) -> list[JsonDict]:
        """``[TaskInfo]``: ``{"id": {"connector", "task"}, "config": {...}}`` per task."""

    @abstractmethod
    def task_status(self, name: str, task: int) -> JsonDict:
        """One task's state; NotFoundError ``"No status found for task n-0"``."""

    @abstractmethod
    def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> JsonDict | None:
        """Restart per KIP-745. None when both flags are false (only the connector
        restarts; answered 204), else the ``ConnectorStateInfo`` with RESTARTING marks
        (answered 202)."""

    @abstractmethod
    def restart_task(self, name: str, task: int) -> None:
        """Restart one task; NotFoundError ``"Unknown task: n-3"`` / ``"Unknown connector: n"``."""

    @abstractmethod
    def pause_connector(self, name: str) -> None:
        """Target state PAUSED (asynchronous, idempotent)."""

    @abstractmethod
    def resume_connector(self, name: str) -> None:
        """Target state STARTED, from PAUSED or STOPPED."""

    @abstractmethod
    def stop_connector(self, name: str) -> None:
        """Remove the task configs, then target state STOPPED (KIP-875)."""

    # --- internal requests between the workers of a cluster -------------------------------

    @abstractmethod
    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], request: InternalRequest
    ) -> None:
        """``POST /connectors/{name}/tasks``: a connector's owner publishes its task configs
        through the leader."""

    @abstractmethod
    def fence_zombies(self, name: str, request: InternalRequest) -> None:
        """``PUT /connectors/{name}/fence``: fence the task producers of a source connector's
        previous generation before its exactly-once tasks start (KIP-618)."""

    # --- offsets (KIP-875) ----------------------------------------------------------------

    @abstractmethod
    def connector_offsets(self, name: str) -> JsonDict:
        """``{"offsets": [{"partition": {...}, "offset": {...}}]}``."""

    @abstractmethod
    def alter_connector_offsets(self, name: str, offsets: list[JsonDict]) -> str:
        """Apply ``ConnectorOffsets.offsets`` to a STOPPED connector; the success message."""

    @abstractmethod
    def reset_connector_offsets(self, name: str) -> str:
        """Delete every offset of a STOPPED connector; the success message."""

    # --- topics (KIP-558) -----------------------------------------------------------------

    @abstractmethod
    def connector_active_topics(self, name: str) -> list[str]:
        """Topics the connector used (sorted); [] for an unknown connector."""

    @abstractmethod
    def reset_connector_active_topics(self, name: str) -> None:
        """Forget the connector's active topics."""

    @property
    @abstractmethod
    def topic_tracking(self) -> tuple[bool, bool]:
        """``(topic.tracking.enable, topic.tracking.allow.reset)``."""

    # --- plugins --------------------------------------------------------------------------

    @abstractmethod
    def connector_plugins(self, connectors_only: bool) -> list[JsonDict]:
        """``[PluginInfo]``: sinks, sources, then (unless *connectors_only*) transformations,
        predicates, converters and header converters."""

    @abstractmethod
    def plugin_config(self, plugin: str) -> list[JsonDict]:
        """``[ConfigKeyInfo]`` of a plugin's own config; NotFoundError ``"Unknown plugin X."``."""

    @abstractmethod
    def validate_connector_config(
        self, config: Mapping[str, str], plugin: str | None = None
    ) -> JsonDict:
        """``ConfigInfos`` for *config*, answered 200 even when ``error_count > 0``.

        With *plugin* (the path segment of ``/connector-plugins/{plugin}/config/validate``),
        BadRequestError when it names another class than ``connector.class``.
        """


__all__ = [
    "Herder",
    "InternalRequest",
    "JsonDict",
    "NotAssignedError",
    "NotLeaderError",
    "RequestTargetError",
]
