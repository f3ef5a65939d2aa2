"""Seaway's monitoring settings for the driver: the metrics endpoint and the flow canary."""

from __future__ import annotations

import urllib.request

import pytest

from seaway.mirror.config import MirrorConfigError
from seaway.mirror.filters import DefaultConfigPropertyFilter, DefaultTopicFilter
from seaway.mirror.metrics import MirrorMetrics
from seaway.mirror.monitoring import (
    CANARY_ENABLED,
    CANARY_INTERVAL_MS,
    CANARY_TIMEOUT_MS,
    CANARY_TOPIC,
    LAG_INTERVAL_MS,
    METRICS_PORT,
    flow_canary,
    lag_interval_s,
    metrics_server,
    setting,
)
from seaway.mirror.policy import (
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    ReplicationPolicy,
)
from seaway.mirror.source_flow import FlowSettings


def flow(policy: ReplicationPolicy | None = None) -> FlowSettings:
    return FlowSettings(
        source_alias="A",
        target_alias="B",
        source_client={"bootstrap.servers": "a:9092"},
        target_client={"bootstrap.servers": "b:9092"},
        policy=policy or DefaultReplicationPolicy(),
        topic_filter=DefaultTopicFilter({"topics": "orders"}),
        config_filter=DefaultConfigPropertyFilter(),
        internal_replication_factor=2,
    )


def test_flow_keys_override_global_ones() -> None:
    raw = {CANARY_TOPIC: "global", f"A->B.{CANARY_TOPIC}": "mine"}
    assert setting(raw, CANARY_TOPIC, "d", "A->B") == "mine"
    assert setting(raw, CANARY_TOPIC, "d", "A->C") == "global"
    assert setting({}, CANARY_TOPIC, "d", "A->B") == "d"
    assert lag_interval_s({}) == 30.0 and lag_interval_s({LAG_INTERVAL_MS: "500"}) == 0.5


def test_canary_from_settings() -> None:
    assert flow_canary({}, flow()) is None
    settings = flow()
    raw = {
        f"A->B.{CANARY_ENABLED}": "true",
        CANARY_INTERVAL_MS: "250",
        CANARY_TIMEOUT_MS: "4000",
    }
    canary = flow_canary(raw, settings, MirrorMetrics())
    assert canary is not None
    assert (canary.source_topic, canary.remote_topic) == ("seaway-canary", "A.seaway-canary")
    assert (canary.interval_s, canary.timeout_s) == (0.25, 4.0)
    assert (canary.source_alias, canary.target_alias, canary.replication_factor) == ("A", "B", 2)
    assert settings.canary_topic == "seaway-canary"  # replicated whatever `topics` says
    identity = flow_canary(
        {CANARY_ENABLED: "TRUE", CANARY_TOPIC: "probe"}, flow(IdentityReplicationPolicy())
    )
    assert identity is not None and identity.remote_topic == "probe"


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        ({CANARY_ENABLED: "yes"}, CANARY_ENABLED),
        ({CANARY_ENABLED: "true", CANARY_INTERVAL_MS: "fast"}, CANARY_INTERVAL_MS),
        ({CANARY_ENABLED: "true", CANARY_TIMEOUT_MS: "0"}, CANARY_TIMEOUT_MS),
        ({CANARY_ENABLED: "true", CANARY_TOPIC: "mm2-offsets.A.internal"}, CANARY_TOPIC),
    ],
)
def test_bad_canary_settings_name_the_key(raw: dict[str, str], key: str) -> None:
    with pytest.raises(MirrorConfigError, match=key.replace(".", r"\.")):
        flow_canary(raw, flow())


def test_metrics_server_settings() -> None:
    registry = MirrorMetrics()
    registry.record_checkpoint("A", "B", "g", "A.t", 0, 5)
    local = metrics_server({}, registry)
    try:
        assert local.host == "127.0.0.1" and local.port > 0
    finally:
        local.stop()
    served = metrics_server({METRICS_PORT: "0"}, registry)
    try:
        assert served.host == "0.0.0.0"
        with urllib.request.urlopen(served.url + "/metrics", timeout=5) as response:
            assert b"checkpoint_latency_ms_max{" in response.read()
    finally:
        served.stop()
    for port in ("-1", "70000", "http"):
        with pytest.raises(MirrorConfigError, match=r"seaway\.metrics\.port"):
            metrics_server({METRICS_PORT: port}, registry)


def test_positive_int_prefers_the_flow_key_and_names_a_bad_one() -> None:
    from seaway.mirror.monitoring import positive_int

    raw = {"seaway.max.records.per.batch": "1000", "A->B.seaway.max.records.per.batch": "7"}
    assert positive_int(raw, "seaway.max.records.per.batch", 5, "A->B") == 7
    assert positive_int(raw, "seaway.max.records.per.batch", 5, "B->A") == 1000
    assert positive_int({}, "seaway.max.records.per.batch", 5) == 5
    with pytest.raises(MirrorConfigError, match=r"seaway\.max\.records\.per\.batch .*'0'"):
        positive_int({"seaway.max.records.per.batch": "0"}, "seaway.max.records.per.batch", 5)


def test_the_trigger_interval_may_be_zero_and_names_a_bad_one() -> None:
    from seaway.mirror.monitoring import non_negative_int
    from seaway.mirror.source_flow import TRIGGER_INTERVAL_DEFAULT_MS, TRIGGER_INTERVAL_MS

    raw = {"A->B.seaway.flow.trigger.interval.ms": "0"}
    assert non_negative_int(raw, TRIGGER_INTERVAL_MS, TRIGGER_INTERVAL_DEFAULT_MS, "A->B") == 0
    assert non_negative_int(raw, TRIGGER_INTERVAL_MS, TRIGGER_INTERVAL_DEFAULT_MS, "B->A") == 500
    with pytest.raises(MirrorConfigError, match=r"seaway\.flow\.trigger\.interval\.ms .*'-1'"):
        non_negative_int({TRIGGER_INTERVAL_MS: "-1"}, TRIGGER_INTERVAL_MS, 500)
