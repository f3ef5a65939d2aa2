"""What a worker answers about itself, even while it starts: ``/``, ``/health``, ``/metrics``,
``/api/history`` and ``/admin/loggers``."""

from __future__ import annotations

import logging

from starlette.responses import Response

from seaway.connect.api.errors import NotFoundError
from seaway.connect.rest.bodies import required, string_map
from seaway.connect.rest.call import Call, query_first
from seaway.connect.rest.loggers import Loggers, parse_level
from seaway.connect.rest.responses import empty_response, json_response
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder import Herder
from seaway.connect.runtime.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from seaway.metrics_history import MetricsHistory

__all__ = ["WorkerRoutes"]

log = logging.getLogger(__name__)

HEALTHY_MESSAGE = "Worker has completed startup and is ready to handle requests."
STARTING_MESSAGE = "Worker is still starting up."


class WorkerRoutes:
    """Kafka's ``RootResource`` and ``LoggingResource``."""

    herder: Herder
    loggers: Loggers
    history: MetricsHistory | None

    def server_info(self, call: Call) -> Response:
        return json_response(self.herder.server_info())

    def metrics(self, call: Call) -> Response:
        """Kafka Connect's metrics for Prometheus (a Seaway endpoint: Kafka's workers
        export JMX, which the Prometheus JMX exporter turns into these names)."""
        return Response(self.herder.metrics_exposition(), 200, media_type=METRICS_CONTENT_TYPE)

    def metrics_history(self, call: Call) -> Response:
        """The last hour of the connectors' records/s and task counts (a Seaway endpoint, for
        the web console): ``?name=records_per_s`` picks series, ``?since=<epoch s>`` points."""
        if self.history is None:
            raise NotFoundError("This worker keeps no metrics history.")
        query = call.query
        try:
            points = self.history.query(query.getlist("name"), query_first(query, "since"))
        except ValueError as error:
            raise BadRequestError(str(error)) from None
        return json_response(points)

    def health(self, call: Call) -> Response:
        if self.herder.ready():
            return json_response({"status": "healthy", "message": HEALTHY_MESSAGE})
        return json_response({"status": "starting", "message": STARTING_MESSAGE}, 503)

    # --- loggers ----------------------------------------------------------------------------

    def all_loggers(self, call: Call) -> Response:
        return json_response(self.loggers.all_levels())

    def logger(self, call: Call) -> Response:
        name = call.params["logger"]
        level = self.loggers.level(name)
        if level is None:
            raise NotFoundError(f"Logger {name} not found.")
        return json_response(level)

    def set_logger(self, call: Call) -> Response:
        namespace = call.params["logger"]
        level = string_map(required(call.body), nulls=True).get("level")
        if level is None:
            raise BadRequestError("Desired 'level' parameter was not specified in request.")
        if parse_level(level) is None:
            raise NotFoundError(f"invalid log level '{level}'.")
        scope = query_first(call.query, "scope") or "worker"
        if scope.lower() == "cluster":
            # Without a cluster-wide channel, the change applies to this worker only.
            self.loggers.set_level(namespace, level)
            return empty_response(204)
        if scope.lower() != "worker":
            log.warning(
                "Received invalid scope '%s' in request to adjust logging level; "
                "will default to worker",
                scope,
            )
        return json_response(self.loggers.set_level(namespace, level))
