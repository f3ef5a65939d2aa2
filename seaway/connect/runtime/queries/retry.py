"""Retries of retriable failures (Kafka's ``RetryWithToleranceOperator``, KIP-298).

Only :class:`~seaway.connect.api.errors.RetriableError` is retried. Between attempts the
operator waits ``300 ms << (attempt - 1)``; a wait longer than
``errors.retry.delay.max.ms`` becomes a random one below it, and no wait runs past the
``errors.retry.timeout`` deadline (0: no retries; -1: retry for ever).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final, TypeVar

from seaway.connect.api.errors import RetriableError

__all__ = ["RetryPolicy"]

T = TypeVar("T")

_FIRST_DELAY_MS: Final = 300


@dataclass(frozen=True)
class RetryPolicy:
    """``errors.retry.timeout`` and ``errors.retry.delay.max.ms`` of a connector."""

    timeout_ms: int = 0
    max_delay_ms: int = 60_000

    @classmethod
    def of(cls, connector_config: Mapping[str, str]) -> RetryPolicy:
        return cls(
            int(connector_config.get("errors.retry.timeout", "0")),
            int(connector_config.get("errors.retry.delay.max.ms", "60000")),
        )

    def delay_ms(self, attempt: int, left_ms: float | None) -> float:
        """The wait after failed attempt *attempt* (1-based), at most *left_ms*."""
        delay = float(_FIRST_DELAY_MS << min(attempt - 1, 40))
        if delay > self.max_delay_ms:
            delay = random.uniform(0, self.max_delay_ms)
        return delay if left_ms is None else max(0.0, min(delay, left_ms))

    def call(
        self,
        operation: Callable[[], T],
        *,
        forever: bool = False,
        on_retry: Callable[[int, RetriableError], None] | None = None,
    ) -> T:
        """Run *operation*, retrying it on RetriableError within the policy (or, with
        *forever* and no timeout set, without end: Kafka retries ``put()`` so)."""
        timeout = -1 if forever and self.timeout_ms == 0 else self.timeout_ms
        deadline = None if timeout < 0 else time.monotonic() + timeout / 1000
        attempt = 0
        while True:
            attempt += 1
            try:
                return operation()
            except RetriableError as error:
                left = None if deadline is None else (deadline - time.monotonic()) * 1000
                if left is not None and left <= 0:
                    raise
                if on_retry is not None:
                    on_retry(attempt, error)
                time.sleep(self.delay_ms(attempt, left) / 1000)
