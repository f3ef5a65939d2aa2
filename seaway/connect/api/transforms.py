"""Single message transforms and predicates (KIP-66, KIP-585).

``transforms=a,b`` applies ``a`` then ``b`` to every record; ``transforms.a.predicate=p``
applies ``a`` only to records for which predicate ``p`` holds (or does not, with
``transforms.a.negate=true``). A transform that returns None drops the record.

>>> class DropTombstones(Transformation):
...     def configure(self, configs): pass
...     def config(self): return ConfigDef()
...     def apply(self, record): return None if record.value is None else record
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from seaway.config import ConfigDef
from seaway.connect.api.records import ConnectRecord

R = TypeVar("R", bound=ConnectRecord)


class Transformation(ABC, Generic[R]):
    """Changes (or drops) one record; configured with ``transforms.<alias>.*``."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure with the transform's properties, prefix removed."""

    @abstractmethod
    def apply(self, record: R) -> R | None:
        """The transformed record (usually via ``record.new_record``), or None to drop it."""

    @abstractmethod
    def config(self) -> ConfigDef:
        """The transform's configuration keys."""

    def close(self) -> None:
        """Release resources."""


class Predicate(ABC, Generic[R]):
    """Decides whether a transform applies to a record; configured with ``predicates.<alias>.*``."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any]) -> None:
        """Configure with the predicate's properties, prefix removed."""

    @abstractmethod
    def test(self, record: R) -> bool:
        """Whether *record* matches."""

    @abstractmethod
    def config(self) -> ConfigDef:
        """The predicate's configuration keys."""

    def close(self) -> None:
        """Release resources."""


__all__ = ["Predicate", "Transformation"]
