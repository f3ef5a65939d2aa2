"""The root of MirrorMaker's errors (:mod:`seaway.mirror`): configs, clusters, failover,
verification and MM2's record formats."""

from __future__ import annotations

from seaway.errors import SeawayError

__all__ = ["MirrorError"]


class MirrorError(SeawayError):
    """The mirror could not do what was asked."""
