"""A Connect worker whose Kafka cluster froze (issue 29, item 7).

The broker runs as a process; a FileStream source copies a growing file into a topic and a
FileStream sink copies the topic into another file. The broker is frozen (SIGSTOP) for a
while at a random point of the connectors' cycle; once it answers again both connectors
must be RUNNING again and every line must reach the sink's file by itself. A freeze longer
than the workers' session stops their connectors until the worker is back in its group, as
in Kafka Connect.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from pathlib import Path

import pytest

from seaway.broker import BrokerProcess
from tests.connect.workers import WorkerProcess, distributed_props, line_count, wait_for

pytestmark = pytest.mark.slow

FREEZE_S = 8.0
LINES_PER_S = 200


def _append_lines(path: Path, stop: threading.Event, written: list[int]) -> None:
    with path.open("a", encoding="utf-8") as out:
        while not stop.is_set():
            start = written[0]
            out.write("".join(f"line {i}\n" for i in range(start, start + LINES_PER_S // 10)))
            out.flush()
            written[0] = start + LINES_PER_S // 10
            time.sleep(0.1)


def test_connectors_resume_by_themselves_after_the_cluster_froze(tmp_path: Path) -> None:
    seed = int(os.environ.get("SEAWAY_FREEZE_SEED", random.randrange(1 << 30)))
    print(f"SEAWAY_FREEZE_SEED={seed}")
    topic = f"frozen-{uuid.uuid4().hex[:6]}"
    source, sink = tmp_path / "in.txt", tmp_path / "out.txt"
    source.touch()
    with BrokerProcess(tmp_path / "kafka", config={"group.initial.rebalance.delay.ms": 200}) as k:
        # A worker dropped from its group gets its connectors back at once, not after
        # Kafka's scheduled.rebalance.max.delay.ms (5 min) for a departed member.
        props = distributed_props(k.bootstrap_servers, topic,
                                  **{"scheduled.rebalance.max.delay.ms": 0})  # fmt: skip
        with WorkerProcess(props, tmp_path / "worker") as worker:
            rest = worker.rest
            assert rest is not None
            for name, config in (
                ("lines-in", {"connector.class": "FileStreamSource", "file": str(source),
                              "topic": topic}),
                ("lines-out", {"connector.class": "FileStreamSink", "file": str(sink),
                               "topics": topic}),
            ):  # fmt: skip
                rest.ok("POST", "/connectors", {"name": name, "config": config})
            stop, written = threading.Event(), [0]
            writer = threading.Thread(target=_append_lines, args=(source, stop, written))
            writer.start()
            try:
                wait_for("lines in the sink's file", lambda: line_count(sink) > 200)
                time.sleep(random.Random(seed).uniform(0.0, 2.0))  # any point of the cycle
                os.kill(k.pid, signal.SIGSTOP)
                try:
                    time.sleep(FREEZE_S)
                finally:
                    os.kill(k.pid, signal.SIGCONT)
                time.sleep(2.0)  # lines written after the thaw too
            finally:
                stop.set()
                writer.join(10)
            total = written[0]
            wait_for(
                f"all {total} lines in the sink's file",
                lambda: len(set(sink.read_text(encoding="utf-8").splitlines())) >= total,
                timeout=180,
            )

            def running(name: str) -> bool:
                code, status = rest.get(f"/connectors/{name}/status")
                if code != 200 or not status.get("tasks"):
                    return False
                states = [status["connector"]["state"]] + [t["state"] for t in status["tasks"]]
                return all(state == "RUNNING" for state in states)

            # A worker cut off from its coordinator for a session stops its connectors (as
            # Kafka's does); once back in the group it runs them again.
            wait_for("both connectors running again",
                     lambda: running("lines-in") and running("lines-out"), timeout=60)  # fmt: skip
    lines = sink.read_text(encoding="utf-8").splitlines()
    assert set(lines) == {f"line {i}" for i in range(total)}  # at least once: nothing lost
