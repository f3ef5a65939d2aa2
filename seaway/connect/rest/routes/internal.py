"""Requests between the workers of a cluster: task configs sent to the leader, zombies
fenced (KIP-507 and KIP-618 sign them)."""

from __future__ import annotations

from starlette.responses import Response

from seaway.connect.rest.bodies import task_configs
from seaway.connect.rest.call import Call
from seaway.connect.rest.responses import empty_response
from seaway.connect.runtime.herder import Herder, InternalRequest

__all__ = ["InternalRoutes"]


class InternalRoutes:
    """``POST /connectors/{c}/tasks`` and ``PUT /connectors/{c}/fence``."""

    herder: Herder

    def put_task_configs(self, call: Call) -> Response:
        maps = task_configs(call.body)
        request = InternalRequest(dict(call.headers), call.body)
        self.herder.put_task_configs(call.params["connector"], maps, request)
        return empty_response(204)

    def fence(self, call: Call) -> Response:
        request = InternalRequest(dict(call.headers), call.body)
        self.herder.fence_zombies(call.params["connector"], request)
        return empty_response(204)
