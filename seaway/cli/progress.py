"""Progress of long commands: a rich progress bar on standard error, only on a terminal.

The one way Seaway's commands show progress. The library code doing the work never imports
this module (nor rich): it takes an optional callback ``(done, total)`` and the command passes
it the :class:`Bar` that :func:`progress` yields. When standard error is not a terminal the
bar is a no-op and nothing is written, so what scripts and tests read does not change.

    with progress("verify", "records", rate=True) as bar:
        verify_mirror(..., progress=bar)
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text


class Bar:
    """Reports work done to a progress bar: ``bar(done, total)``, optionally naming the step
    under way. A bar that is not shown (not a terminal) ignores every call."""

    def __init__(self, description: str, shown: Progress | None = None) -> None:
        self._description = description
        self._progress = shown
        self._task: TaskID | None = None
        if shown is not None:
            self._task = shown.add_task(description, total=None)

    def __call__(self, done: int, total: int, step: str | None = None) -> None:
        if self._progress is None or self._task is None:
            return
        description = self._description if step is None else f"{self._description}: {step}"
        self._progress.update(
            self._task, completed=done, total=max(total, done), description=description
        )


def _one_line() -> Column:
    """A column kept on one line: on a narrow terminal the bar gives way first."""
    return Column(no_wrap=True, overflow="ellipsis")


class _Count(ProgressColumn):
    """``1,200/5,000 records``: done and total in the unit of the work."""

    def __init__(self, unit: str) -> None:
        super().__init__(table_column=_one_line())
        self.unit = unit

    def render(self, task: Task) -> Text:
        total = "?" if task.total is None else f"{int(task.total):,}"
        return Text(f"{int(task.completed):,}/{total} {self.unit}", style="progress.download")


class _Rate(ProgressColumn):
    """``3,400 records/s``: the recent rate."""

    def __init__(self, unit: str) -> None:
        super().__init__(table_column=_one_line())
        self.unit = unit

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        shown = "?" if speed is None else f"{speed:,.0f}"
        return Text(f"{shown} {self.unit}/s", style="progress.data.speed")


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def _columns(unit: str, rate: bool) -> list[ProgressColumn]:
    columns: list[ProgressColumn] = [
        TextColumn("{task.description}", table_column=_one_line()),
        BarColumn(),
        TaskProgressColumn(),
        _Count(unit),
    ]
    if rate:
        return [*columns, _Rate(unit), TextColumn("ETA"), TimeRemainingColumn()]
    return [*columns, TimeElapsedColumn()]


@contextmanager
def _log_handlers_to(stream: TextIO, replaced: TextIO) -> Iterator[None]:
    """Log handlers writing to *replaced* write to *stream* instead (above the bar)."""
    moved = [
        h
        for h in logging.getLogger().handlers
        if isinstance(h, logging.StreamHandler) and h.stream is replaced
    ]
    for handler in moved:
        handler.setStream(stream)
    try:
        yield
    finally:
        for handler in moved:
            handler.setStream(replaced)


@contextmanager
def progress(description: str, unit: str, *, rate: bool = False) -> Iterator[Bar]:
    """A progress bar on standard error while the block runs, when that is a terminal.

    *unit* names what is counted (``records``, ``groups``, ``steps``); *rate* adds the rate
    and the time left. Lines printed meanwhile (standard output if it is a terminal too,
    standard error, the root logger) appear above the bar; the bar's last state stays.
    """
    err = sys.stderr
    if not _is_terminal(err):
        yield Bar(description)
        return
    shown = Progress(
        *_columns(unit, rate),
        console=Console(file=err),
        redirect_stdout=_is_terminal(sys.stdout),  # never send piped output to the terminal
        redirect_stderr=True,
    )
    with shown, _log_handlers_to(sys.stderr, err):
        yield Bar(description, shown)


__all__ = ["Bar", "progress"]
