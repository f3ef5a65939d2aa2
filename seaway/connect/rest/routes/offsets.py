"""A connector's offsets read, altered and reset (KIP-875)."""

from __future__ import annotations

from starlette.responses import Response

from seaway.connect.rest.bodies import connector_offsets
from seaway.connect.rest.call import Call
from seaway.connect.rest.responses import json_response
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder import Herder

__all__ = ["OffsetRoutes"]


class OffsetRoutes:
    """``/connectors/{c}/offsets``: GET, PATCH, DELETE."""

    herder: Herder

    def offsets(self, call: Call) -> Response:
        return json_response(self.herder.connector_offsets(call.params["connector"]))

    def alter_offsets(self, call: Call) -> Response:
        offsets = connector_offsets(call.body)
        if not offsets:
            raise BadRequestError(
                "Partitions / offsets need to be provided for an alter offsets request"
            )
        message = self.herder.alter_connector_offsets(call.params["connector"], offsets)
        return json_response({"message": message})

    def reset_offsets(self, call: Call) -> Response:
        return json_response(
            {"message": self.herder.reset_connector_offsets(call.params["connector"])}
        )
