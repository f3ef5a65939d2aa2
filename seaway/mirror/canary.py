"""The canary of a replication flow (the book, ch. 8.3.2 "监控"): every interval a small
record is written to a dedicated topic on the source; when the mirror has not brought it to
the target in time, an alarm is raised.

The canary topic (``seaway-canary``, 1 partition) is replicated by the flow like any other
topic, to its remote name on the target (``A.seaway-canary`` with the default policy). The
watcher reads only that remote topic, so normal data is never scanned. Each canary is
keyed ``seaway-canary`` with the JSON value ``{"id": ..., "sent_ms": ...}``; ids carry a
per-instance prefix, so several canaries may share the topic and each watches its own.

Seen: ``canary-latency-ms`` (end to end, from the write on the source to the read on the
target, one host's clock) goes to :class:`~seaway.mirror.metrics.MirrorMetrics`. Not seen
within the timeout: ERROR ``Canary <id> sent to A at <time> not seen on B after N s`` and
``on_alarm(CanaryAlarm)``; one that arrives later is logged as late.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.kafka import clients
from seaway.kafka.admin import ensure_topic
from seaway.mirror.metrics import MirrorMetrics, now_ms

log = logging.getLogger(__name__)

CANARY_KEY: Final = b"seaway-canary"
DEFAULT_TOPIC: Final = "seaway-canary"
_REMEMBER_ALARMED: Final = 1000
_TIMEOUT_S: Final = 10.0


@dataclass(frozen=True)
class CanaryAlarm:
    """A canary that did not arrive in time."""

    id: str
    sent_ms: int
    waited_s: float
    source: str
    target: str
    source_topic: str
    remote_topic: str


@dataclass(frozen=True)
class CanaryStatus:
    last_latency_ms: float | None
    pending: int
    alarms: int
    sent: int
    seen: int
    late: int


def _when(epoch_ms: int) -> str:
    return dt.datetime.fromtimestamp(epoch_ms / 1000, dt.UTC).isoformat(timespec="milliseconds")


class Canary:
    """Writes a canary to *source_topic* every *interval_s* and watches *remote_topic*."""

    def __init__(
        self,
        source_client: Mapping[str, str],
        target_client: Mapping[str, str],
        source_topic: str,
        remote_topic: str,
        interval_s: float = 10.0,
        timeout_s: float = 60.0,
        on_alarm: Callable[[CanaryAlarm], Any] | None = None,
        *,
        source_alias: str = "source",
        target_alias: str = "target",
        metrics: MirrorMetrics | None = None,
        replication_factor: int = 3,
    ) -> None:
        if interval_s <= 0 or timeout_s <= 0:
            raise ValueError(
                f"The canary needs a positive interval and timeout (seaway.canary.interval.ms, "
                f"seaway.canary.timeout.ms), not {interval_s} s and {timeout_s} s"
            )
        self.source_client = dict(source_client)
        self.target_client = dict(target_client)
        self.source_topic = source_topic
        self.remote_topic = remote_topic
        self.interval_s = interval_s
        self.timeout_s = timeout_s
        self.on_alarm = on_alarm
        self.source_alias = source_alias
        self.target_alias = target_alias
        self.metrics = MirrorMetrics() if metrics is None else metrics
        self.replication_factor = replication_factor
        self._run_id = uuid.uuid4().hex[:12]
        self._seq = 0
        self._pending: dict[str, tuple[int, float]] = {}  # id -> (sent epoch ms, monotonic)
        self._alarmed: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()
        self._counts = {"sent": 0, "seen": 0, "alarms": 0, "late": 0}
        self._last_latency: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._producer: Any = None
        self._consumer: Any = None

    # --- lifecycle ----------------------------------------------------------------------------

    def create_topic(self) -> None:
        """Create the canary topic on the source (1 partition) unless it exists."""
        retention = max(3_600_000, int(self.timeout_s * 10_000))
        try:
            ensure_topic(
                self.source_client,
                self.source_topic,
                1,
                self.replication_factor,
                {"retention.ms": str(retention)},
            )
        except Exception as error:
            raise RuntimeError(
                f"Cannot create the canary topic {self.source_topic} on {self.source_alias} "
                f"(replication factor {self.replication_factor}): {error}; check the cluster or "
                "lower the replication factor (the flow's offset-syncs.topic.replication.factor)"
            ) from error

    def start(self) -> None:
        """Create the topic, open the clients and start the canary thread."""
        from confluent_kafka import OFFSET_BEGINNING, TopicPartition

        if self._thread is not None:
            return
        self.create_topic()
        self._producer = clients.producer(
            {
                "acks": "all",
                "linger.ms": 0,
                "message.timeout.ms": max(1000, int(self.timeout_s * 1000)),
                "log.connection.close": False,
                **self.source_client,
            }
        )
        self._consumer = clients.consumer(
            {
                "group.id": f"seaway-canary-{self._run_id}",  # never committed: no group
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "fetch.wait.max.ms": 100,
                "topic.metadata.refresh.interval.ms": 10_000,
                "log.connection.close": False,
                **self.target_client,
            }
        )
        try:  # start at the end: older canaries are not ours
            start = self._consumer.get_watermark_offsets(
                TopicPartition(self.remote_topic, 0), timeout=_TIMEOUT_S
            )[1]
        except Exception:  # not created by the flow yet: everything that comes is new
            start = OFFSET_BEGINNING
        self._consumer.assign([TopicPartition(self.remote_topic, 0, start)])
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run,
            name=f"seaway-canary-{self.source_alias}->{self.target_alias}",
            daemon=True,
        )
        self._thread.start()
        log.info(
            "Canary %s->%s: every %.1f s to %s, expected as %s within %.1f s",
            self.source_alias,
            self.target_alias,
            self.interval_s,
            self.source_topic,
            self.remote_topic,
            self.timeout_s,
        )

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(_TIMEOUT_S)
            self._thread = None
        if self._producer is not None:
            self._producer.flush(1.0)
            self._producer = None
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None

    def __enter__(self) -> Canary:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def status(self) -> CanaryStatus:
        with self._lock:
            return CanaryStatus(
                self._last_latency,
                len(self._pending),
                self._counts["alarms"],
                self._counts["sent"],
                self._counts["seen"],
                self._counts["late"],
            )

    # --- the thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        next_send = time.monotonic()
        while not self._stop.is_set():
            try:
                if time.monotonic() >= next_send:
                    self._send()
                    next_send = max(next_send + self.interval_s, time.monotonic())
                self._producer.poll(0)
                wait = min(0.1, max(0.0, next_send - time.monotonic()))
                for message in self._consumer.consume(100, wait):
                    self._receive(message)
                self._expire()
            except Exception:
                log.exception(
                    "Canary %s->%s failed; going on", self.source_alias, self.target_alias
                )
                self._stop.wait(self.interval_s)

    def _send(self) -> None:
        self._seq += 1
        canary_id = f"{self._run_id}-{self._seq}"
        sent = now_ms()

        def delivered(err: Any, _msg: Any) -> None:
            if err is not None:
                log.warning(
                    "Canary %s could not be written to %s on %s: %s",
                    canary_id,
                    self.source_topic,
                    self.source_alias,
                    err,
                )

        value = json.dumps({"id": canary_id, "sent_ms": sent}).encode()
        with self._lock:
            self._pending[canary_id] = (sent, time.monotonic())
            self._counts["sent"] += 1
        self._producer.produce(
            self.source_topic, key=CANARY_KEY, value=value, partition=0, on_delivery=delivered
        )
        self._publish()

    def _receive(self, message: Any) -> None:
        if message.error() is not None or message.key() != CANARY_KEY:
            return
        try:
            canary_id = str(json.loads(message.value())["id"])
        except (ValueError, KeyError, TypeError):
            return
        received = now_ms()
        with self._lock:
            entry = self._pending.pop(canary_id, None)
            late_sent = self._alarmed.pop(canary_id, None)
            sent = entry[0] if entry else late_sent
            if sent is None:
                return  # another canary's, or one from before this run
            latency = float(received - sent)
            self._last_latency = latency
            self._counts["seen"] += 1
            if entry is None:
                self._counts["late"] += 1
        if entry is None:
            log.warning(
                "Canary %s sent to %s at %s arrived on %s late, after %.1f s",
                canary_id,
                self.source_alias,
                _when(sent),
                self.target_alias,
                latency / 1000,
            )
        self._publish(latency)

    def _expire(self) -> None:
        now = time.monotonic()
        expired: list[CanaryAlarm] = []
        with self._lock:
            for canary_id, (sent, at) in list(self._pending.items()):
                if now - at >= self.timeout_s:
                    del self._pending[canary_id]
                    self._alarmed[canary_id] = sent
                    self._counts["alarms"] += 1
                    expired.append(
                        CanaryAlarm(
                            canary_id,
                            sent,
                            now - at,
                            self.source_alias,
                            self.target_alias,
                            self.source_topic,
                            self.remote_topic,
                        )
                    )
            while len(self._alarmed) > _REMEMBER_ALARMED:
                self._alarmed.popitem(last=False)
        for alarm in expired:
            log.error(
                "Canary %s sent to %s at %s not seen on %s after %.1f s",
                alarm.id,
                alarm.source,
                _when(alarm.sent_ms),
                alarm.target,
                alarm.waited_s,
            )
            if self.on_alarm is not None:
                try:
                    self.on_alarm(alarm)
                except Exception:
                    log.exception("The canary's on_alarm callback failed")
        if expired:
            self._publish()

    def _publish(self, latency_ms: float | None = None) -> None:
        s = self.status()
        self.metrics.record_canary(
            self.source_alias,
            self.target_alias,
            latency_ms,
            pending=s.pending,
            alarm_count=s.alarms,
            sent_count=s.sent,
            seen_count=s.seen,
        )


__all__ = ["CANARY_KEY", "DEFAULT_TOPIC", "Canary", "CanaryAlarm", "CanaryStatus"]
