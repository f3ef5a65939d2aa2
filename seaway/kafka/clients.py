"""Where Seaway makes its librdkafka (confluent-kafka) clients.

Every producer, consumer and admin client Seaway makes comes from here or from
:mod:`seaway.kafka.pool` (the clients a process's tasks share, keyed by their config), so
each gets Seaway's client rules in one place:

* the other kind's settings are left out (:mod:`seaway.kafka.client_roles`): one Seaway
  config often feeds several kinds of client, and librdkafka warns of each foreign setting;
* *overrides* win over *config*: a caller's own settings (``acks``, ``group.id``, ...) on top
  of a shared client config;
* *client_id* names the client unless the settings already do (``client.id``).

The clients are not connected when made: librdkafka connects on the first call. To connect
at once or initialize transactions, see :func:`seaway.kafka.pool.connect` and
:func:`seaway.kafka.pool.init_transactions`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from seaway.kafka.client_roles import CONSUMER_ONLY, admin_settings, consumer_settings

if TYPE_CHECKING:
    from confluent_kafka import Consumer, Producer

__all__ = ["admin", "consumer", "producer", "settings"]


def settings(
    config: Mapping[str, Any],
    overrides: Mapping[str, Any] | None = None,
    *,
    client_id: str | None = None,
) -> dict[str, Any]:
    """*config* with *overrides* on top and ``client.id`` set to *client_id* when neither
    names one (all roles' settings kept)."""
    merged = {**config, **(overrides or {})}
    if client_id is not None:
        merged.setdefault("client.id", client_id)
    return merged


def producer(
    config: Mapping[str, Any],
    overrides: Mapping[str, Any] | None = None,
    *,
    client_id: str | None = None,
) -> Producer:
    """A producer of *config* and *overrides*, without consumer-only settings."""
    from confluent_kafka import Producer

    merged = settings(config, overrides, client_id=client_id)
    return Producer({k: v for k, v in merged.items() if k not in CONSUMER_ONLY})


def consumer(
    config: Mapping[str, Any],
    overrides: Mapping[str, Any] | None = None,
    *,
    client_id: str | None = None,
) -> Consumer:
    """A consumer of *config* and *overrides*, without producer-only settings."""
    from confluent_kafka import Consumer

    return Consumer(consumer_settings(settings(config, overrides, client_id=client_id)))


def admin(config: Mapping[str, Any]) -> Any:
    """An admin client of *config* (librdkafka settings incl. ``bootstrap.servers``),
    without producer- or consumer-only settings."""
    from confluent_kafka.admin import AdminClient

    return AdminClient(admin_settings(config))
