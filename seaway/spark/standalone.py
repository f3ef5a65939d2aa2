"""A Spark standalone cluster on this machine, from the pyspark wheel alone.

The pyspark wheel ships Spark's jars and its ``spark-class`` launcher, which is all a
standalone master and its workers need: no Spark download. The tests, the benchmarks and
``seaway spark-cluster`` (to try Seaway on a real cluster, docs/spark.md) start one with
:class:`StandaloneCluster`; the processes are Spark's own ``Master`` and ``Worker``, each
in its own process group (so ``kill_worker`` takes its executors with it, as a lost host
would).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

import pyspark

__all__ = ["SPARK_HOME", "StandaloneCluster"]

SPARK_HOME = Path(pyspark.__file__).parent
"""Spark's jars and launchers, as the pyspark wheel installs them."""


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class StandaloneCluster:
    """``spark://HOST:PORT``: a master and *workers* workers of *cores* cores each, whose
    logs and work directories live under *root*."""

    def __init__(
        self,
        root: Path,
        *,
        workers: int = 2,
        cores: int = 1,
        memory: str = "1g",
        host: str = "127.0.0.1",
        port: int = 0,
        ui_port: int = 0,
    ) -> None:
        self.root = root
        self.host = host
        self.port = port or _free_port(host)
        self.ui_port = ui_port or _free_port(host)
        self.cores = cores
        self.memory = memory
        self.master: subprocess.Popen[bytes] | None = None
        self.workers: list[subprocess.Popen[bytes] | None] = [None] * workers
        self._logs: list[IO[bytes]] = []

    @property
    def url(self) -> str:
        """The master URL executors and drivers connect to."""
        return f"spark://{self.host}:{self.port}"

    @property
    def ui_url(self) -> str:
        return f"http://{self.host}:{self.ui_port}"

    def _spawn(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        env = {**os.environ, "SPARK_HOME": str(SPARK_HOME), "SPARK_LOCAL_IP": self.host}
        log = (self.root / f"{name}.log").open("ab")
        self._logs.append(log)
        return subprocess.Popen(
            [str(SPARK_HOME / "bin" / "spark-class"), *args],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start(self) -> StandaloneCluster:
        """Start the master and every worker; return once all workers registered."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.master = self._spawn(
            "master",
            "org.apache.spark.deploy.master.Master",
            "--host", self.host, "--port", str(self.port), "--webui-port", str(self.ui_port),
        )  # fmt: skip
        for index in range(len(self.workers)):
            self.start_worker(index, wait=False)
        self.wait_for_workers(len(self.workers))
        return self

    def start_worker(self, index: int, *, wait: bool = True) -> None:
        """(Re)start worker *index*."""
        work = self.root / f"worker-{index}"
        work.mkdir(parents=True, exist_ok=True)
        self.workers[index] = self._spawn(
            f"worker-{index}",
            "org.apache.spark.deploy.worker.Worker",
            "--host", self.host, "--cores", str(self.cores), "--memory", self.memory,
            "--webui-port", "0", "--work-dir", str(work), self.url,
        )  # fmt: skip
        if wait:
            self.wait_for_workers(sum(1 for w in self.workers if w is not None))

    def kill_worker(self, index: int) -> None:
        """``kill -9`` worker *index* and the executors it launched."""
        worker = self.workers[index]
        if worker is None:
            raise ValueError(f"worker {index} is not running")
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(30)
        self.workers[index] = None

    def state(self) -> dict[str, Any]:
        """The master's view (its web UI's ``/json``): workers, applications."""
        with urllib.request.urlopen(f"{self.ui_url}/json/", timeout=5) as response:
            return dict(json.loads(response.read()))

    def wait_for_workers(self, count: int, timeout: float = 120) -> None:
        """Wait until *count* workers are ALIVE."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                alive = [w for w in self.state()["workers"] if w["state"] == "ALIVE"]
                if len(alive) >= count:
                    return
            except (OSError, ValueError):  # not listening yet, or its UI not ready: HTML
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{count} Spark workers did not register with {self.url} in {timeout:.0f} "
                    f"s (logs in {self.root})"
                )
            time.sleep(0.3)

    def stop(self) -> None:
        """Stop the workers (and their executors) and the master."""
        processes = [p for p in [*self.workers, self.master] if p is not None]
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(30)
        for log in self._logs:
            log.close()

    def __enter__(self) -> StandaloneCluster:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()
