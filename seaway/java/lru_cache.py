"""Kafka's ``SynchronizedCache(new LRUCache<>(size))``: the *size* most recently used entries
of a map, thread-safe. A pickled cache starts empty, so objects holding one (configured
transforms, converters) ship to Spark executors."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["LruCache"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LruCache(Generic[K, V]):
    """A thread-safe least-recently-used map of at most *size* entries.

    >>> cache: LruCache[str, int] = LruCache(2)
    >>> cache.put("a", 1), cache.put("b", 2), cache.get("a"), cache.put("c", 3)
    (1, 2, 1, 3)
    >>> cache.get("b") is None, len(cache)
    (True, 2)
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The entry of *key* (now the most recently used), or None."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, key: K, value: V) -> V:
        """Keep *value* for *key*, dropping the least recently used beyond the size."""
        with self._lock:
            self._entries[key] = value
            while len(self._entries) > max(self.size, 0):
                self._entries.popitem(last=False)
        return value

    def get_or_compute(self, key: K, compute: Callable[[], V]) -> V:
        """The entry of *key*, computed (outside the lock) and kept when missing."""
        found = self.get(key)
        return found if found is not None else self.put(key, compute())

    def __len__(self) -> int:
        return len(self._entries)

    def __getstate__(self) -> dict[str, int]:
        return {"size": self.size}

    def __setstate__(self, state: dict[str, int]) -> None:
        self.__init__(state["size"])  # type: ignore[misc]
