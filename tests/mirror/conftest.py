"""A third embedded broker for the mirror tests (clusters A and B: tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from seaway.broker import BrokerThread

CLUSTER_CONFIG = {"group.initial.rebalance.delay.ms": 200, "num.partitions": 3}


@pytest.fixture(scope="module")
def cluster_c(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrokerThread]:
    """A third cluster, for hub-and-spoke."""
    with BrokerThread(tmp_path_factory.mktemp("cluster-c"), config=CLUSTER_CONFIG) as b:
        yield b
