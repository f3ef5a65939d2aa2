"""What the API handlers may see of the broker: a narrow, read-mostly view of its state.

Handlers are written against :class:`BrokerState` rather than the ``Broker`` class, so a
handler cannot reach the listener, the event loop or the start/stop machinery, and the
node's wiring can change without touching them (an import-linter contract in
``.importlinter`` keeps ``seaway.broker.handlers`` away from ``broker.py`` and ``server.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from seaway.broker.authorizer import BrokerAuthorizer
    from seaway.broker.coordinator.group_coordinator import GroupCoordinator
    from seaway.broker.coordinator.producer_ids import ProducerIdManager
    from seaway.broker.coordinator.transaction import TransactionCoordinator
    from seaway.broker.quotas import ClientQuotas
    from seaway.broker.scram_users import ScramUsers
    from seaway.broker.topics import TopicManager

__all__ = ["BrokerState"]


class BrokerState(Protocol):
    """The node's identity, its settings, and the managers that own its state (read-only:
    handlers change state through the managers, never by assignment)."""

    @property
    def node_id(self) -> int: ...

    @property
    def cluster_id(self) -> str: ...

    @property
    def advertised_host(self) -> str: ...

    @property
    def port(self) -> int: ...

    @property
    def auto_create(self) -> bool: ...

    @property
    def default_partitions(self) -> int: ...

    @property
    def delete_topic_enable(self) -> bool: ...

    @property
    def stopping(self) -> bool: ...

    @property
    def config_originals(self) -> Mapping[str, Any]: ...

    @property
    def config_values(self) -> Mapping[str, Any]: ...

    @property
    def topics(self) -> TopicManager: ...

    @property
    def groups(self) -> GroupCoordinator: ...

    @property
    def transactions(self) -> TransactionCoordinator: ...

    @property
    def producer_ids(self) -> ProducerIdManager: ...

    @property
    def scram(self) -> ScramUsers: ...

    @property
    def authorizer(self) -> BrokerAuthorizer | None: ...

    @property
    def quotas(self) -> ClientQuotas: ...
