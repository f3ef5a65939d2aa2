"""Filter: drop every record (use it with a predicate)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from seaway.config import ConfigDef
from seaway.connect.api.transforms import Transformation
from seaway.connect.transforms._util import R

CONFIG_DEF = ConfigDef()


class Filter(Transformation[R]):
    """Drops all records; with ``predicate`` (and ``negate``) it drops only some."""

    OVERVIEW_DOC = (
        "Drops all records, filtering them from subsequent transformations in the chain. This "
        "is intended to be used conditionally to filter out records matching (or not matching) "
        "a particular Predicate."
    )
    CONFIG_DEF = CONFIG_DEF

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Nothing to configure."""

    def config(self) -> ConfigDef:
        return CONFIG_DEF

    def apply(self, record: R) -> None:
        return None


__all__ = ["Filter"]
