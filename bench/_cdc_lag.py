"""The CDC benchmark's lag probe, a process of its own (so it shares no GIL with the worker
under test): it commits the workload's transactions into MariaDB at a steady rate, consumes
the topic a CDC pipeline writes them to, and reports each record's lag: the time it was
received minus the time its transaction's COMMIT returned (one clock, this process's).

``python -m bench._cdc_lag --port ... --database ... --bootstrap ... --topic ...``: a
warm-up transaction (0) first, waited for, so the pipeline is streaming; then ``start`` on
stdout, ``--seconds`` of transactions 1, 2, ... at ``--rate`` changes/s, ``end``, and once
their records are in (or ``--drain-timeout`` passed) a JSON line with the lag percentiles.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import pymysql
from confluent_kafka import Consumer, TopicPartition

from bench._cdc_workload import CHANGES_PER_TX, records_of, transaction_of, write_transaction

#: ``"op":"d"`` in a value: a delete (its tombstone has no value at all).
_DELETE = b'"op":"d"'


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench._cdc_lag")
    add = parser.add_argument
    add("--port", type=int, required=True, help="MariaDB's port on 127.0.0.1 (user root)")
    add("--database", required=True, help="holds the empty customers table")
    add("--bootstrap", required=True)
    add("--topic", required=True)
    add("--rate", type=float, default=5000.0, help="changes per second")
    add("--seconds", type=float, default=60.0, help="how long to write at --rate")
    add("--warm-up-timeout", type=float, default=300.0)
    add("--drain-timeout", type=float, default=120.0)
    return parser.parse_args(argv)


def say(line: str) -> None:
    print(line, flush=True)


class Writer(threading.Thread):
    """Commits transactions 1, 2, ... on a fixed schedule; ``commits[k]`` is when
    transaction *k*'s COMMIT returned."""

    def __init__(self, connection: Any, rate: float, seconds: float) -> None:
        super().__init__(daemon=True)
        self.connection = connection
        self.interval = CHANGES_PER_TX / rate
        self.count = max(1, int(seconds / self.interval))
        self.commits: dict[int, float] = {}
        self.seconds = 0.0
        self.behind_s = 0.0  # the furthest a commit started after its schedule

    def run(self) -> None:
        started = time.perf_counter()
        for k in range(1, self.count + 1):
            due = started + (k - 1) * self.interval
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            else:
                self.behind_s = max(self.behind_s, -wait)
            self.commits[k] = write_transaction(self.connection, k)
        self.seconds = time.perf_counter() - started


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of *sorted_values*."""
    index = min(len(sorted_values) - 1, max(0, int(fraction * len(sorted_values) + 0.5) - 1))
    return sorted_values[index]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    connection = pymysql.connect(host="127.0.0.1", port=args.port, user="root",
                                 database=args.database, autocommit=True)  # fmt: skip
    consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": f"lag-{args.topic}",
                         "enable.auto.commit": False, "fetch.wait.max.ms": 20,
                         "log_level": 3})  # fmt: skip
    topic = TopicPartition(args.topic, 0)
    _, end = consumer.get_watermark_offsets(topic, timeout=30, cached=False)
    consumer.assign([TopicPartition(args.topic, 0, end)])
    writer = Writer(connection, args.rate, args.seconds)
    expected = records_of(writer.count)
    lags: list[float] = []
    early: list[tuple[int, float]] = []  # received before the writer saw its COMMIT return
    warm = 0
    write_transaction(connection, 0)
    deadline = time.monotonic() + args.warm_up_timeout
    ended: float | None = None
    while len(lags) + len(early) < expected:
        # what is there now, else the first to arrive: consume(n, t) would wait up to t for n
        messages = consumer.consume(2000, 0) or consumer.consume(1, 0.05)
        received = time.time()
        for message in messages:
            if message.error() is not None:
                continue
            value = message.value()
            delete = value is None or _DELETE in value
            key_id = json.loads(message.key() or b"null")["payload"]["id"]
            k = transaction_of(key_id, delete)
            if k < 0:  # a sentinel of the connector's start
                continue
            if k == 0:
                warm += 1
                if warm == records_of(1):
                    say("start")
                    writer.start()
                    deadline = float("inf")
            elif k in writer.commits:
                lags.append(received - writer.commits[k])
            else:
                early.append((k, received))
        if ended is None and writer.ident is not None and not writer.is_alive():
            ended = time.monotonic()
            deadline = ended + args.drain_timeout
            say("end")
        if time.monotonic() > deadline:
            break
    if writer.ident is None:
        say("end")
        say(json.dumps({"error": f"the warm-up's records did not arrive ({warm})"}))
        return 1
    writer.join()
    if ended is None:
        say("end")
    lags += [received - writer.commits[k] for k, received in early]
    consumer.close()
    connection.close()
    lags.sort()
    ms = [lag * 1000 for lag in lags]
    report = {
        "records": len(lags), "expected": expected, "transactions": writer.count,
        "changes_per_s": round(writer.count * CHANGES_PER_TX / writer.seconds)
        if writer.seconds else None,
        "writer_behind_ms": round(writer.behind_s * 1000, 1),
        "p50_ms": round(percentile(ms, 0.5), 1) if ms else None,
        "p99_ms": round(percentile(ms, 0.99), 1) if ms else None,
        "max_ms": round(ms[-1], 1) if ms else None,
        "mean_ms": round(sum(ms) / len(ms), 1) if ms else None,
    }  # fmt: skip
    say(json.dumps(report))
    return 0 if len(lags) == expected else 1


if __name__ == "__main__":
    sys.exit(main())
