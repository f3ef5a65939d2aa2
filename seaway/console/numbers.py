"""Numbers as the console prints them: short, with SI prefixes."""

from __future__ import annotations

import math
from typing import Final

__all__ = ["compact", "duration_ms", "size"]

_PREFIXES: Final = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))


def compact(value: float | None) -> str:
    """``1234`` -> ``1.23k``, ``0.5`` -> ``0.5``, None or NaN -> ``—``."""
    if value is None or math.isnan(value):
        return "—"
    magnitude = abs(value)
    for scale, prefix in _PREFIXES:
        if magnitude >= scale:
            return f"{value / scale:.3g}{prefix}"
    if value == int(value):
        return str(int(value))
    return f"{value:.3g}"


def size(value: float | None) -> str:
    """Bytes: ``2048`` -> ``2.05 kB``."""
    if value is None:
        return "—"
    text = compact(value)
    return f"{text[:-1]} {text[-1]}B" if text[-1:].isalpha() else f"{text} B"


def duration_ms(value: float | None) -> str:
    """Milliseconds: ``850`` -> ``850 ms``, ``65000`` -> ``65 s``, ``7.2e6`` -> ``2 h``."""
    if value is None or math.isnan(value) or math.isinf(value):
        return "—"
    if value < 1000:
        return f"{value:.0f} ms"
    seconds = value / 1000
    if seconds < 120:
        return f"{seconds:.3g} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"
