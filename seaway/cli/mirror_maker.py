"""``seaway mirror-maker mm2.properties [--clusters B ...]``, like Kafka's
``connect-mirror-maker.sh``: runs every enabled replication flow of the file (those into the
``--clusters`` targets only, when given) until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

from seaway.config import ConfigException


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="run MirrorMaker 2 replication flows on Spark")
    p.add_argument("config", help="an mm2.properties file")
    p.add_argument(
        "--clusters", nargs="+", metavar="ALIAS", help="only the flows into these target clusters"
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from seaway.mirror.config import MirrorMakerConfig
    from seaway.mirror.driver import MirrorMaker

    try:
        maker = MirrorMaker(MirrorMakerConfig.from_file(args.config), args.clusters)
    except (ConfigException, OSError) as error:
        print(f"ERROR {args.config}: {error}", file=sys.stderr, flush=True)
        return 1

    def on_signal(*_: Any) -> None:
        # Only ask: the handler runs on the main thread between two bytecodes, maybe in the
        # middle of a Py4J call of a driver job; stopping Spark from there can deadlock.
        # run() returns at once and the finally block below stops everything.
        maker.request_stop()

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, on_signal)
    try:
        maker.start()
        flows = ", ".join(str(p) for p in maker.flows) or "none"
        print(f"Seaway MirrorMaker running flows: {flows}", flush=True)
        assert maker.metrics_server is not None  # started by maker.start()
        print(f"Seaway MirrorMaker web console at {maker.metrics_server.url}/ui/", flush=True)
        maker.run()
    except ConfigException as error:  # e.g. a cluster that does not answer
        print(f"ERROR {args.config}: {error}", file=sys.stderr, flush=True)
        return 1
    finally:
        maker.stop()
    return 0
