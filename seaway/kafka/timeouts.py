"""How long Seaway waits on a Kafka client call, by what the call does (seconds).

Each bounds a librdkafka or admin call that would otherwise wait forever on a cluster that
does not answer; the call then fails and says so.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "API_TIMEOUT_S",
    "FLUSH_TIMEOUT_S",
    "REACH_TIMEOUT_S",
    "REQUEST_TIMEOUT_S",
]

REQUEST_TIMEOUT_S: Final = 30.0
"""One request's worth (Kafka's ``request.timeout.ms``): an admin or metadata call (topics
listed or created, offsets or groups read), or a few records written and acknowledged (a
heartbeat, checkpoints, a store's record)."""

API_TIMEOUT_S: Final = 60.0
"""A call waited for whole, retries included (Kafka's ``default.api.timeout.ms``): the
MirrorClient's queries, a sink's group offsets committed."""

FLUSH_TIMEOUT_S: Final = 60.0
"""A producer's backlog of data records acknowledged (``flush``)."""

REACH_TIMEOUT_S: Final = 15.0
"""A start-up check that a cluster answers at all."""
