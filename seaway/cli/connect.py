"""``seaway connect-standalone worker.properties [connector.properties ...]`` and
``seaway connect-distributed worker.properties``, like Kafka's ``connect-*.sh`` scripts.

Both run until SIGINT/SIGTERM, then stop every connector (flushing offsets) and exit.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import Any

from seaway.config import ConfigException, load_properties
from seaway.connect.api.errors import ConnectError


def add_parser(sub: Any, name: str) -> None:
    if name == "connect-standalone":
        p = sub.add_parser(name, help="run a standalone Kafka Connect worker on Spark")
        p.add_argument("worker_properties", help="worker config (connect-standalone.properties)")
        p.add_argument("connectors", nargs="*", help="connector configs (.properties or .json)")
    else:
        p = sub.add_parser(name, help="run a distributed Kafka Connect worker on Spark")
        p.add_argument("worker_properties", help="worker config (connect-distributed.properties)")
    p.add_argument(
        "--override", action="append", default=[], metavar="KEY=VALUE", help="set a worker config"
    )
    p.set_defaults(run=run, distributed=name == "connect-distributed")


def run(args: argparse.Namespace) -> int:
    from seaway.connect.assembly import (
        distributed_worker,
        standalone_worker,
        submit_connector_files,
    )

    props: dict[str, Any] = dict(load_properties(args.worker_properties))
    for item in args.override:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--override expects KEY=VALUE, got {item!r}")
        props[key.strip()] = value
    try:
        connect = distributed_worker(props) if args.distributed else standalone_worker(props)
    except ConfigException as error:
        raise SystemExit(f"Invalid worker configuration: {error}") from None
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    try:
        # The REST API answers while Spark's JVM starts (connectors wait for it).
        connect.start(await_spark=False)
    except ConnectError as error:
        connect.stop()
        print(f"ERROR Stopping due to error: {error}", file=sys.stderr, flush=True)
        return 1
    try:
        if not args.distributed and args.connectors:
            submit_connector_files(connect.herder, args.connectors)
        print(f"Seaway Connect REST API at {connect.rest.url}", flush=True)
        print(f"Seaway Connect web console at {connect.rest.url.rstrip('/')}/ui/", flush=True)
        try:
            connect.await_spark()
        except Exception as error:
            print(f"ERROR Stopping due to error: Spark did not start: {error}", file=sys.stderr,
                  flush=True)  # fmt: skip
            return 1
        stop.wait()
    finally:
        connect.stop()
    return 0
