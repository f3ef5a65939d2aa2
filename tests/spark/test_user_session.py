"""A user's own local-mode PySpark job after ``import seaway.spark``, started with the
virtualenv's python by its path (not activated): its Python workers run that interpreter,
not the ``python3`` on PATH (which has no Seaway)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.broker.clients import create_topic, produce

ROOT = Path(__file__).resolve().parents[2]


def test_a_local_job_of_the_venv_python_by_path_runs_its_workers_with_seaway(
    cluster_a: Any, tmp_path: Path
) -> None:
    bootstrap = cluster_a.bootstrap_servers
    create_topic(bootstrap, "user-local", partitions=2)
    produce(bootstrap, "user-local", [(b"k%d" % i, b"v%d" % i) for i in range(100)])
    venv_bin = str(Path(sys.executable).parent)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p != venv_bin)
    dropped = {"PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "PYTHONPATH", "VIRTUAL_ENV"}
    env = {**{k: v for k, v in os.environ.items() if k not in dropped}, "PATH": path}
    done = subprocess.run(
        [sys.executable, "-m", "tests.cluster.user_job", "local[2]", bootstrap, "user-local",
         str(tmp_path / "result")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    assert json.loads((tmp_path / "result").read_text())["read"] == 100
