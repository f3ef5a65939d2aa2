"""The stall watch: no progress while records wait is reported once, then its end."""

from __future__ import annotations

import logging

import pytest

from seaway.mirror.metrics import MirrorMetrics
from seaway.mirror.stall import StallWatch


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_flow_copying_nothing_while_records_wait_is_reported_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    watch = StallWatch("A->B", timeout_s=60, clock=clock)
    caplog.set_level(logging.INFO, logger="seaway.mirror.stall")
    copied = {("t", 0): 10}
    assert not watch.observe(copied, {("t", 0): 5})
    clock.now += 59
    assert not watch.observe(copied, {("t", 0): 500})  # under the bound
    clock.now += 2
    assert watch.observe(copied, {("t", 0): 900}, "Waiting for data to arrive; last batch 7")
    clock.now += 30
    assert watch.observe(copied, {("t", 0): 1200})  # still stalled, not logged again
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        "Flow A->B has made no progress for 61 s while 900 records wait on the source "
        "(Waiting for data to arrive; last batch 7); it resumes by itself once both clusters "
        "answer. Check that they do."
    ]
    clock.now += 1
    assert not watch.observe({("t", 0): 11}, {("t", 0): 1199})
    assert caplog.records[-1].getMessage() == "Flow A->B is making progress again after 92 s"


def test_nothing_to_copy_is_not_a_stall() -> None:
    clock = Clock()
    watch = StallWatch("A->B", timeout_s=1, clock=clock)
    copied = {("t", 0): 10}
    for _ in range(5):
        clock.now += 10
        assert not watch.observe(copied, {("t", 0): 0})
    clock.now += 0.5
    assert not watch.observe(copied, {("t", 0): 3})  # the wait starts when records arrive
    clock.now += 1
    assert watch.observe(copied, {("t", 0): 3})


def test_the_stall_is_a_flow_gauge() -> None:
    metrics = MirrorMetrics()
    metrics.record_flow("A", "B", stalled=1.0)
    assert metrics.snapshot()["seaway.mirror:type=Flow,source=A,target=B"] == {"flow-stalled": 1.0}


def test_a_flow_whose_restart_failed_is_reported_again_for_another_try(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A failed start leaves no query; the health check must still see a failure (after a
    pause), or the flow would never be started again."""
    from seaway.mirror import source_flow

    flow = source_flow.MirrorSourceFlow(None, None)  # type: ignore[arg-type]
    clock = Clock()
    monkeypatch.setattr(source_flow.time, "monotonic", clock)

    def unreachable() -> None:
        raise TimeoutError("B did not answer")

    monkeypatch.setattr(flow, "_start", unreachable)
    with pytest.raises(TimeoutError):
        flow.start()
    assert flow.query is None and flow.failure() is None  # not at once
    clock.now += 5
    assert flow.failure() == "its last start failed: TimeoutError: B did not answer"
    monkeypatch.setattr(flow, "_start", lambda: None)
    flow.start()
    assert flow.failure() is None


def test_a_source_that_does_not_answer_changes_nothing() -> None:
    clock = Clock()
    watch = StallWatch("A->B", timeout_s=10, clock=clock)
    copied = {("t", 0): 10}
    assert not watch.observe(copied, {("t", 0): 5})
    clock.now += 30
    assert not watch.observe(copied, {})  # A frozen: its end offsets unknown
    assert watch.observe(copied, {("t", 0): 50})  # waiting since before A froze
    clock.now += 30
    assert watch.observe(copied, {})
