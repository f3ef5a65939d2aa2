"""Run a command with its standard error on a pseudo-terminal, as a user's shell would.

Standard output stays a pipe, so a test sees apart what a script would read and what the
terminal showed (with the escape sequences taken out).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import termios
from collections.abc import Sequence
from dataclasses import dataclass

_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Settings that would override the terminal's own size or kind (COLUMNS is set in this suite).
_TERMINAL_SETTINGS = ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE",
                      "TTY_INTERACTIVE", "TERM")  # fmt: skip


@dataclass(frozen=True)
class Run:
    """A finished command: exit code, standard output, and standard error as text."""

    code: int
    out: str
    err: str


def on_terminal(argv: Sequence[str], timeout: float = 120, columns: int = 160) -> Run:
    """Run *argv* with standard error on a pseudo-terminal *columns* wide; *err* is what the
    terminal received, escape sequences removed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in _TERMINAL_SETTINGS} | {"TERM": "xterm"}
    try:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave, env=env
        )
    finally:
        os.close(slave)
    received = bytearray()
    try:
        while True:
            try:
                chunk = os.read(master, 65536)  # EIO once the command has closed the terminal
            except OSError:
                break
            if not chunk:
                break
            received += chunk
    finally:
        os.close(master)
    out, _ = process.communicate(timeout=timeout)
    return Run(process.returncode, out.decode(), _ESCAPE.sub("", received.decode()))


def piped(argv: Sequence[str], timeout: float = 120) -> Run:
    """Run *argv* with standard output and standard error on pipes."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    return Run(done.returncode, done.stdout, done.stderr)
