"""Client quotas (KIP-13, KIP-55, KIP-219): values by user and client-id entity, kept in the
metadata store and changed by AlterClientQuotas; ``producer_byte_rate`` and
``consumer_byte_rate`` enforced on Produce and Fetch by throttling (Kafka's method: the
response carries the throttle time and the connection reads nothing more until it is over).
``request_percentage`` and ``controller_mutation_rate`` are kept and described only."""

from seaway.broker.quotas.client_quotas import Alteration, ClientQuotas
from seaway.broker.quotas.entities import Entity, Filter, parse_filter, quota_user
from seaway.broker.quotas.manager import ClientQuotaManager

__all__ = [
    "Alteration",
    "ClientQuotaManager",
    "ClientQuotas",
    "Entity",
    "Filter",
    "parse_filter",
    "quota_user",
]
