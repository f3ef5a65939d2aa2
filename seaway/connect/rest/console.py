"""A worker's web console (``/ui`` on its REST listener): its connectors and tasks with their
states and traces, pause / resume / restart buttons, the topics and consumer groups of its
Kafka cluster, and plots of the worker's metrics history.

The buttons call the herder methods the REST API's routes call; a request another worker
must serve (a distributed worker that is not the leader) is forwarded to it as the REST API
forwards it, with ``forward=true``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import quote

from seaway.connect.api.errors import AlreadyExistsError, NotFoundError
from seaway.connect.runtime.distributed.internal_requests import send
from seaway.connect.runtime.errors import ConnectRestError
from seaway.connect.runtime.herder import Herder, RequestTargetError
from seaway.console import Action, ActionError, ConnectorView, Console, PlotSpec, TaskView
from seaway.console.kafka_views import ClusterViews
from seaway.metrics_history import MetricsHistory

__all__ = ["PLOTS", "connect_console", "connector_views"]

PLOTS: Final = (
    PlotSpec("Records per second", {"records_per_s": ""}, "records/s"),
    PlotSpec("Running tasks", {"running_tasks": ""}, "tasks"),
    PlotSpec("Failed tasks", {"failed_tasks": ""}, "tasks"),
)


def connector_views(herder: Herder) -> list[ConnectorView]:
    """Every connector's status, as ``GET /connectors?expand=status`` gives it."""
    if not herder.ready():
        raise ConnectRestError(503, "The worker is still starting")
    views = []
    for name in herder.connectors():
        try:
            status = herder.connector_status(name)
        except NotFoundError:
            views.append(ConnectorView(name, "UNASSIGNED"))
            continue
        connector = status.get("connector", {})
        tasks = tuple(
            TaskView(int(t["id"]), t["state"], t.get("worker_id", ""), t.get("trace"))
            for t in sorted(status.get("tasks", []), key=lambda t: int(t["id"]))
        )
        views.append(
            ConnectorView(
                name,
                connector.get("state", "UNASSIGNED"),
                status.get("type", ""),
                connector.get("worker_id", ""),
                connector.get("trace"),
                tasks,
            )
        )
    return views


def _request(action: Action, name: str, task: int | None) -> tuple[str, str]:
    """The REST API's method and path for *action*."""
    path = f"/connectors/{quote(name, safe='')}"
    if action == "pause":
        return "PUT", f"{path}/pause"
    if action == "resume":
        return "PUT", f"{path}/resume"
    if action == "restart":
        return "POST", f"{path}/restart?includeTasks=true&onlyFailed=true"
    return "POST", f"{path}/tasks/{task}/restart"


def _run(herder: Herder, action: Action, name: str, task: int | None) -> None:
    if action == "pause":
        herder.pause_connector(name)
    elif action == "resume":
        herder.resume_connector(name)
    elif action == "restart":
        herder.restart_connector(name, include_tasks=True, only_failed=True)
    else:
        assert task is not None
        herder.restart_task(name, task)


def _forward(
    herder: Herder,
    target: RequestTargetError,
    action: Action,
    name: str,
    task: int | None,
    headers: Mapping[str, str],
) -> None:
    """Send *action* to the worker that must serve it, as the REST API forwards it."""
    if target.url is None:
        raise ActionError(409, "No leader is known yet (a rebalance is under way): try again")
    method, path = _request(action, name, task)
    glue = "&" if "?" in path else "?"
    url = target.url.rstrip("/") + path + glue + "forward=true"
    context = getattr(herder, "rest_client_context", None)
    reply = send(method, url, None, headers, context=context)
    if reply.status >= 300:
        raise ActionError(
            reply.status,
            f"{target.url} answered {reply.status}: {reply.body.decode('utf-8', 'replace')}",
        )


def connect_console(herder: Herder, history: MetricsHistory | None) -> Console:
    """The console of the worker *herder* runs, plotting *history*."""

    def act(action: Action, name: str, task: int | None, headers: Mapping[str, str]) -> str:
        try:
            try:
                _run(herder, action, name, task)
            except RequestTargetError as target:
                _forward(herder, target, action, name, task, headers)
        except NotFoundError as error:
            raise ActionError(404, str(error)) from None
        except AlreadyExistsError as error:
            raise ActionError(409, str(error)) from None
        except ConnectRestError as error:
            raise ActionError(error.status, str(error)) from None
        what = f"task {task} of {name}" if task is not None else name
        return f"{action.replace('-task', '')} requested for {what}"

    worker: Any = getattr(herder, "worker", None)
    cluster = None
    if worker is not None and hasattr(worker, "client_config"):
        cluster = ClusterViews(worker.client_config({}, "admin"))
    return Console(
        lambda: f"Kafka Connect worker {getattr(herder, 'worker_id', '')}".strip(),
        connectors=lambda: connector_views(herder),
        act=act,
        topics=cluster.topics if cluster is not None else None,
        groups=cluster.groups if cluster is not None else None,
        history=history.snapshot if history is not None else None,
        plots=PLOTS,
    )
