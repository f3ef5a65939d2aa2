"""``pip install seaway`` without the ``spark`` extra: the broker and the tools work, the
commands that need Spark say how to get it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# Runs the CLI in a child interpreter where importing pyspark fails as if it were not installed.
_WITHOUT_PYSPARK = """
import importlib.abc, sys

class NoPySpark(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "pyspark" or name.startswith("pyspark."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NoPySpark())
from seaway.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def _seaway(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_PYSPARK, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_broker_and_tools_need_no_spark() -> None:
    for command in ("broker", "schema-registry", "mirror"):
        done = _seaway(command, "--help")
        assert done.returncode == 0, done.stderr
    done = _seaway("mirror", "lag", "--help")
    assert done.returncode == 0, done.stderr


def test_a_spark_command_says_how_to_install_spark(tmp_path: Path) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_text("bootstrap.servers=127.0.0.1:1\n")
    done = _seaway("connect-standalone", str(worker))
    assert done.returncode == 1
    assert "pip install 'seaway[spark]'" in done.stderr
    assert "Traceback" not in done.stderr
