"""Log compaction: the cleaner's throughput next to a plain read, and produce with it running.

Run from the repository root::

    .venv/bin/python -m bench.compaction            # ~1 minute on 2 cores
    .venv/bin/python -m bench.compaction --quick    # smoke run

One workload: ``--records`` records of ``--value-size`` bytes over ``--keys`` keys
(confluent-kafka, the broker benchmark's producer settings) into a one-partition compacted
topic with ``--segment-mb`` MiB segments.

1. Cleaner off (``log.cleaner.enable=false``): produce, then stop the broker.
2. On that log, in this process: read its closed segments sequentially (the reference), then
   clean them as the broker's cleaner does (:func:`seaway.broker.log.cleaner.clean`, both
   passes, the default dedupe buffer; the cleaned files are discarded): MB of log cleaned
   per second and CPU per record of each.
3. Cleaner on (``log.cleaner.backoff.ms=100``, ``min.cleanable.dirty.ratio=0.01``: it
   cleans every closed segment as it comes): the same produce into a fresh broker; produce
   throughput and the broker's CPU per record next to step 1's, then how long after the
   produce the cleaner has cleaned the log up to its active segment (its log lines).
4. The same produce into a ``cleanup.policy=delete`` topic: what a compacted topic's produce
   costs before any cleaning (the broker checks that every record has a key).

The last stdout line is the JSON report.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench._report import (
    KAFKA_CLIENT,
    CpuMeter,
    Row,
    add_size,
    arg_parser,
    comparison_table,
    fmt,
    own_cpu,
    process_cpu,
    render_table,
    report_head,
    run_in_data_dir,
    us_per,
)
from bench._util import MB, progress
from bench._workload import Throughput, create_topics, produce

DEFAULT_RECORDS = 1_000_000
QUICK_RECORDS = 100_000
TOPIC = "compacted"
# "Cleaned log compacted-0 (dirty section = [0, 1200)): 5 segments into 1, ... 9600 -> 800
# records, in 0.31 s": the end of the section, the records read, the seconds.
_CLEANED = re.compile(r"Cleaned log \S+ \(dirty section = \[\d+, (\d+)\)\).*?, (\d+) -> \d+ "
                      r"records, in ([\d.]+) s")  # fmt: skip
CATCH_UP_TIMEOUT_S = 600.0


@dataclass
class ProduceRun:
    """One produce into a fresh broker: throughput, CPU seconds, and with the cleaner on,
    how long after the produce the log was clean up to its active segment."""

    throughput: Throughput
    cpu: dict[str, float]
    catch_up_s: float | None = None
    cleanings: int = 0
    records_cleaned: int = 0
    cleaning_s: float = 0.0
    log_bytes: int = 0


def run_broker(data: Path, args: Any, cleaner: bool, policy: str = "compact") -> ProduceRun:
    """Produce the workload into a fresh broker with its cleaner on or off; with it on, wait
    until the cleaner has caught up."""
    from seaway.broker import BrokerProcess

    config = {"log.cleaner.enable": str(cleaner).lower(), "log.cleaner.backoff.ms": "100"}
    topic_config = {
        "cleanup.policy": policy,
        "segment.bytes": str(args.segment_mb << 20),
        "min.cleanable.dirty.ratio": "0.01",  # every closed segment is cleaned
    }
    directory = data / f"{TOPIC}-0"
    with BrokerProcess(data, config=config) as broker:
        create_topics(broker.bootstrap_servers, [TOPIC], 1, config=topic_config)
        progress(f"{policy}, cleaner {'on' if cleaner else 'off'}: producing {args.records:,}")
        with CpuMeter(client=own_cpu, broker=process_cpu(broker.pid)) as meter:
            result = produce(broker.bootstrap_servers, [(TOPIC, 0)], args.records,
                             args.value_size, keys=args.keys)  # fmt: skip
        progress(f"  {result.records_per_s:,.0f} records/s, {result.mb_per_s:,.1f} MB/s")
        run = ProduceRun(result, dict(meter.used))
        if cleaner:
            run.catch_up_s = _catch_up(broker.log_file, directory)
            cleanings = [(int(n), float(s)) for _, n, s in _cleanings(broker.log_file)]
            run.cleanings = len(cleanings)
            run.records_cleaned = sum(n for n, _ in cleanings)
            run.cleaning_s = sum(s for _, s in cleanings)
    run.log_bytes = sum(p.stat().st_size for p in directory.glob("*.log"))
    return run


def _cleanings(log_file: Path) -> list[tuple[str, str, str]]:
    return _CLEANED.findall(log_file.read_text(errors="replace"))


def _catch_up(log_file: Path, directory: Path) -> float:
    """Seconds until a cleaning reaches the active segment (the produce has ended)."""
    started = time.monotonic()
    active = max(int(p.stem) for p in directory.glob("*.log"))
    while not any(int(end) >= active for end, _, _ in _cleanings(log_file)):
        if time.monotonic() - started > CATCH_UP_TIMEOUT_S:
            raise TimeoutError(f"the cleaner did not catch up in {CATCH_UP_TIMEOUT_S:.0f} s")
        time.sleep(0.1)
    seconds = time.monotonic() - started
    progress(f"  the cleaner caught up {seconds:.1f} s after the produce")
    return seconds


@dataclass(frozen=True)
class Pass:
    """Bytes and records one in-process pass over the closed segments moved."""

    bytes: int
    records: int
    seconds: float
    cpu_s: float

    @property
    def mb_per_s(self) -> float:
        return self.bytes / MB / self.seconds


def read_and_clean(directory: Path, segment_bytes: int) -> tuple[Pass, Pass]:
    """A sequential read of the log's closed segments, then their cleaning (discarded)."""
    from seaway.broker.log import swap
    from seaway.broker.log.cleaner import clean
    from seaway.broker.log.config import LogConfig
    from seaway.broker.log.log_cleaner import CleanerConfig, cleanable, plan
    from seaway.broker.log.partition import PartitionLog

    defaults = CleanerConfig()
    plog = PartitionLog(directory, LogConfig(compact=True, segment_bytes=segment_bytes))
    try:
        now = int(time.time() * 1000)
        section = cleanable(plog, now)
        assert section is not None, f"nothing to clean in {directory}"
        paths = [s.path for s in section.segments]
        records = section.end - section.segments[0].base_offset
        _read(paths, defaults.read_chunk)  # into the page cache, as for the cleaner
        with CpuMeter(cpu=own_cpu) as meter:
            started = time.perf_counter()
            size = _read(paths, defaults.read_chunk)
            read = Pass(size, records, time.perf_counter() - started, 0.0)
        read = Pass(read.bytes, records, read.seconds, meter.used["cpu"])
        work = plan(plog, section, TOPIC, now)
        try:
            with CpuMeter(cpu=own_cpu) as meter:
                result = clean(work, memory=defaults.map_memory, chunk=defaults.read_chunk)
        finally:
            work.close()
        for group in result.groups:
            swap.discard(directory, group.base)
        cleaned = Pass(result.bytes_read, result.records_read, result.seconds, meter.used["cpu"])
        progress(f"  read {read.mb_per_s:,.1f} MB/s, clean {cleaned.mb_per_s:,.1f} MB/s "
                 f"({result.records_read:,} -> {result.records_written:,} records)")  # fmt: skip
        return read, cleaned
    finally:
        plog.close()


def _read(paths: list[Path], chunk: int) -> int:
    size = 0
    for path in paths:
        with open(path, "rb", buffering=0) as f:
            while data := f.read(chunk):
                size += len(data)
    return size


def main() -> int:
    parser = arg_parser("compaction", __doc__ or "")
    add_size(parser, DEFAULT_RECORDS, QUICK_RECORDS, "records produced")
    parser.add_argument("--value-size", type=int, default=100, help="bytes per value")
    parser.add_argument("--keys", type=int, default=10_000, help="distinct keys")
    parser.add_argument("--segment-mb", type=int, default=8, help="segment.bytes in MiB")
    args = parser.parse_args()
    args.records = args.records or (QUICK_RECORDS if args.quick else DEFAULT_RECORDS)

    def run(root: Path) -> dict[str, Any]:
        off = run_broker(root / "cleaner-off", args, cleaner=False)
        progress("cleaner off: reading and cleaning its log in this process")
        directory = root / "cleaner-off" / f"{TOPIC}-0"
        read, cleaned = read_and_clean(directory, args.segment_mb << 20)
        on = run_broker(root / "cleaner-on", args, cleaner=True)
        plain = run_broker(root / "delete", args, cleaner=False, policy="delete")
        n = args.records
        rows = [
            Row("clean closed segments / read them", "MB/s", cleaned.mb_per_s, read.mb_per_s),
            Row("produce, cleaner on / off", "records/s",
                on.throughput.records_per_s, off.throughput.records_per_s),
            Row("broker CPU per record, cleaner on / off", "us",
                us_per(on.cpu["broker"], n), us_per(off.cpu["broker"], n)),
            Row("produce, compacted (cleaner off) / delete topic", "records/s",
                off.throughput.records_per_s, plain.throughput.records_per_s),
            Row("broker CPU per record, compacted / delete", "us",
                us_per(off.cpu["broker"], n), us_per(plain.cpu["broker"], n)),
        ]  # fmt: skip
        print(f"\n{n:,} records of {args.value_size} B over {args.keys:,} keys, "
              f"{args.segment_mb} MiB segments, {KAFKA_CLIENT}")  # fmt: skip
        print(comparison_table(rows, "measured", "reference", "ratio"))
        cpu = [
            ("sequential read", fmt(read.mb_per_s), fmt(us_per(read.cpu_s, read.records))),
            ("clean (both passes)", fmt(cleaned.mb_per_s),
             fmt(us_per(cleaned.cpu_s, cleaned.records))),
        ]  # fmt: skip
        print()
        print(render_table(("in process, closed segments", "MB/s", "CPU us/record"), cpu))
        print(f"\ncleaner on: {on.cleanings} cleanings of {on.records_cleaned:,} records "
              f"({on.cleaning_s:.1f} s); the log was clean up to its active segment "
              f"{on.catch_up_s:.1f} s after the {on.throughput.seconds:.1f} s produce; log "
              f"{on.log_bytes / MB:,.1f} MB, not cleaned {off.log_bytes / MB:,.1f} MB")  # fmt: skip
        report = report_head("compaction", records=n, value_size=args.value_size,
                             keys=args.keys, segment_mb=args.segment_mb)  # fmt: skip
        report["rows"] = [r.json("measured", "reference") for r in rows]
        report["in_process"] = {
            name: {"bytes": p.bytes, "records": p.records, "seconds": p.seconds,
                   "mb_per_s": p.mb_per_s, "cpu_us_per_record": us_per(p.cpu_s, p.records)}
            for name, p in (("read", read), ("clean", cleaned))
        }  # fmt: skip
        report["produce"] = {
            name: {"records_per_s": r.throughput.records_per_s,
                   "mb_per_s": r.throughput.mb_per_s, "seconds": r.throughput.seconds,
                   "cpu_us_per_record": {k: us_per(v, n) for k, v in r.cpu.items()},
                   "catch_up_s": r.catch_up_s, "cleanings": r.cleanings,
                   "cleaning_s": r.cleaning_s, "records_cleaned": r.records_cleaned,
                   "log_bytes": r.log_bytes}
            for name, r in (("cleaner_on", on), ("cleaner_off", off), ("delete_topic", plain))
        }  # fmt: skip
        return report

    return run_in_data_dir(args, "compaction", run)


if __name__ == "__main__":
    raise SystemExit(main())
