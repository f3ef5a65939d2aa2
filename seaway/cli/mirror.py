"""``seaway mirror <command>``: operator tools for MirrorMaker 2 clusters.

The failover runbook (ch. 8):

    seaway mirror translate-offsets --bootstrap-server B:9092 --source A --group orders-app
    seaway mirror fail-over --bootstrap-server B:9092 --source A --group orders-app --execute
    seaway mirror reset-to-datetime --bootstrap-server B:9092 --group orders-app \\
        --topic A.orders --to-datetime 2026-11-22T04:03:00Z --execute
    seaway mirror prepare-failback --bootstrap-server A:9092 --old-alias A --new-alias B \\
        --topic orders --execute

Without ``--execute`` nothing changes (a dry run, as kafka-consumer-groups); ``--group`` is
repeatable. And checks:

    seaway mirror verify --source-bootstrap A:9092 --target-bootstrap B:9092 --topic orders \\
        --source-alias A
    seaway mirror lag --source-bootstrap A:9092 --target-bootstrap B:9092 --source-alias A

On a terminal, verify shows records read / total with rate and ETA, and the group tools the
groups done, on standard error (:mod:`seaway.cli.progress`); elsewhere their output is bare.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from typing import Any

USAGE_ERROR = 2  # usage and connection errors (argparse's code too)


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="MirrorMaker 2 operator tools (failover, verify, lag)")
    tools = p.add_subparsers(dest="tool", required=True, metavar="TOOL")
    for tool, help_text in (
        ("translate-offsets", "print a group's offsets translated from a source cluster"),
        ("fail-over", "commit a group's translated offsets on the target cluster"),
        ("reset-to-datetime", "commit the first offsets at or after a point in time"),
    ):
        t = tools.add_parser(tool, help=help_text)
        t.add_argument("--bootstrap-server", required=True, help="the (target) cluster")
        t.add_argument(
            "--group", action="append", required=True, help="a consumer group (repeatable)"
        )
        if tool == "reset-to-datetime":
            t.add_argument("--topic", action="append", required=True, help="topic (repeatable)")
            t.add_argument("--to-datetime", required=True, help="ISO 8601, e.g. 2026-11-22T04:03Z")
        else:
            t.add_argument("--source", required=True, help="alias of the cluster it came from")
        if tool != "translate-offsets":
            t.add_argument("--execute", action="store_true", help="commit (default: dry run)")
        t.set_defaults(run=run)
    _add_prepare_failback(tools)
    _add_verify(tools)
    _add_lag(tools)


def _print(offsets: dict[tuple[str, int], int], group: str, done: bool) -> None:
    print(f"{'TOPIC':<40} {'PARTITION':>9} {'NEW-OFFSET':>12}")
    for (topic, partition), offset in sorted(offsets.items()):
        print(f"{topic:<40} {partition:>9} {offset:>12}")
    verb = "committed for" if done else "dry run (use --execute to commit) for"
    print(f"{len(offsets)} partition(s) {verb} group {group}")


def _offsets(
    args: argparse.Namespace, group: str, when: dt.datetime | None
) -> dict[tuple[str, int], int]:
    """One group's work for the tool: its translated or reset offsets (committed on execute)."""
    from seaway.mirror.failover import (
        fail_over_group,
        reset_group_to_datetime,
        translated_offsets,
    )

    if args.tool == "translate-offsets":
        return translated_offsets(args.bootstrap_server, args.source, group)
    if args.tool == "fail-over":
        return fail_over_group(args.bootstrap_server, args.source, group, execute=args.execute)
    assert when is not None
    return reset_group_to_datetime(
        args.bootstrap_server, group, args.topic, when, execute=args.execute
    )


def run(args: argparse.Namespace) -> int:
    """Each group in turn (an error is reported and the next group goes on, as
    kafka-consumer-groups does); exit code 1 if any group failed, 2 if the cluster is
    unreachable."""
    from seaway.cli.progress import progress
    from seaway.mirror.client import MirrorClientError
    from seaway.mirror.failover import FailoverError

    when = None
    if args.tool == "reset-to-datetime":
        try:
            when = dt.datetime.fromisoformat(args.to_datetime.replace("Z", "+00:00"))
        except ValueError as error:
            print(f"ERROR {error}", file=sys.stderr)
            return 1
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.UTC)
    executed = args.tool != "translate-offsets" and args.execute
    groups: list[str] = args.group
    failed = 0
    with progress(args.tool, "groups") as bar:
        for done, group in enumerate(groups):
            bar(done, len(groups), group)
            try:
                offsets = _offsets(args, group, when)
            except (FailoverError, ValueError) as error:
                print(f"ERROR {error}", file=sys.stderr)
                failed += 1
                continue
            except MirrorClientError as error:  # the same for every group: stop
                print(f"ERROR {error}", file=sys.stderr)
                return USAGE_ERROR
            _print(offsets, group, executed)
        bar(len(groups), len(groups))
    return 1 if failed else 0


# --- verify ---------------------------------------------------------------------------------


def _add_verify(tools: Any) -> None:
    t = tools.add_parser(
        "verify",
        help="compare a topic with its remote copy: records lost, duplicated, checksums",
        description="Exit code 0: the copy matches; 1: records lost, duplicated or unexpected; "
        "2: usage or connection error.",
    )
    t.add_argument("--source-bootstrap", required=True, help="the source cluster, host:port")
    t.add_argument("--target-bootstrap", required=True, help="the target cluster, host:port")
    t.add_argument("--topic", required=True, help="the topic on the source cluster")
    remote = t.add_mutually_exclusive_group(required=True)
    remote.add_argument("--source-alias", help="the source cluster's alias (names the copy)")
    remote.add_argument("--remote-topic", help="the copy's name on the target, as is")
    t.add_argument(
        "--replication-policy",
        choices=("default", "identity"),
        default="default",
        help="how the copy is named from --source-alias (default: default, A.topic)",
    )
    t.add_argument("--separator", default=".", help="replication.policy.separator (default .)")
    t.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default 30)")
    t.set_defaults(run=run_verify)


def _remote_topic(args: argparse.Namespace) -> str:
    if args.remote_topic:
        return str(args.remote_topic)
    from seaway.mirror.policy import replication_policy

    policy = replication_policy(
        {
            "replication.policy.class": (
                "IdentityReplicationPolicy"
                if args.replication_policy == "identity"
                else "DefaultReplicationPolicy"
            ),
            "replication.policy.separator": args.separator,
            "source.cluster.alias": args.source_alias,
        }
    )
    return policy.format_remote_topic(args.source_alias, args.topic)


def run_verify(args: argparse.Namespace) -> int:
    from seaway.cli.progress import progress
    from seaway.mirror.verify import VerifyError, verify_mirror

    remote = _remote_topic(args)
    try:
        with progress("verify", "records", rate=True) as bar:
            result = verify_mirror(
                args.source_bootstrap,
                args.target_bootstrap,
                args.topic,
                remote,
                progress=bar,
                timeout=args.timeout,
            )
    except VerifyError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return USAGE_ERROR
    print(f"Source {args.topic} on {args.source_bootstrap}, target {remote} on "
          f"{args.target_bootstrap} (read_committed)")  # fmt: skip
    head = ("PARTITION", "SOURCE-RECORDS", "TARGET-RECORDS", "LOST", "DUPLICATED",
            "UNEXPECTED", "OLDER", "CHECKSUM-MATCH")  # fmt: skip
    print(f"{head[0]:>9} {head[1]:>14} {head[2]:>14} {head[3]:>8} {head[4]:>10} "
          f"{head[5]:>10} {head[6]:>8} {head[7]:>14}")  # fmt: skip
    for p in result.partitions:
        match = "yes" if p.checksum_match else "NO"
        print(f"{p.partition:>9} {p.source_records:>14} {p.target_records:>14} {p.lost:>8} "
              f"{p.duplicated:>10} {p.unexpected:>10} {p.older:>8} {match:>14}")  # fmt: skip
    verdict = "MATCH" if result.ok else "MISMATCH"
    print(
        f"{verdict}: {len(result.partitions)} partition(s), {result.total('source_records')} "
        f"source records, {result.total('target_records')} target records, "
        f"{result.total('lost')} lost, {result.total('duplicated')} duplicated, "
        f"{result.total('unexpected')} unexpected, {result.total('older')} older than the "
        "source's log start (not in the source any more; not counted as errors)"
    )
    return 0 if result.ok else 1


# --- lag ------------------------------------------------------------------------------------


def _add_lag(tools: Any) -> None:
    t = tools.add_parser(
        "lag", help="per-partition replication lag of a flow, from MM2's stored source offsets"
    )
    t.add_argument("--source-bootstrap", required=True, help="the source cluster, host:port")
    t.add_argument("--target-bootstrap", required=True, help="the target cluster, host:port")
    t.add_argument("--source-alias", required=True, help="the source cluster's alias")
    t.add_argument(
        "--topic",
        action="append",
        default=[],
        help="a source topic (repeatable; default: every topic the flow has copied)",
    )
    t.add_argument(
        "--offsets-topic", help="the flow's offsets topic (default mm2-offsets.<alias>.internal)"
    )
    t.add_argument("--timeout", type=float, default=30.0, help="seconds per request (default 30)")
    t.set_defaults(run=run_lag)


def run_lag(args: argparse.Namespace) -> int:
    from seaway.mirror.lag import LagError, replication_lag

    try:
        rows = replication_lag(
            args.source_bootstrap,
            args.target_bootstrap,
            args.source_alias,
            args.topic,
            offsets_topic_name=args.offsets_topic,
            timeout=args.timeout,
        )
    except LagError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return USAGE_ERROR
    if not rows:
        print(f"Nothing copied from {args.source_alias} yet (no stored offsets); "
              "name topics with --topic")  # fmt: skip
        return 0
    width = max(40, *(len(r.topic) for r in rows))
    print(f"{'TOPIC':<{width}} {'PARTITION':>9} {'SOURCE-END':>12} {'MIRRORED':>12} {'LAG':>12}")
    for r in rows:
        mirrored = "-" if r.mirrored is None else str(r.mirrored)
        print(f"{r.topic:<{width}} {r.partition:>9} {r.source_end:>12} {mirrored:>12} {r.lag:>12}")
    topics = len({r.topic for r in rows})
    print(f"TOTAL LAG {sum(r.lag for r in rows)} over {len(rows)} partition(s) of "
          f"{topics} topic(s) from {args.source_alias}")  # fmt: skip
    return 0


# --- prepare-failback -----------------------------------------------------------------------


def _add_prepare_failback(tools: Any) -> None:
    t = tools.add_parser(
        "prepare-failback",
        help="clean the old primary (topics, their groups) before mirroring back to it",
        description="Dry run by default. Exit code 0: done (or planned); 1: refused (active "
        "consumer groups) or failed; 2: usage or connection error.",
    )
    t.add_argument("--bootstrap-server", required=True, help="the old primary, host:port")
    t.add_argument("--old-alias", required=True, help="the old primary's cluster alias")
    t.add_argument("--new-alias", required=True, help="the new primary's cluster alias")
    t.add_argument("--topic", action="append", default=[], help="a topic to delete (repeatable)")
    t.add_argument("--include", help="a regex: delete every non-internal topic it fully matches")
    t.add_argument(
        "--replication-policy",
        choices=("default", "identity"),
        default="default",
        help="the policy of the mirror back (shapes the printed mm2.properties lines)",
    )
    t.add_argument("--execute", action="store_true", help="delete (default: dry run)")
    t.set_defaults(run=run_prepare_failback)


def run_prepare_failback(args: argparse.Namespace) -> int:
    from seaway.mirror.failover import ActionRefused, FailoverError, prepare_failback

    if not args.topic and args.include is None:
        print("ERROR give the topics to delete with --topic (repeatable) or --include REGEX",
              file=sys.stderr)  # fmt: skip
        return USAGE_ERROR
    try:
        plan = prepare_failback(
            args.bootstrap_server,
            old_alias=args.old_alias,
            new_alias=args.new_alias,
            topics=args.topic,
            include=args.include,
            policy=args.replication_policy,
            execute=args.execute,
        )
    except FailoverError as error:
        print(f"ERROR {error}", file=sys.stderr)
        return 1 if isinstance(error, ActionRefused) else USAGE_ERROR
    verb = "Deleted" if plan.executed else "Would delete (dry run; use --execute)"
    print(f"{verb} on {args.bootstrap_server}:")
    print(f"{'TOPIC':<40} {'PARTITIONS':>10} {'RECORDS':>12}")
    for topic in plan.topics:
        print(f"{topic.name:<40} {topic.partitions:>10} {topic.records:>12}")
    print(f"CONSUMER GROUPS: {', '.join(plan.groups) or '(none)'}")
    for group, others in sorted(plan.kept_groups.items()):
        print(f"kept group {group}: it also has offsets on {', '.join(others)}")
    if plan.active_groups and not plan.executed:
        print(f"--execute would refuse: active members in {', '.join(plan.active_groups)}")
    print()
    for line in plan.mirror_back:
        print(line)
    return 0
