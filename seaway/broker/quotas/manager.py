"""One byte-rate quota enforced as Kafka's ``ClientQuotaManager`` enforces it.

A request's (user, client-id) gets the most specific quota set for this key, in Kafka's
order of precedence::

    users/<user>/clients/<client-id>        users/<default>/clients/<client-id>
    users/<user>/clients/<default>          users/<default>/clients/<default>
    users/<user>                            users/<default>
                                            clients/<client-id>
                                            clients/<default>

(left column first). Clients sharing a quota share its rate: a ``users/<user>`` quota
bounds all the user's clients together, a ``clients/<default>`` one each client id alone.
Recording a value returns the throttle time: 0 while the rate is within the quota.
"""

from __future__ import annotations

from collections.abc import Mapping

from seaway.broker.quotas.entities import CLIENT_ID, USER, Entity, entity
from seaway.java.sampled_stat import SampledStat

__all__ = ["ClientQuotaManager", "Tags"]

Tags = tuple[str, str]  # (user, client id) the rate is kept for; "" where shared
_IDLE_MS = 3600 * 1000  # a client's rate is dropped after an hour without requests


def _candidates(user: str, client_id: str) -> list[tuple[Entity, Tags]]:
    """The entities whose quota would apply, most specific first, and the rate each uses."""
    both = (user, client_id)
    return [
        (entity([(USER, user), (CLIENT_ID, client_id)]), both),
        (entity([(USER, user), (CLIENT_ID, None)]), both),
        (entity([(USER, user)]), (user, "")),
        (entity([(USER, None), (CLIENT_ID, client_id)]), both),
        (entity([(USER, None), (CLIENT_ID, None)]), both),
        (entity([(USER, None)]), (user, "")),
        (entity([(CLIENT_ID, client_id)]), ("", client_id)),
        (entity([(CLIENT_ID, None)]), ("", client_id)),
    ]


class ClientQuotaManager:
    """The rates of the clients one quota key bounds (``producer_byte_rate`` on Produce,
    ``consumer_byte_rate`` on Fetch). ``enabled`` is False while no quota of the key is
    set: callers skip everything else then."""

    def __init__(self, samples: int, window_seconds: int) -> None:
        self.samples = samples
        self.window_ms = window_seconds * 1000
        self.enabled = False
        self._limits: dict[Entity, float] = {}
        self._rates: dict[Tags, SampledStat] = {}
        self._resolved: dict[Tags, tuple[SampledStat, float] | None] = {}
        self._next_expiry_ms = 0

    def update(self, limits: Mapping[Entity, float]) -> None:
        """The quotas of this key by entity, replacing the previous ones (rates go on)."""
        self._limits = dict(limits)
        self._resolved.clear()
        self.enabled = bool(self._limits)

    def quota(self, user: str, client_id: str) -> float | None:
        """The quota a client gets (None: unbounded)."""
        found = self._resolve(user, client_id)
        return found[1] if found is not None else None

    def _resolve(self, user: str, client_id: str) -> tuple[SampledStat, float] | None:
        key = (user, client_id)
        try:
            return self._resolved[key]
        except KeyError:
            pass
        found = None
        for candidate, tags in _candidates(user, client_id):
            limit = self._limits.get(candidate)
            if limit is not None:
                rate = self._rates.get(tags)
                if rate is None:
                    rate = self._rates[tags] = SampledStat(self.samples, self.window_ms)
                found = rate, limit
                break
        self._resolved[key] = found
        return found

    def record(self, user: str, client_id: str, value: float, now_ms: int) -> int:
        """Record ``value`` (bytes) for the client; return its throttle time in ms."""
        if now_ms >= self._next_expiry_ms:
            self._expire(now_ms)
        found = self._resolve(user, client_id)
        if found is None:
            return 0
        rate, limit = found
        rate.record(value, now_ms)
        return rate.throttle_ms(limit, now_ms)

    def unrecord(self, user: str, client_id: str, value: float, now_ms: int) -> None:
        """Take back a value recorded for a response that is not sent (a throttled fetch)."""
        found = self._resolve(user, client_id)
        if found is not None:
            found[0].record(-value, now_ms)

    def max_value_in_window(self, user: str, client_id: str) -> float:
        """The most one request may carry without being throttled for sure: the quota times
        the ``samples - 1`` windows a rate may burst over (Kafka caps fetches at this)."""
        found = self._resolve(user, client_id)
        if found is None:
            return float("inf")
        return found[1] * (self.samples - 1) * self.window_ms / 1000

    def _expire(self, now_ms: int) -> None:
        """Forget the rates of clients idle for an hour (checked once a minute)."""
        self._next_expiry_ms = now_ms + 60_000
        idle = [tags for tags, rate in self._rates.items() if now_ms - rate.last_ms > _IDLE_MS]
        if idle:
            for tags in idle:
                del self._rates[tags]
            self._resolved.clear()
