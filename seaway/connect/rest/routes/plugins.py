"""Connector plugins, their configs, and connector config validation."""

from __future__ import annotations

from starlette.responses import Response

from seaway.connect.rest.bodies import required, string_map
from seaway.connect.rest.call import Call, query_bool
from seaway.connect.rest.responses import json_response
from seaway.connect.runtime.herder import Herder

__all__ = ["PluginRoutes"]


class PluginRoutes:
    """Kafka's ``ConnectorPluginsResource``."""

    herder: Herder

    # --- plugins ----------------------------------------------------------------------------

    def plugins(self, call: Call) -> Response:
        connectors_only = query_bool(call.query, "connectorsOnly", True)
        return json_response(self.herder.connector_plugins(connectors_only))

    def plugin_config(self, call: Call) -> Response:
        return json_response(self.herder.plugin_config(call.params["plugin"]))

    def validate(self, call: Call) -> Response:
        config = string_map(required(call.body))
        return json_response(self.herder.validate_connector_config(config, call.params["plugin"]))
