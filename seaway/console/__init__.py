"""Seaway's web console: server-rendered pages with inline SVG plots, served at ``/ui`` by
``seaway broker`` (its admin port), ``seaway connect-distributed`` (its REST listener) and
``seaway mirror-maker`` (its metrics port).

The package knows nothing of those servers: each adapts its own state to the records of
:mod:`seaway.console.views` and mounts :func:`console_routes` over a :class:`Console` of
provider callables. Pages: :mod:`~seaway.console.pages`; plots: :mod:`~seaway.console.svg`;
safe HTML: :mod:`~seaway.console.markup`; providers over any Kafka cluster (Connect's and the
mirror's): :mod:`~seaway.console.kafka_views`.
"""

from seaway.console.app import PATH, console_app, console_routes, history_route
from seaway.console.views import (
    Action,
    ActionError,
    ConnectorView,
    Console,
    FlowView,
    GroupLagView,
    PartitionLag,
    PartitionView,
    PlotSpec,
    TaskView,
    TopicView,
)

__all__ = [
    "PATH",
    "Action",
    "ActionError",
    "ConnectorView",
    "Console",
    "FlowView",
    "GroupLagView",
    "PartitionLag",
    "PartitionView",
    "PlotSpec",
    "TaskView",
    "TopicView",
    "console_app",
    "console_routes",
    "history_route",
]
