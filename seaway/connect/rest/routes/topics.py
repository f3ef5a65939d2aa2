"""The topics a connector used, read and reset (KIP-558)."""

from __future__ import annotations

from starlette.responses import Response

from seaway.connect.rest.call import Call
from seaway.connect.rest.responses import empty_response, json_response
from seaway.connect.runtime.errors import ConnectRestError
from seaway.connect.runtime.herder import Herder

__all__ = ["TopicRoutes"]


class TopicRoutes:
    """``/connectors/{c}/topics`` and ``/connectors/{c}/topics/reset``."""

    herder: Herder

    def topics(self, call: Call) -> Response:
        enabled, _ = self.herder.topic_tracking
        if not enabled:
            raise ConnectRestError(403, "Topic tracking is disabled.")
        name = call.params["connector"]
        return json_response({name: {"topics": self.herder.connector_active_topics(name)}})

    def reset_topics(self, call: Call) -> Response:
        enabled, allow_reset = self.herder.topic_tracking
        if not enabled:
            raise ConnectRestError(403, "Topic tracking is disabled.")
        if not allow_reset:
            raise ConnectRestError(403, "Topic tracking reset is disabled.")
        self.herder.reset_connector_active_topics(call.params["connector"])
        return empty_response(202)
