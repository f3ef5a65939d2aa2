"""Real Connect worker processes for tests, and a small REST client over urllib."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from seaway.config import dump_properties

STARTUP_TIMEOUT_S = 180.0


class Rest:
    """``curl`` for tests: JSON in, ``(status, body, headers)`` out."""

    def __init__(
        self, url: str, headers: Mapping[str, str] | None = None, context: Any = None
    ) -> None:
        self.url = url.rstrip("/")
        self.headers = dict(headers or {})  # sent with every request (e.g. Authorization)
        self.context = context  # the TLS context of an https:// worker

    def call(
        self, method: str, path: str, body: Any = None, raw: bytes | None = None
    ) -> tuple[int, Any, Mapping[str, str]]:
        data = raw if raw is not None else None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        for name, value in self.headers.items():
            request.add_header(name, value)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=120, context=self.context) as response:
                payload = response.read()
                status, headers = response.status, response.headers
        except urllib.error.HTTPError as error:
            payload, status, headers = error.read(), error.code, error.headers
        try:
            parsed = json.loads(payload) if payload else None
        except ValueError:  # a text answer (e.g. 401 from basic authentication)
            parsed = payload.decode(errors="replace")
        return status, parsed, headers

    def get(self, path: str) -> tuple[int, Any]:
        status, body, _ = self.call("GET", path)
        return status, body

    def ok(self, method: str, path: str, body: Any = None) -> Any:
        status, payload, _ = self.call(method, path, body)
        assert 200 <= status < 300, f"{method} {path} -> {status} {payload}"
        return payload


class WorkerProcess:
    """``seaway connect-distributed|connect-standalone worker.properties [...]`` as a child."""

    def __init__(
        self,
        props: Mapping[str, Any],
        workdir: Path,
        *,
        distributed: bool = True,
        connector_files: list[Path] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.env = dict(os.environ if env is None else env)
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.props_file = workdir / f"worker-{time.monotonic_ns()}.properties"
        self.props_file.write_text(
            dump_properties({k: str(v) for k, v in props.items()}), encoding="utf-8"
        )
        command = "connect-distributed" if distributed else "connect-standalone"
        self.args = [sys.executable, "-m", "seaway", command, str(self.props_file)]
        self.args += [str(p) for p in connector_files or []]
        self.log = workdir / "worker.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.rest: Rest | None = None

    def start(self, *, until_listening: bool = False) -> WorkerProcess:
        """Spawn the worker; return once it reports its REST API started, or with
        *until_listening* as soon as its REST server listens (the herder still starting),
        as a user typing right after launching it."""
        env = {**self.env, "PYTHONUNBUFFERED": "1"}
        log = open(self.log, "ab")  # noqa: SIM115 - closed with the process
        self.proc = subprocess.Popen(
            self.args, stdout=subprocess.PIPE, stderr=log, env=env, start_new_session=True
        )
        url: list[str] = []
        done = threading.Event()

        def read() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                text = line.decode(errors="replace")
                if "REST API at " in text and not url:
                    url.append(text.rsplit("REST API at ", 1)[1].strip())
                    done.set()
            done.set()

        threading.Thread(target=read, daemon=True).start()
        if until_listening:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while not url and time.monotonic() < deadline and self.proc.poll() is None:
                for line in self.log.read_text(errors="replace").splitlines():
                    if "REST server listening at " in line:
                        url.append(line.split("REST server listening at ", 1)[1].split(",")[0])
                        break
                time.sleep(0.02)
        done.wait(0 if url else STARTUP_TIMEOUT_S)
        if not url:
            self.kill()
            raise AssertionError(f"worker did not start; log:\n{self.tail()}")
        self.rest = Rest(url[0])
        return self

    def tail(self, lines: int = 80) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def kill(self) -> None:
        """``kill -9`` the worker and everything it started (its Spark JVM included)."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)

    def stop(self, timeout: float = 90) -> int:
        """SIGTERM, then wait for a clean exit."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # leftovers of the process group
        except ProcessLookupError:
            pass
        return self.proc.returncode

    def __enter__(self) -> WorkerProcess:
        return self if self.proc is not None else self.start()

    def dump_threads(self) -> None:
        """Have the worker print every thread's stack into its log (``kill -USR1``)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGUSR1)
            time.sleep(0.5)

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is not None:  # pytest shows captured output of a failed test
            self.dump_threads()
            print(f"--- {self.log} (last 400 lines) ---\n{self.tail(400)}")
        self.stop()


def distributed_props(bootstrap: str, name: str, **extra: Any) -> dict[str, Any]:
    """A distributed worker's properties with internal topics unique to *name*."""
    return {
        "bootstrap.servers": bootstrap,
        "group.id": f"connect-{name}",
        "config.storage.topic": f"{name}-configs",
        "offset.storage.topic": f"{name}-offsets",
        "status.storage.topic": f"{name}-status",
        "config.storage.replication.factor": 1,
        "offset.storage.replication.factor": 1,
        "status.storage.replication.factor": 1,
        "offset.storage.partitions": 3,
        "status.storage.partitions": 1,
        "listeners": "http://127.0.0.1:0",
        "spark.master": "local[2]",
        "spark.trigger.interval.ms": 200,
        "offset.flush.interval.ms": 1000,
        **extra,
    }


def scrape(rest: Rest) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """``GET /metrics`` read with prometheus_client's own parser: one value per sample name
    and label set."""
    from prometheus_client.parser import text_string_to_metric_families

    request = urllib.request.Request(rest.url + "/metrics", headers={"Accept": "text/plain"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def sample(
    metrics: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float | None:
    """The value of sample *name* with exactly *labels*, or None."""
    return metrics.get((name, frozenset(labels.items())))


def wait_for(what: str, check: Callable[[], Any], timeout: float = 120.0) -> Any:
    """Poll *check* until it returns something truthy."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.25)
    raise AssertionError(f"timed out waiting for {what} (last: {last!r})")


def line_count(path: Path) -> int:
    try:
        with open(path, "rb") as f:
            return sum(1 for _ in f)
    except FileNotFoundError:
        return 0
