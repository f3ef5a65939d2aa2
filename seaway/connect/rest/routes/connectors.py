"""Connectors created, read, configured and deleted; their statuses and tasks."""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import quote

from starlette.responses import Response

from seaway.connect.api.errors import NotFoundError
from seaway.connect.rest.bodies import create_request, required, string_map
from seaway.connect.rest.call import Call, java_int
from seaway.connect.rest.responses import MappingError, empty_response, json_response
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder import Herder

__all__ = ["ConnectorRoutes"]

log = logging.getLogger(__name__)

_JAVA_WHITESPACE = "".join(chr(c) for c in range(0x21))  # what String.trim() strips

_LOCATION_SAFE = "/!$&'()*+,;=:@-._~"


def _location(base_url: str, name: str) -> str:
    """``UriBuilder.fromUri("/connectors").path(name)``, made absolute as Jersey makes it."""
    parts = re.split(r"(%[0-9A-Fa-f]{2})", name)
    path = "".join(p if i % 2 else quote(p, safe=_LOCATION_SAFE) for i, p in enumerate(parts))
    return f"{base_url.rstrip('/')}/connectors/{path}"


class ConnectorRoutes:
    """Kafka's ``ConnectorsResource``: ``/connectors`` and a connector's config, status, tasks."""

    herder: Herder

    def list_connectors(self, call: Call) -> Response:
        if "expand" not in call.query:
            return json_response(self.herder.connectors())
        expansions = call.query.getlist("expand")
        out: dict[str, dict[str, Any]] = {}
        for connector in self.herder.connectors():
            try:
                expanded: dict[str, Any] = {}
                for expansion in expansions:
                    if expansion == "status":
                        expanded["status"] = self.herder.connector_status(connector)
                    elif expansion == "info":
                        expanded["info"] = self.herder.connector_info(connector)
                    else:
                        log.info("Ignoring unknown expansion type %s", expansion)
                out[connector] = expanded
            except NotFoundError:
                # Deleted while the list was built: leave it out.
                log.debug("Unable to get connector info for %s on this worker", connector)
        return json_response(out)

    def create(self, call: Call) -> Response:
        name, config, initial_state = create_request(call.body)
        name = (name or "").strip(_JAVA_WHITESPACE)  # String.trim()
        if config is None:
            raise MappingError("Missing required creator property 'config'")
        config = self._check_name(name, config)
        _, info = self.herder.put_connector_config(
            name, config, allow_replace=False, initial_state=initial_state
        )
        return json_response(info, 201, {"Location": _location(call.base_url, name)})

    def connector_info(self, call: Call) -> Response:
        return json_response(self.herder.connector_info(call.params["connector"]))

    def config(self, call: Call) -> Response:
        return json_response(self.herder.connector_config(call.params["connector"]))

    def put_config(self, call: Call) -> Response:
        name = call.params["connector"]
        config = self._check_name(name, string_map(required(call.body)))
        created, info = self.herder.put_connector_config(name, config, allow_replace=True)
        if created:
            return json_response(info, 201, {"Location": _location(call.base_url, name)})
        return json_response(info)

    def patch_config(self, call: Call) -> Response:
        patch = string_map(required(call.body), nulls=True)
        return json_response(self.herder.patch_connector_config(call.params["connector"], patch))

    def delete(self, call: Call) -> Response:
        self.herder.delete_connector(call.params["connector"])
        return empty_response(204)

    def status(self, call: Call) -> Response:
        return json_response(self.herder.connector_status(call.params["connector"]))

    def tasks(self, call: Call) -> Response:
        return json_response(self.herder.task_infos(call.params["connector"]))

    def tasks_config(self, call: Call) -> Response:
        log.warning(
            "The 'GET /connectors/{connector}/tasks-config' endpoint is deprecated and will be "
            "removed in the next major release. Please use the 'GET /connectors/{connector}/tasks' "
            "endpoint instead."
        )
        infos = self.herder.task_infos(call.params["connector"])
        return json_response(
            {f"{i['id']['connector']}-{i['id']['task']}": i["config"] for i in infos}
        )

    def task_status(self, call: Call) -> Response:
        task = java_int(call.params["task"])
        return json_response(self.herder.task_status(call.params["connector"], task))

    @staticmethod
    def _check_name(name: str, config: dict[str, str]) -> dict[str, str]:
        """``checkAndPutConnectorConfigName``: a 400 on mismatch, else fill ``name`` in."""
        included = config.get("name")
        if included is None:
            config["name"] = name
        elif included != name:
            raise BadRequestError(
                f"Connector name configuration ({included}) doesn't match connector name in "
                f"the URL ({name})"
            )
        return config
