"""How long the kill -9 and many-records scenarios run: their short versions in `make test`,
`SOAK` times longer (more kills, more records) in `make soak` (``SEAWAY_SOAK=<factor>``)."""

from __future__ import annotations

import os

SOAK = max(1, int(os.environ.get("SEAWAY_SOAK", "1")))


def soak(count: int) -> int:
    """*count* kills or records, scaled for a soak run."""
    return count * SOAK
