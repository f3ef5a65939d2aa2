"""``seaway <command> ...``: the entry point dispatching to each tool's module."""

from __future__ import annotations

import argparse
import faulthandler
import io
import logging
import signal
import sys

from seaway import __version__
from seaway.cli import (
    acls,
    broker,
    configs,
    connect,
    demo,
    groups,
    mirror,
    mirror_maker,
    schema_registry,
    spark_cluster,
    topics,
)

_COMMANDS = {
    "acls": acls,
    "broker": broker,
    "configs": configs,
    "connect-standalone": connect,
    "connect-distributed": connect,
    "demo": demo,
    "groups": groups,
    "mirror": mirror,
    "mirror-maker": mirror_maker,
    "schema-registry": schema_registry,
    "spark-cluster": spark_cluster,
    "topics": topics,
}


def _dump_threads_on_sigusr1() -> None:
    """``kill -USR1 <pid>`` prints every thread's stack to stderr (the log), as jstack does
    for a JVM: what a stuck worker, broker or mirror is waiting on."""
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)
    except (AttributeError, ValueError, io.UnsupportedOperation):
        pass  # no SIGUSR1 (Windows), or main() run in-process with stderr not a file


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="seaway",
        description="Kafka Connect and MirrorMaker 2 on Spark, with an embedded Kafka broker.",
    )
    parser.add_argument("--version", action="version", version=f"seaway {__version__}")
    parser.add_argument("--log-level", default="INFO", help="Python log level (default INFO)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in _COMMANDS.items():
        module.add_parser(sub, name)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(),
        format="[%(asctime)s] %(levelname)s %(message)s (%(name)s)",
        stream=sys.stderr,
    )
    _dump_threads_on_sigusr1()
    try:
        return int(args.run(args) or 0)
    except ModuleNotFoundError as exc:
        if exc.name != "pyspark" and not (exc.name or "").startswith("pyspark."):
            raise
        print(
            f"error: seaway {args.command} runs on Apache Spark, which is not installed here: "
            "pip install 'seaway[spark]' (Java 17+ is needed too)",
            file=sys.stderr,
        )
        return 1
