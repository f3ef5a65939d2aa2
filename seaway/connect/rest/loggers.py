"""Runtime log levels for ``/admin/loggers`` (KIP-495), on Python's :mod:`logging`.

Kafka's ``Loggers`` over log4j, translated: a logger "exists" once something created it
(``logging.getLogger``), the root logger is named ``root`` (case-insensitively), levels are
log4j's names mapped onto Python's numbers, and setting a namespace changes every existing
logger whose name starts with it (a plain string prefix, as Kafka does), creating the
namespace's own logger when it is missing.

>>> LEVELS["WARN"] == logging.WARNING, level_name(logging.WARNING), level_name(15)
(True, 'WARN', 'INFO')
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["LEVELS", "Loggers", "level_name", "parse_level"]

log = logging.getLogger(__name__)

ROOT_LOGGER_NAME = "root"

# log4j's levels on Python's scale; OFF sits above every level Python defines.
LEVELS: dict[str, int] = {
    "OFF": logging.CRITICAL + 10,
    "FATAL": logging.CRITICAL,
    "ERROR": logging.ERROR,
    "WARN": logging.WARNING,
    "INFO": logging.INFO,
    "DEBUG": logging.DEBUG,
    "TRACE": 5,
    "ALL": 1,
}
_ASCENDING = sorted(LEVELS.items(), key=lambda item: item[1])


def parse_level(text: str) -> int | None:
    """The Python level for a log4j level name (any case), or None when it names none."""
    return LEVELS.get(text.upper())


def level_name(level: int) -> str:
    """The log4j name for a Python level: the lowest log4j level at or above it."""
    for name, number in _ASCENDING:
        if level <= number:
            return name
    return "OFF"


class Loggers:
    """Reads and changes logger levels; remembers when each was last changed (epoch ms)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._last_modified: dict[str, int] = {}

    def level(self, name: str) -> dict[str, Any] | None:
        """``LoggerLevel`` of an existing logger (its effective level if none is set)."""
        with self._lock:
            logger: logging.Logger | None
            if name.lower() == ROOT_LOGGER_NAME:
                logger = logging.getLogger()
            else:
                logger = _current_loggers().get(name)
                if logger is None:
                    log.warning("Unable to find level for logger %s", name)
                    return None
            return self._logger_level(logger)

    def all_levels(self) -> dict[str, dict[str, Any]]:
        """``{name: LoggerLevel}`` of the loggers whose level is set explicitly, sorted."""
        with self._lock:
            result = {
                name: self._logger_level(logger)
                for name, logger in _current_loggers().items()
                if logger.level != logging.NOTSET
            }
            root = logging.getLogger()
            if root.level != logging.NOTSET:
                result[ROOT_LOGGER_NAME] = self._logger_level(root)
            return dict(sorted(result.items()))

    def set_level(self, namespace: str, level: str) -> list[str]:
        """Set *level* (a log4j name) on *namespace* and its children; their names, sorted.

        Loggers already at that level are listed but keep their ``last_modified``.
        """
        number = parse_level(level)
        if number is None:
            raise ValueError(f"invalid log level '{level}'.")
        with self._lock:
            log.info("Setting level of namespace %s and children to %s", namespace, level.upper())
            current = _current_loggers()
            if namespace.lower() == ROOT_LOGGER_NAME:
                targets = [*current.values(), logging.getLogger()]
            else:
                targets = [lg for name, lg in current.items() if name.startswith(namespace)]
                if namespace not in current:
                    targets.append(logging.getLogger(namespace))
            now = int(self._clock() * 1000)
            for logger in targets:
                # As log4j: compare with the set level, else the inherited one.
                if logger.getEffectiveLevel() == number:
                    continue
                logger.setLevel(number)
                self._last_modified[logger.name] = now
            return sorted(logger.name for logger in targets)

    def _logger_level(self, logger: logging.Logger) -> dict[str, Any]:
        return {
            "level": level_name(logger.getEffectiveLevel()),
            "last_modified": self._last_modified.get(logger.name),
        }


def _current_loggers() -> dict[str, logging.Logger]:
    """Every logger created so far, but the root (placeholders are not loggers)."""
    manager = logging.Logger.manager
    return {
        name: logger
        for name, logger in list(manager.loggerDict.items())
        if isinstance(logger, logging.Logger)
    }
