"""Which flows follow (``seaway.flow.follow.ms``): at least once flows by default, while
the session has a core for each flow; the setting, per flow, decides otherwise."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from seaway.mirror.config import MirrorMakerConfig
from seaway.mirror.driver import MirrorMaker
from seaway.mirror.source_flow import FOLLOW_DEFAULT_MS, FOLLOW_MS


def _maker(spark: Any, **extra: str) -> MirrorMaker:
    props = {"clusters": "A, B", "A->B.enabled": "true", "A.bootstrap.servers": "a:9092",
             "B.bootstrap.servers": "b:9092", **extra}  # fmt: skip
    maker = MirrorMaker(MirrorMakerConfig(props))
    maker.spark = spark  # local[2]: two cores
    return maker


def test_flows_follow_by_default_while_each_has_a_core(
    spark: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="seaway.mirror.driver")
    maker = _maker(spark)
    assert maker._follow_ms("A->B", exactly_once=False, flows=1) == FOLLOW_DEFAULT_MS
    assert maker._follow_ms("A->B", exactly_once=False, flows=2) == FOLLOW_DEFAULT_MS
    assert not [r for r in caplog.records if r.levelno >= logging.INFO]
    # Three flows on two cores, or exactly once: no following, said at INFO (a default).
    assert maker._follow_ms("A->B", exactly_once=False, flows=3) == 0
    assert maker._follow_ms("A->B", exactly_once=True, flows=1) == 0
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert len(infos) == 2 and "3 flows share 2" in infos[0] and "at least once" in infos[1]


def test_the_setting_decides_per_flow(spark: Any, caplog: pytest.LogCaptureFixture) -> None:
    maker = _maker(spark, **{FOLLOW_MS: "0", f"A->B.{FOLLOW_MS}": "2500"})
    assert maker._follow_ms("A->B", exactly_once=False, flows=1) == 2500
    assert maker._follow_ms("B->A", exactly_once=False, flows=1) == 0
    # Asked for, but not possible: a WARNING names the setting and the reason.
    assert maker._follow_ms("A->B", exactly_once=True, flows=1) == 0
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert FOLLOW_MS in warning.getMessage() and "exactly once" in warning.getMessage()
