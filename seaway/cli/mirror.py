"""``seaway mirror <command>``: the failover runbook (ch. 8) for MirrorMaker 2 clusters.

    seaway mirror translate-offsets --bootstrap-server B:9092 --source A --group orders-app
    seaway mirror fail-over --bootstrap-server B:9092 --source A --group orders-app --execute
    seaway mirror reset-to-datetime --bootstrap-server B:9092 --group orders-app \\
        --topic A.orders --to-datetime 2026-11-22T04:03:00Z --execute

Without ``--execute`` the offsets are only printed (a dry run, as kafka-consumer-groups).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from typing import Any


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="MirrorMaker 2 failover tools")
    tools = p.add_subparsers(dest="tool", required=True, metavar="TOOL")
    for tool, help_text in (
        ("translate-offsets", "print a group's offsets translated from a source cluster"),
        ("fail-over", "commit a group's translated offsets on the target cluster"),
        ("reset-to-datetime", "commit the first offsets at or after a point in time"),
    ):
        t = tools.add_parser(tool, help=help_text)
        t.add_argument("--bootstrap-server", required=True, help="the (target) cluster")
        t.add_argument("--group", required=True, help="the consumer group")
        if tool == "reset-to-datetime":
            t.add_argument("--topic", action="append", required=True, help="topic (repeatable)")
            t.add_argument("--to-datetime", required=True, help="ISO 8601, e.g. 2026-11-22T04:03Z")
        else:
            t.add_argument("--source", required=True, help="alias of the cluster it came from")
        if tool != "translate-offsets":
            t.add_argument("--execute", action="store_true", help="commit (default: dry run)")
        t.set_defaults(run=run)


def _print(offsets: dict[tuple[str, int], int], group: str, done: bool) -> None:
    print(f"{'TOPIC':<40} {'PARTITION':>9} {'NEW-OFFSET':>12}")
    for (topic, partition), offset in sorted(offsets.items()):
        print(f"{topic:<40} {partition:>9} {offset:>12}")
    verb = "committed for" if done else "dry run (use --execute to commit) for"
    print(f"{len(offsets)} partition(s) {verb} group {group}")


def run(args: argparse.Namespace) -> int:
    from seaway.mirror.failover import (
        FailoverError,
        fail_over_group,
        reset_group_to_datetime,
        translated_offsets,
    )

    try:
        if args.tool == "translate-offsets":
            offsets = translated_offsets(args.bootstrap_server, args.source, args.group)
            _print(offsets, args.group, False)
        elif args.tool == "fail-over":
            offsets = fail_over_group(
                args.bootstrap_server, args.source, args.group, execute=args.execute
            )
            _print(offsets, args.group, args.execute)
        else:
            when = dt.datetime.fromisoformat(args.to_datetime.replace("Z", "+00:00"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=dt.UTC)
            offsets = reset_group_to_datetime(
                args.bootstrap_server, args.group, args.topic, when, execute=args.execute
            )
            _print(offsets, args.group, args.execute)
    except (FailoverError, ValueError) as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 1
    return 0
