"""Run a broker for tests, demos and benchmarks: in a background thread or a subprocess.

``BrokerThread`` runs the broker's event loop in a daemon thread of this process (cheap,
shared by a whole test session). ``BrokerProcess`` runs ``python -m seaway broker`` as a
child process, so it can be killed with SIGKILL and restarted on the same data directory.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from concurrent.futures import Future
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from seaway.broker.broker import Broker
from seaway.broker.loop import new_event_loop

__all__ = ["BrokerProcess", "BrokerThread"]

_READY = re.compile(r"listening on (\S+):(\d+) \((\S*)\)")


def _config(data_dir: str | Path, port: int, config: Mapping[str, Any] | None) -> dict[str, Any]:
    return {"log.dirs": str(data_dir), "port": port, **(config or {})}


class BrokerThread:
    """A broker running in a daemon thread with its own event loop."""

    def __init__(
        self, data_dir: str | Path, port: int = 0, config: Mapping[str, Any] | None = None
    ) -> None:
        self.broker = Broker(_config(data_dir, port, config))
        self._loop = new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="seaway-broker", daemon=True
        )

    @property
    def bootstrap_servers(self) -> str:
        return self.broker.bootstrap_servers

    @property
    def listeners(self) -> dict[str, str]:
        """Listener name -> ``host:port`` (bound ports once started)."""
        return self.broker.listeners

    def call(self, coro: Any) -> Any:
        """Run a coroutine on the broker's loop and wait for its result."""
        future: Future[Any] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result()

    def start(self) -> Self:
        self._thread.start()
        self.call(self.broker.start())
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            self.call(self.broker.stop())
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class BrokerProcess:
    """``seaway broker`` as a child process: ``kill()`` sends SIGKILL, ``start()`` restarts."""

    def __init__(
        self,
        data_dir: str | Path,
        port: int = 0,
        config: Mapping[str, Any] | None = None,
        *,
        log_file: str | Path | None = None,
        startup_timeout: float = 60.0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.port = port
        self.config = dict(config or {})
        self.log_file = (
            Path(log_file) if log_file else self.data_dir.with_name(self.data_dir.name + ".log")
        )
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.host = "127.0.0.1"
        self.listeners: dict[str, str] = {}  # name -> host:port, once started

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    @property
    def bootstrap_servers(self) -> str:
        return f"{self.host}:{self.port}"

    def start(self) -> Self:
        """Start (or restart, on the same port once one was picked) and wait until it listens."""
        cmd = [
            sys.executable,
            "-m",
            "seaway",
            "broker",
            "--data-dir",
            str(self.data_dir),
            "--port",
            str(self.port),
        ]
        for key, value in self.config.items():
            cmd += ["--override", f"{key}={value}"]
        self.log_file.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log_file, "ab")  # noqa: SIM115 - handed to the child
        try:
            self.process = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, stderr=log, env={**os.environ}
            )
        finally:
            log.close()
        deadline = time.monotonic() + self.startup_timeout
        assert self.process.stdout is not None
        while time.monotonic() < deadline:
            line = self.process.stdout.readline().decode(errors="replace")
            if not line:
                raise RuntimeError(
                    f"broker exited with code {self.process.wait()}; see {self.log_file}"
                )
            match = _READY.search(line)
            if match:
                self.host, self.port = match.group(1), int(match.group(2))
                self.listeners = dict(x.split("=", 1) for x in match.group(3).split(","))
                return self
        self.kill()
        raise TimeoutError(f"broker did not start in {self.startup_timeout}s; see {self.log_file}")

    def kill(self) -> None:
        """SIGKILL: no shutdown hook runs, as after a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM and wait for a clean shutdown."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
