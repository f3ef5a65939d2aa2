"""Three distributed workers in one group (Kafka's ConnectWorkerIntegrationTest and
RebalanceSourceConnectorsIntegrationTest, with real processes).

Six connectors (three exactly-once FileStream sources fed while the test runs, three
FileStream sinks copying their topics) are created through followers, which forward to the
leader. They spread two per worker and never run on two workers at once. A follower is
killed with ``kill -9``: its connectors run on the others once
``scheduled.rebalance.max.delay.ms`` has passed. Then every worker is restarted in turn.
Through all of it each line reaches its topic exactly once (read_committed) and every line
reaches its sink's copy.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.connect.test_worker_recovery import _create_topic, _every_payload
from tests.connect.workers import WorkerProcess, wait_for
from tests.embedded import EmbeddedConnectCluster
from tests.soak import soak

pytestmark = pytest.mark.slow

SOURCES = 3
LINES = soak(6_000)
DELAY_MS = 5_000


class Feeder(threading.Thread):
    """Appends lines to the source files in small steps, as a live log grows."""

    def __init__(self, files: list[Path]) -> None:
        super().__init__(daemon=True)
        self.files = files
        self.written = 0
        self.done = threading.Event()

    def lines(self, index: int) -> list[str]:
        return [f"src{index} line {i:05d}" for i in range(LINES)]

    def run(self) -> None:
        step = 150
        while self.written < LINES:
            for index, path in enumerate(self.files):
                chunk = self.lines(index)[self.written : self.written + step]
                with open(path, "a", encoding="utf-8") as f:
                    f.write("".join(line + "\n" for line in chunk))
            self.written += step
            time.sleep(0.5)
        self.done.set()


def _props(delay_ms: int) -> dict[str, Any]:
    """Workers with exactly-once sources that notice a lost member within seconds."""
    return {
        "exactly.once.source.support": "enabled",
        "scheduled.rebalance.max.delay.ms": delay_ms,
        "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 1000,
        "spark.master": "local[1]",
    }


def _statuses(worker: WorkerProcess) -> dict[str, Any]:
    assert worker.rest is not None
    status, body = worker.rest.get("/connectors?expand=status")
    return body if status == 200 else {}


def _placement(worker: WorkerProcess, names: list[str]) -> dict[str, str] | None:
    """connector -> worker id, when every connector and task is RUNNING."""
    statuses = _statuses(worker)
    placement = {}
    for name in names:
        status = statuses.get(name, {}).get("status")
        if status is None or status["connector"]["state"] != "RUNNING":
            return None
        tasks = status["tasks"]
        if not tasks or any(t["state"] != "RUNNING" for t in tasks):
            return None
        if {t["worker_id"] for t in tasks} != {status["connector"]["worker_id"]}:
            return None
        placement[name] = status["connector"]["worker_id"]
    return placement


def _worker_id(worker: WorkerProcess) -> str:
    assert worker.rest is not None
    return worker.rest.url.split("://", 1)[1].rstrip("/")


def _runs(worker: WorkerProcess) -> tuple[bool, set[str]]:
    """(leader?, connectors) from the worker's last applied assignment (its log)."""
    found = re.findall(
        r"Worker \S+ \(generation \d+, (leader|leader \S+)\) runs \[(.*)\]",
        worker.log.read_text(errors="replace"),
    )
    if not found:
        return False, set()
    role, names = found[-1]
    return role == "leader", {n.strip(" '") for n in names.split(",") if n.strip()}


def test_three_workers_share_connectors_through_kill_and_rolling_restart(
    tmp_path: Path, connect_cluster: Callable[..., EmbeddedConnectCluster]
) -> None:
    cluster = connect_cluster(3, name="trio", **_props(DELAY_MS))
    _run(tmp_path, cluster.bootstrap, cluster.workers)


def _run(tmp_path: Path, bootstrap: str, workers: list[WorkerProcess]) -> None:
    files = [tmp_path / f"in{i}.txt" for i in range(SOURCES)]
    for i, path in enumerate(files):
        path.touch()
        _create_topic(bootstrap, f"trio{i}")  # one partition: the lines keep their order
    copies = [tmp_path / f"copy{i}.txt" for i in range(SOURCES)]
    wait_for("one leader", lambda: sum(_runs(w)[0] for w in workers) == 1, timeout=60)
    followers = [w for w in workers if not _runs(w)[0]]
    names = []
    for i in range(SOURCES):
        source = {"connector.class": "FileStreamSource", "file": str(files[i]), "topic": f"trio{i}"}
        sink = {"connector.class": "FileStreamSink", "file": str(copies[i]), "topics": f"trio{i}"}
        for name, config in ((f"src{i}", source), (f"sink{i}", sink)):
            # Created through a follower: it forwards to the leader, which writes the config.
            assert followers[i % 2].rest is not None
            status, body, _ = followers[i % 2].rest.call(
                "POST", "/connectors", {"name": name, "config": config}
            )
            assert status == 201, body
            names.append(name)

    # A follower answers for the leader, the rules of forwarding hold.
    assert followers[0].rest is not None
    status, body, _ = followers[0].rest.call(
        "PUT", "/connectors/src0/config?forward=false", {"connector.class": "FileStreamSource"}
    )
    assert (status, body["message"]) == (
        409,
        "Cannot complete request because of a conflicting operation (e.g. worker rebalance)",
    )
    # Internal requests must carry the session key's signature (KIP-507).
    leader = next(w for w in workers if _runs(w)[0])
    assert leader.rest is not None
    status, body, _ = leader.rest.call("POST", "/connectors/src0/tasks", [{"a": "b"}])
    assert (status, body["message"]) == (400, "Internal request missing required signature")
    status, body, _ = leader.rest.call("PUT", "/connectors/src0/fence")
    assert status == 400

    placement = wait_for("six connectors running", lambda: _placement(workers[0], names))
    ids = {_worker_id(w) for w in workers}
    assert set(placement.values()) == ids
    assert sorted(list(placement.values()).count(i) for i in ids) == [2, 2, 2]
    owned = [_runs(w)[1] for w in workers]
    assert sum(len(o) for o in owned) == 6 and set().union(*owned) == set(names)

    feeder = Feeder(files)
    feeder.start()
    wait_for("records flowing", lambda: feeder.written >= LINES // 5)

    # kill -9 a follower: its connectors move once the delay has passed.
    victim = followers[1]
    dead = _worker_id(victim)
    moved = {n for n, w in placement.items() if w == dead}
    killed_at = time.monotonic()
    victim.kill()
    survivors = [w for w in workers if w is not victim]

    def elsewhere() -> dict[str, str] | None:
        now = _placement(survivors[0], names)
        return now if now and dead not in now.values() else None

    after = wait_for("the dead worker's connectors elsewhere", elsewhere, timeout=120)
    assert time.monotonic() - killed_at >= DELAY_MS / 1000
    assert {after[n] for n in moved} <= {_worker_id(w) for w in survivors}

    # Rolling restart: the killed worker comes back, then each worker is restarted in turn.
    victim.start()
    for worker in workers:
        if worker is not victim:
            worker.stop()
            worker.start()
        wait_for("all connectors running", lambda: _placement(victim, names), timeout=180)

    assert feeder.done.wait(120), "the feeder did not finish"
    for i in range(SOURCES):
        expected = feeder.lines(i)
        got = wait_for(
            f"every line of in{i}.txt in its topic",
            lambda i=i: _every_payload(bootstrap, f"trio{i}", "read_committed", LINES),
            timeout=180,
        )
        assert got == expected, f"trio{i}: {len(got)} records, exactly once expected"
        wait_for(
            f"copy{i}.txt complete",
            lambda i=i, expected=expected: set(expected) <= set(copies[i].read_text().splitlines()),
            timeout=120,
        )


def test_a_frozen_worker_is_fenced_when_its_connector_moves(
    tmp_path: Path, connect_cluster: Callable[..., EmbeddedConnectCluster]
) -> None:
    """KIP-618 zombie fencing: a worker frozen (SIGSTOP) mid-stream loses its exactly-once
    source to the other worker; when it wakes up it cannot commit what it had planned (the
    other run has committed since: the task's sequence fence), it stops its run, and every
    line is in the topic exactly once."""
    cluster = connect_cluster(2, name="zombie", **_props(1000))
    bootstrap, workers = cluster.bootstrap, cluster.workers
    source = tmp_path / "in0.txt"
    source.touch()
    _create_topic(bootstrap, "zombie0")
    feeder = Feeder([source])
    assert workers[0].rest is not None
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": "zombie0"}
    workers[0].rest.ok("POST", "/connectors", {"name": "src0", "config": config})
    owner_id = wait_for("the source running", lambda: _placement(workers[0], ["src0"]))["src0"]
    owner = next(w for w in workers if _worker_id(w) == owner_id)
    other = next(w for w in workers if w is not owner)
    feeder.start()
    wait_for("records flowing", lambda: feeder.written >= LINES // 5)
    assert owner.proc is not None
    os.killpg(owner.proc.pid, signal.SIGSTOP)
    try:
        wait_for(
            "the source on the other worker",
            lambda: (p := _placement(other, ["src0"])) and p["src0"] == _worker_id(other),
            timeout=120,
        )
        wait_for("more lines", lambda: feeder.written >= LINES // 2)
    finally:
        os.killpg(owner.proc.pid, signal.SIGCONT)
    # Awake, it learns it left the group: the leader revokes the copy it still reports
    # (and the other's: a connector reported twice is revoked from all, then placed once).
    wait_for(
        "the zombie to stop its run",
        lambda: "src0 is no longer assigned" in owner.log.read_text(errors="replace"),
        timeout=120,
    )
    assert feeder.done.wait(120), "the feeder did not finish"
    got = wait_for(
        "every line in the topic",
        lambda: _every_payload(bootstrap, "zombie0", "read_committed", LINES),
        timeout=180,
    )
    assert got == feeder.lines(0), f"{len(got)} records, exactly once expected"
    assert wait_for("the source running once", lambda: _placement(other, ["src0"]))
