"""``seaway schema-registry [schema-registry.properties]``.

A schema registry with Confluent's REST API (Avro schemas, compatibility levels), keeping
its schemas in the ``_schemas`` topic of the Kafka cluster ``kafkastore.bootstrap.servers``
names. It serves until SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path
from typing import Any


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="run a schema registry (Confluent's REST API) on Kafka")
    p.add_argument("config", type=Path, nargs="?", help="schema-registry.properties")
    p.add_argument("--bootstrap-server", help="the Kafka cluster (kafkastore.bootstrap.servers)")
    p.add_argument("--listeners", help="where to listen (default http://0.0.0.0:8081)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from seaway.config import load_properties
    from seaway.registry.server import RegistryServer

    props: dict[str, str] = dict(load_properties(args.config)) if args.config else {}
    if args.bootstrap_server:
        props["kafkastore.bootstrap.servers"] = args.bootstrap_server
    if args.listeners:
        props["listeners"] = args.listeners
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    with RegistryServer(props) as server:
        print(f"Schema registry at {server.url}", flush=True)
        stop.wait()
    return 0
