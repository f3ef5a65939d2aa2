"""What the file copy benchmark measures: spans of lines, CPU seconds, and each variant's
run."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from bench._connect_worker import QuerySummary
from bench._report import CpuMeter, tree_cpu
from bench._util import MB


@dataclass(frozen=True)
class Span:
    """Lines (and input bytes) moved in some seconds."""

    lines: int
    bytes: int
    seconds: float

    @property
    def lines_per_s(self) -> float:
        """Lines per second."""
        return self.lines / self.seconds if self.seconds else 0.0

    @property
    def mb_per_s(self) -> float:
        """Megabytes (10^6 bytes) of the input file per second."""
        return self.bytes / MB / self.seconds if self.seconds else 0.0


@dataclass(frozen=True)
class Cpu:
    """CPU seconds used during a measurement: client side (this process tree) and broker."""

    client: float
    broker: float

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(self.client - other.client, self.broker - other.broker)


def cpu_meter(broker_pid: int) -> CpuMeter:
    """CPU time of the broker, and of this process and its children (the broker aside):
    the Spark JVM and its Python workers."""
    return CpuMeter(client=tree_cpu(os.getpid(), without=broker_pid), broker=tree_cpu(broker_pid))


@dataclass
class PlainRun:
    """The plain confluent-kafka copy."""

    produce: Span
    consume: Span
    end_to_end: Span
    produce_cpu: Cpu
    end_to_end_cpu: Cpu
    topic_records: int
    identical: bool


@dataclass
class SeawayRun:
    """The Connect copy on a Seaway worker."""

    startup_seconds: float
    source: Span | None = None
    end_to_end: Span | None = None
    source_cpu: Cpu | None = None
    end_to_end_cpu: Cpu | None = None
    #: From the first POST to the first record in the topic / first byte in the copy.
    first_record_seconds: float | None = None
    first_sink_byte_seconds: float | None = None
    topic_records: int | None = None
    stop_seconds: float | None = None
    #: Worker log records at WARNING and above: (level, logger, message).
    log_problems: list[tuple[str, str, str]] = field(default_factory=list)
    #: The connector queries' progress, summed up when the copy was complete.
    queries: list[QuerySummary] = field(default_factory=list)

    @property
    def source_steady_rate(self) -> float | None:
        """Lines/s into the topic from its first record on (first micro-batch latency out)."""
        if self.source is None or self.first_record_seconds is None:
            return None
        seconds = self.source.seconds - self.first_record_seconds
        return self.source.lines / seconds if seconds > 0 else None

    @property
    def sink_steady_rate(self) -> float | None:
        """Lines/s into the copy from its first bytes on."""
        if self.end_to_end is None or self.first_sink_byte_seconds is None:
            return None
        seconds = self.end_to_end.seconds - self.first_sink_byte_seconds
        return self.end_to_end.lines / seconds if seconds > 0 else None


@dataclass
class Results:
    """Everything one run measured; a failed step leaves None and a message in ``errors``."""

    lines: int
    file_bytes: int
    generate_seconds: float = 0.0
    plain: PlainRun | None = None
    seaway: SeawayRun | None = None
    errors: list[str] = field(default_factory=list)
