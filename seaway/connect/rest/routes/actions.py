"""A connector restarted, paused, resumed or stopped; a task restarted."""

from __future__ import annotations

from starlette.responses import Response

from seaway.connect.rest.call import Call, java_int, query_bool
from seaway.connect.rest.responses import empty_response, json_response
from seaway.connect.runtime.herder import Herder

__all__ = ["ActionRoutes"]


class ActionRoutes:
    """``/connectors/{c}/restart``, ``pause``, ``resume``, ``stop``, ``tasks/{t}/restart``."""

    herder: Herder

    def restart(self, call: Call) -> Response:
        include_tasks = query_bool(call.query, "includeTasks", False)
        only_failed = query_bool(call.query, "onlyFailed", False)
        state = self.herder.restart_connector(
            call.params["connector"], include_tasks=include_tasks, only_failed=only_failed
        )
        if not include_tasks and not only_failed:
            return empty_response(204)
        return empty_response(202) if state is None else json_response(state, 202)

    def pause(self, call: Call) -> Response:
        self.herder.pause_connector(call.params["connector"])
        return empty_response(202)

    def resume(self, call: Call) -> Response:
        self.herder.resume_connector(call.params["connector"])
        return empty_response(202)

    def stop(self, call: Call) -> Response:
        self.herder.stop_connector(call.params["connector"])
        return empty_response(204)

    def restart_task(self, call: Call) -> Response:
        task = java_int(call.params["task"])
        self.herder.restart_task(call.params["connector"], task)
        return empty_response(204)
