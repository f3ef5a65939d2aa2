"""Seaway's monitoring settings for ``seaway mirror-maker`` (not MM2 keys): the metrics
endpoint, the replication-lag gauge and the canary of each flow.

=================================  ===========  ==========================================
key (global, or ``A->B.<key>``)    default      meaning
=================================  ===========  ==========================================
``seaway.metrics.port``            (unset)      serve ``/metrics`` (Prometheus) and
                                                ``/mbeans`` on this port; unset: a free
                                                port on 127.0.0.1
``seaway.metrics.host``            ``0.0.0.0``  the address to bind when a port is set
``seaway.metrics.lag.interval.ms`` ``30000``    how often ``seaway-replication-lag`` is
                                                read from the source's high watermarks
``seaway.flow.stall.timeout.ms``   ``60000``    report a flow that copies nothing while
                                                records wait this long (checked with the
                                                lag; :mod:`seaway.mirror.stall`)
``seaway.canary.enabled``          ``false``    run a canary for the flow
``seaway.canary.topic``            ``seaway-canary``  its topic on the source
``seaway.canary.interval.ms``      ``10000``    one canary record every interval
``seaway.canary.timeout.ms``       ``60000``    alarm when not seen on the target by then
=================================  ===========  ==========================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from seaway.mirror.canary import DEFAULT_TOPIC, Canary, CanaryAlarm
from seaway.mirror.config import MirrorConfigError
from seaway.mirror.metrics import MirrorMetrics, lag_behind_source
from seaway.mirror.metrics_server import MetricsServer
from seaway.mirror.stall import STALL_TIMEOUT_DEFAULT_MS, STALL_TIMEOUT_MS, StallWatch

if TYPE_CHECKING:
    from seaway.console import Console
    from seaway.mirror.source_flow import FlowSettings, MirrorSourceFlow

METRICS_PORT: Final = "seaway.metrics.port"
METRICS_HOST: Final = "seaway.metrics.host"
LAG_INTERVAL_MS: Final = "seaway.metrics.lag.interval.ms"
CANARY_ENABLED: Final = "seaway.canary.enabled"
CANARY_TOPIC: Final = "seaway.canary.topic"
CANARY_INTERVAL_MS: Final = "seaway.canary.interval.ms"
CANARY_TIMEOUT_MS: Final = "seaway.canary.timeout.ms"


def setting(raw: Mapping[str, str], key: str, default: str, flow: str | None = None) -> str:
    """*key* for *flow* (``A->B.<key>`` wins over ``<key>``), else *default*."""
    if flow is not None and f"{flow}.{key}" in raw:
        return str(raw[f"{flow}.{key}"]).strip()
    return str(raw.get(key, default)).strip()


def _int(raw: Mapping[str, str], key: str, default: int, flow: str | None, low: int) -> int:
    text = setting(raw, key, str(default), flow)
    try:
        value = int(text)
    except ValueError:
        value = low - 1
    if value < low:
        raise MirrorConfigError(f"{key} must be an integer >= {low}, not {text!r}")
    return value


def positive_int(raw: Mapping[str, str], key: str, default: int, flow: str | None = None) -> int:
    """*key* (``A->B.<key>`` first) as an integer >= 1; an error names the key otherwise."""
    return _int(raw, key, default, flow, 1)


def non_negative_int(
    raw: Mapping[str, str], key: str, default: int, flow: str | None = None
) -> int:
    """*key* (``A->B.<key>`` first) as an integer >= 0; an error names the key otherwise."""
    return _int(raw, key, default, flow, 0)


def _bool(raw: Mapping[str, str], key: str, flow: str | None) -> bool:
    text = setting(raw, key, "false", flow).lower()
    if text not in ("true", "false"):
        raise MirrorConfigError(f"{key} must be true or false, not {text!r}")
    return text == "true"


def metrics_server(
    raw: Mapping[str, str], registry: MirrorMetrics, console: Console | None = None
) -> MetricsServer:
    """The driver's started metrics endpoint (with its web *console*), from
    ``seaway.metrics.port`` / ``.host``."""
    if METRICS_PORT not in raw:
        return MetricsServer(registry, console=console).start()
    port = _int(raw, METRICS_PORT, 0, None, 0)
    if port > 65535:
        raise MirrorConfigError(f"{METRICS_PORT} must be a TCP port (0-65535), not {port}")
    host = setting(raw, METRICS_HOST, "0.0.0.0")
    return MetricsServer(registry, host, port, console).start()


def lag_interval_s(raw: Mapping[str, str], flow: str | None = None) -> float:
    return _int(raw, LAG_INTERVAL_MS, 30_000, flow, 100) / 1000


def stall_watch(raw: Mapping[str, str], flow: str) -> StallWatch:
    """The flow's :class:`StallWatch`, from ``seaway.flow.stall.timeout.ms``."""
    return StallWatch(flow, _int(raw, STALL_TIMEOUT_MS, STALL_TIMEOUT_DEFAULT_MS, flow, 1) / 1000)


def flow_canary(
    raw: Mapping[str, str],
    settings: FlowSettings,
    registry: MirrorMetrics | None = None,
    on_alarm: Callable[[CanaryAlarm], Any] | None = None,
) -> Canary | None:
    """The flow's canary (not started) when ``seaway.canary.enabled``; it also makes the
    flow replicate the canary topic whatever its topic filter says."""
    flow = f"{settings.source_alias}->{settings.target_alias}"
    if not _bool(raw, CANARY_ENABLED, flow):
        return None
    topic = setting(raw, CANARY_TOPIC, DEFAULT_TOPIC, flow)
    if not topic or settings.policy.is_internal_topic(topic):
        raise MirrorConfigError(f"{CANARY_TOPIC} must name a topic that is replicated: {topic!r}")
    settings.canary_topic = topic
    return Canary(
        settings.source_client,
        settings.target_client,
        topic,
        settings.policy.format_remote_topic(settings.source_alias, topic),
        _int(raw, CANARY_INTERVAL_MS, 10_000, flow, 1) / 1000,
        _int(raw, CANARY_TIMEOUT_MS, 60_000, flow, 1) / 1000,
        on_alarm,
        source_alias=settings.source_alias,
        target_alias=settings.target_alias,
        metrics=registry,
        replication_factor=settings.internal_replication_factor,
    )


def publish_lag(
    flow: MirrorSourceFlow, registry: MirrorMetrics, watch: StallWatch | None = None
) -> dict[Any, int]:
    """Read and publish the flow's ``seaway-replication-lag``; the lags by source partition.

    The copied offsets are the ones the copy's micro-batches reported (observed in Spark's
    progress); before the first report the flow's stored MM2 offsets are used, and always
    for a following flow, whose micro-batches report only at the end of each follow period
    while its tasks store MM2's offsets every second. With a *watch*, also whether the flow
    is stalled (``flow-stalled``).
    """
    s = flow.settings
    copied = registry.copied(s.source_alias, s.target_alias)
    if not copied or s.following:
        stored = flow.stored_offsets()
        registry.record_copied(s.source_alias, s.target_alias, [(*k, o) for k, o in stored.items()])
        copied = registry.copied(s.source_alias, s.target_alias)
    lags = lag_behind_source(s.source_client, copied)
    registry.record_replication_lag(s.target_alias, lags, s.source_alias, flow.remote_topic)
    if watch is not None:
        stalled = watch.observe(copied, lags, flow.status())
        registry.record_flow(s.source_alias, s.target_alias, stalled=float(stalled))
    return lags


__all__ = [
    "CANARY_ENABLED",
    "CANARY_INTERVAL_MS",
    "CANARY_TIMEOUT_MS",
    "CANARY_TOPIC",
    "LAG_INTERVAL_MS",
    "METRICS_HOST",
    "METRICS_PORT",
    "flow_canary",
    "lag_interval_s",
    "metrics_server",
    "positive_int",
    "publish_lag",
    "setting",
    "stall_watch",
]
