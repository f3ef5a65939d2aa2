"""Fixtures of the broker tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from seaway.kafka.connection import Connection


@pytest.fixture
def connection(bootstrap: str) -> Iterator[Connection]:
    """Seaway's own client connection to the test broker, for a request sent as it is."""
    host, port = bootstrap.rsplit(":", 1)
    c = Connection(host, int(port))
    yield c
    c.close()
