"""A failed task's report: what it raised on the first line (as Kafka's traces start with the
exception), its traceback, then what Spark wrapped around it; the task found again in it."""

from __future__ import annotations

from seaway.connect.api import ConnectError
from seaway.connect.runtime.queries.conversion import TaskFailure


def _raised() -> ConnectError:
    try:
        raise ConnectError("Postgres server wal_level property must be 'logical'")
    except ConnectError as error:
        return error


def test_the_exception_line_comes_first() -> None:
    failure = str(TaskFailure.of("cdc", 2, _raised()))
    first, *rest = failure.splitlines()
    assert first == ("[seaway-task 2] Task cdc-2 failed: seaway.connect.api.errors.ConnectError: "
                     "Postgres server wal_level property must be 'logical'")  # fmt: skip
    assert rest[0] == "Traceback (most recent call last):"
    assert TaskFailure.task_of(failure) == 2


def test_the_trace_starts_at_the_task_and_keeps_sparks_text() -> None:
    task = str(TaskFailure.of("cdc", 0, _raised()))
    wrapped = f"[PYTHON_STREAMING_DATA_SOURCE_RUNTIME_ERROR] Failed: Traceback ...\n{task}\n=== Q"
    trace = TaskFailure.trace_of(wrapped)
    assert trace.startswith("[seaway-task 0] Task cdc-0 failed: seaway.connect.api.errors.")
    assert trace.endswith("[PYTHON_STREAMING_DATA_SOURCE_RUNTIME_ERROR] Failed: Traceback ...")
    assert TaskFailure.trace_of("no task named") == "no task named"
