"""``seaway spark-cluster [--workers N] [--cores C] [--memory M] [--dir D]``.

Starts a Spark standalone master and workers on this machine from the pyspark wheel
(Spark's own ``Master`` and ``Worker`` via ``spark-class``), prints the master URL to use
as ``spark.master`` and the web UI, and stops them on SIGINT/SIGTERM. For trying Seaway on
a real cluster (docs/spark.md); production clusters are started with Spark's own scripts.
"""

from __future__ import annotations

import argparse
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="run a Spark standalone cluster (master + workers) here")
    p.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--cores", type=int, default=1, help="cores per worker (default 1)")
    p.add_argument("--memory", default="1g", help="memory per worker (default 1g)")
    p.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=7077, help="master port (default 7077)")
    p.add_argument("--ui-port", type=int, default=8080, help="master web UI port (default 8080)")
    p.add_argument("--dir", type=Path, help="logs and work directories (default: a temp dir)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from seaway.spark.standalone import StandaloneCluster

    root = args.dir or Path(tempfile.mkdtemp(prefix="seaway-spark-cluster-"))
    cluster = StandaloneCluster(
        root,
        workers=args.workers,
        cores=args.cores,
        memory=args.memory,
        host=args.host,
        port=args.port,
        ui_port=args.ui_port,
    )
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    with cluster:
        print(
            f"Spark standalone cluster at {cluster.url} ({args.workers} workers x "
            f"{args.cores} cores); web UI {cluster.ui_url}; logs in {root}",
            flush=True,
        )
        stop.wait()
    return 0
