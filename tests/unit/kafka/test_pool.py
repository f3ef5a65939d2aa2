"""The process's shared clients: shared by key, dropped, the least recently used evicted."""

from __future__ import annotations

from seaway.kafka import pool


def test_pool_shares_drops_and_evicts() -> None:
    released: list[str] = []
    made = pool.shared(("test", 1), lambda: "one", released.append)
    assert pool.shared(("test", 1), lambda: "other") == made == "one"
    pool.drop(made)
    assert released == ["one"]
    for n in range(3):
        pool.shared(("test-limited", n), lambda n=n: f"c{n}", released.append, limit=2)
    assert released == ["one", "c0"]
    pool.drop("c1")
    pool.drop("c2")
