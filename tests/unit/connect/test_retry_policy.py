"""Kafka's retry rule for retriable failures: 300 ms << (attempt - 1), a random wait below
``errors.retry.delay.max.ms`` once that is exceeded, never past the deadline."""

from __future__ import annotations

import time

import pytest

from seaway.connect.api.errors import DataError, RetriableError
from seaway.connect.runtime.queries.retry import RetryPolicy


def test_delays_double_from_300_ms_then_turn_random_below_the_max() -> None:
    policy = RetryPolicy(timeout_ms=-1, max_delay_ms=1_000)
    assert [policy.delay_ms(n, None) for n in (1, 2)] == [300, 600]
    assert all(0 <= policy.delay_ms(3, None) < 1_000 for _ in range(50))
    assert policy.delay_ms(2, 250) == 250  # the deadline comes first


def _flaky(failures: int, kind: type[Exception] = RetriableError) -> tuple[list[int], object]:
    calls: list[int] = []

    def operation() -> str:
        calls.append(1)
        if len(calls) <= failures:
            raise kind(f"failure {len(calls)}")
        return "done"

    return calls, operation


def test_retriable_failures_are_retried_until_the_timeout() -> None:
    calls, operation = _flaky(2)
    started = time.monotonic()
    assert RetryPolicy(timeout_ms=10_000).call(operation) == "done"  # type: ignore[arg-type]
    assert len(calls) == 3 and 0.85 <= time.monotonic() - started < 5  # 300 + 600 ms
    calls, operation = _flaky(100)
    with pytest.raises(RetriableError):
        RetryPolicy(timeout_ms=700).call(operation)  # type: ignore[arg-type]
    assert len(calls) == 3  # at 0, 300 and 700 ms (the last wait cut at the deadline)


def test_no_retry_by_default_nor_for_other_errors_and_forever_for_put() -> None:
    calls, operation = _flaky(1)
    with pytest.raises(RetriableError):
        RetryPolicy().call(operation)  # type: ignore[arg-type]
    assert len(calls) == 1
    calls, operation = _flaky(1, DataError)
    with pytest.raises(DataError):
        RetryPolicy(timeout_ms=-1).call(operation)  # type: ignore[arg-type]
    calls, operation = _flaky(2)
    assert RetryPolicy().call(operation, forever=True) == "done"  # type: ignore[arg-type]
