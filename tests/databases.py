"""Real MariaDB and PostgreSQL servers for the tests and benchmarks, from Debian's packages.

Each server runs from a fresh data directory in a temporary folder, on a free port of
127.0.0.1, and is stopped (and its folder removed) on exit. ``make test`` installs the
packages where they are missing (``scripts/install-databases.sh``); when a binary still
cannot be found, starting a server fails with the command that installs it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["MariaDbServer", "PostgresServer"]

_INSTALL = "run scripts/install-databases.sh (make test does), or apt-get install {}"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _binary(names: list[str], package: str) -> str:
    for pattern in names:
        found = (
            sorted(str(p) for p in Path("/").glob(pattern.lstrip("/")))
            if "*" in pattern
            else [shutil.which(pattern) or ""]
        )
        for path in reversed(found):
            if path and os.access(path, os.X_OK):
                return path
    raise RuntimeError(f"{names[0]} not found: {_INSTALL.format(package)}")


def _wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path, what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not listen on {port} within 60 s:\n{log.read_text()}")


class _Server:
    """A database server process in a temporary folder (a context manager)."""

    process: subprocess.Popen[bytes] | None = None

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix=f"seaway-{type(self).__name__.lower()}-"))
        self.port = _free_port()

    def __enter__(self) -> Any:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        raise NotImplementedError

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        shutil.rmtree(self.folder, ignore_errors=True)


class MariaDbServer(_Server):
    """``mariadbd`` with a ``root`` user without a password (as the seed's session has it)
    and the server's clock in UTC. With *binlog*, the binary log is on as change data capture
    needs it (row format, full row images and row metadata, a server id); else it is off."""

    def __init__(self, binlog: bool = False) -> None:
        super().__init__()
        self.binlog = binlog

    def _binlog_options(self) -> list[str]:
        if not self.binlog:
            return ["--skip-log-bin"]
        return ["--log-bin=mariadb-bin", "--server-id=1",
                "--binlog-format=ROW", "--binlog-row-image=FULL",
                "--binlog-row-metadata=FULL"]  # fmt: skip

    def start(self) -> None:
        install = _binary(["mariadb-install-db", "mysql_install_db"], "mariadb-server")
        server = _binary(["mariadbd", "/usr/sbin/mariadbd", "/usr/sbin/mysqld"], "mariadb-server")
        data = self.folder / "data"
        common = ["--no-defaults", f"--datadir={data}"]
        if os.geteuid() == 0:
            common.append("--user=root")
        subprocess.run(
            [install, *common, "--auth-root-authentication-method=normal", "--skip-test-db"],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        log = self.folder / "server.log"
        self.process = subprocess.Popen(
            [server, *common, f"--port={self.port}", "--bind-address=127.0.0.1",
             f"--socket={self.folder / 'mysqld.sock'}", f"--pid-file={self.folder / 'pid'}",
             f"--log-error={log}", "--default-time-zone=+00:00", *self._binlog_options(),
             "--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=2"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        )  # fmt: skip
        _wait_for_port(self.port, self.process, log, "mariadbd")

    def url(self, database: str, **params: str) -> str:
        """A ``jdbc:mysql://`` URL for *database*, with ``?key=value`` parameters."""
        query = "&".join(f"{k}={v}" for k, v in {"user": "root", **params}.items())
        return f"jdbc:mysql://127.0.0.1:{self.port}/{database}?{query}"

    def connect(self, database: str | None = None) -> Any:
        """A PyMySQL connection as root, autocommit on."""
        import pymysql

        return pymysql.connect(
            host="127.0.0.1", port=self.port, user="root", database=database, autocommit=True
        )

    def create_database(self, name: str) -> None:
        with self.connect() as connection, connection.cursor() as cursor:
            cursor.execute(f"CREATE DATABASE `{name}`")


class PostgresServer(_Server):
    """``postgres`` with a ``postgres`` superuser without a password (trust on loopback) and
    the server's clock in UTC. Run as the ``postgres`` user when started by root (``setpriv``
    execs the server, so signals reach it). With *logical*, ``wal_level=logical`` and room for
    replication slots, as change data capture needs."""

    def __init__(self, logical: bool = False) -> None:
        super().__init__()
        self.logical = logical

    def start(self) -> None:
        initdb = _binary(["initdb", "/usr/lib/postgresql/*/bin/initdb"], "postgresql")
        server = _binary(["postgres", "/usr/lib/postgresql/*/bin/postgres"], "postgresql")
        data = self.folder / "data"
        as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
            as_user = ["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups"]
        subprocess.run(
            [*as_user, initdb, "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
             "--no-sync"],
            check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        log = self.folder / "server.log"
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                [*as_user, server, "-D", str(data), "-p", str(self.port), "-h", "127.0.0.1",
                 "-k", str(self.folder), "-c", "fsync=off", "-c", "timezone=UTC",
                 "-c", "synchronous_commit=off", *self._logical_settings()],
                stdout=out, stderr=subprocess.STDOUT,
            )  # fmt: skip
        _wait_for_port(self.port, self.process, log, "postgres")

    def _logical_settings(self) -> list[str]:
        if not self.logical:
            return []
        return ["-c", "wal_level=logical", "-c", "max_replication_slots=10",
                "-c", "max_wal_senders=10"]  # fmt: skip

    def url(self, database: str, **params: str) -> str:
        """A ``jdbc:postgresql://`` URL for *database*."""
        query = "&".join(f"{k}={v}" for k, v in {"user": "postgres", **params}.items())
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{database}?{query}"

    def connect(self, database: str = "postgres") -> Any:
        """A psycopg connection as postgres, autocommit on."""
        import psycopg

        return psycopg.connect(
            host="127.0.0.1", port=self.port, user="postgres", dbname=database, autocommit=True
        )

    def create_database(self, name: str) -> None:
        with self.connect() as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
