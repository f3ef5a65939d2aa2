"""``seaway groups``: Kafka's ``kafka-consumer-groups.sh`` on the admin client (any Kafka).

    seaway groups --bootstrap-server localhost:9092 --list [--state [stable,empty]]
    seaway groups --bootstrap-server localhost:9092 --describe --group orders \\
        [--offsets | --members [--verbose] | --state]
    seaway groups --bootstrap-server localhost:9092 --reset-offsets --group orders \\
        --topic orders:0,1 --to-datetime 2024-05-01T04:03:00.000 --execute
    seaway groups --bootstrap-server localhost:9092 --delete-offsets --group orders --topic orders
    seaway groups --bootstrap-server localhost:9092 --delete --group orders

Output is laid out as the script lays it out: tables start with an empty line, notices
("Consumer group 'g' has no active members.") go to standard error, errors are
``Error: ...`` lines on standard output. Unlike the script (which exits 0 after an error),
the exit code is 1 after an error and 2 after a usage error.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from seaway.cli.admin_client import TIMEOUT_S, add_connection, admin, client_config
from seaway.cli.group_inputs import (
    GroupsFailure,
    Partition,
    export_csv,
    parse_datetime,
    parse_duration,
    parse_topics,
    read_plan,
)
from seaway.kafka.admin import alter_offsets, committed_offsets, group_state

log = logging.getLogger(__name__)


MISSING: Final = "-"
_SCENARIOS: Final = (
    "to-offset",
    "to-earliest",
    "to-latest",
    "to-current",
    "shift-by",
    "to-datetime",
    "by-duration",
    "from-file",
)
# confluent-kafka's state names -> Kafka's (ConsumerGroupState.toString)
_STATES: Final = {
    "PREPARING_REBALANCING": "PreparingRebalance",
    "COMPLETING_REBALANCING": "CompletingRebalance",
    "STABLE": "Stable",
    "DEAD": "Dead",
    "EMPTY": "Empty",
}
_VALID_STATES: Final = (
    "PreparingRebalance",
    "CompletingRebalance",
    "Stable",
    "Dead",
    "Empty",
    "Assigning",
    "Reconciling",
)
_REBALANCING: Final = frozenset(
    {"PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"}
)
_NO_EXECUTE: Final = (
    "WARN: No action will be performed as the --execute option is missing.In a future major "
    "release, the default behavior of this command will be to prompt the user before executing "
    "the reset rather than doing a dry run. You should add the --dry-run option explicitly if "
    "you are scripting this command and want to keep the current default behavior without "
    "prompting."
)
# OffsetDelete's errors: the script's message for each (the rest: "Encounter some unknown error")
_PARTITION_LEVEL: Final = "Encounter some partition level error, see the follow-up details:"
_DELETE_OFFSETS_ERRORS: Final[dict[int, str]] = {
    24: "'{group}' is not valid.",  # INVALID_GROUP_ID
    69: "'{group}' does not exist.",  # GROUP_ID_NOT_FOUND
    30: "Access to '{group}' is not authorized.",  # GROUP_AUTHORIZATION_FAILED
    68: "Deleting offsets of a consumer group '{group}' is forbidden if the group is not empty.",
    86: _PARTITION_LEVEL,  # GROUP_SUBSCRIBED_TO_TOPIC
    29: _PARTITION_LEVEL,  # TOPIC_AUTHORIZATION_FAILED
    3: _PARTITION_LEVEL,  # UNKNOWN_TOPIC_OR_PARTITION
}
_OFFSETS_HEADER: Final = ("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET",
                          "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID")  # fmt: skip
_GROUP_ID_NOT_FOUND: Final = 69
_UNKNOWN_TOPIC: Final = "This server does not host this topic-partition."


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(
        name,
        help="list, describe and delete consumer groups; reset and "
        "delete their offsets (kafka-consumer-groups.sh)",
    )
    add_connection(p)
    actions = p.add_mutually_exclusive_group(required=True)
    actions.add_argument("--list", action="store_true", help="list all consumer groups")
    actions.add_argument(
        "--describe",
        action="store_true",
        help="describe groups: offsets and lag (default), --members, --state",
    )
    actions.add_argument("--delete", action="store_true", help="delete groups")
    actions.add_argument(
        "--reset-offsets",
        action="store_true",
        help="reset offsets of inactive groups (a dry run without --execute)",
    )
    actions.add_argument(
        "--delete-offsets", action="store_true", help="delete offsets of a group for --topic"
    )
    groups = p.add_mutually_exclusive_group()
    groups.add_argument("--group", action="append", default=[], help="a group (repeatable)")
    groups.add_argument("--all-groups", action="store_true", help="every consumer group")
    topics = p.add_mutually_exclusive_group()
    topics.add_argument(
        "--topic",
        action="append",
        default=[],
        metavar="TOPIC[:P,P]",
        help="a topic, or some of its partitions (repeatable)",
    )
    topics.add_argument(
        "--all-topics",
        action="store_true",
        help="every topic the group has offsets for (--reset-offsets)",
    )
    views = p.add_mutually_exclusive_group()
    views.add_argument("--offsets", action="store_true", help="--describe: offsets and lag")
    views.add_argument("--members", action="store_true", help="--describe: the members")
    views.add_argument(
        "--state",
        nargs="?",
        const="",
        metavar="STATES",
        help="--describe: the group's state; --list: with states, or only "
        "groups in STATES (comma-separated)",
    )
    p.add_argument("--verbose", action="store_true", help="--members: with assignments")
    p.add_argument(
        "--timeout",
        type=int,
        default=5000,
        metavar="MS",
        help="timeout of each request (default 5000)",
    )
    _add_reset_options(p)
    p.set_defaults(run=run, usage=p.error)


def _add_reset_options(p: argparse.ArgumentParser) -> None:
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="only show new offsets (default)")
    mode.add_argument("--execute", action="store_true", help="commit the new offsets")
    p.add_argument("--export", action="store_true", help="print the new offsets as CSV")
    to = p.add_mutually_exclusive_group()
    to.add_argument("--to-offset", type=int, metavar="OFFSET", help="to this offset")
    to.add_argument("--to-earliest", action="store_true", help="to the earliest offset")
    to.add_argument("--to-latest", action="store_true", help="to the latest offset")
    to.add_argument("--to-current", action="store_true", help="to the current offset")
    to.add_argument("--shift-by", type=int, metavar="N", help="by N from the current offset")
    to.add_argument(
        "--to-datetime",
        metavar="YYYY-MM-DDTHH:mm:SS.sss",
        help="to the first offset at or after this time (UTC unless a zone is "
        "given: Z, +hh:mm, +hhmm, +hh)",
    )
    to.add_argument("--by-duration", metavar="PnDTnHnMnS", help="to this long ago")
    to.add_argument(
        "--from-file",
        metavar="CSV",
        help="to the offsets of a CSV file "
        "(topic,partition,offset or group,topic,partition,offset)",
    )


def run(args: argparse.Namespace) -> int:
    problem = _usage_problem(args)
    if problem:
        args.usage(problem)
    if args.reset_offsets and not (args.dry_run or args.execute):
        print(_NO_EXECUTE, file=sys.stderr)
    from confluent_kafka import KafkaException

    try:
        return _Groups(args).run()
    except GroupsFailure as failure:
        _print_error(str(failure))
    except KafkaException as error:
        _print_error(f"Executing consumer group command failed due to {_message(error)}")
    return 1


def _usage_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, worded as the script words it (None: nothing)."""
    has_groups = bool(args.group or args.all_groups)
    if (args.members or args.offsets or args.verbose) and not args.describe:
        return "Options [members], [offsets] and [verbose] may be used with [describe] only"
    if args.state is not None and not (args.describe or args.list):
        return "Option [state] may be used with [describe] and [list] only"
    if args.group and args.list:
        return 'Option "[group]" can\'t be used with option "[list]"'
    if args.topic and (args.list or args.describe):
        return 'Option "[topic]" can\'t be used with option "[list]" or "[describe]"'
    if (args.describe or args.delete or args.reset_offsets) and not has_groups:
        action = "describe" if args.describe else "delete" if args.delete else "reset-offsets"
        return f"Option [{action}] takes one of these options: [all-groups], [group]"
    if args.describe and args.state:
        return "Option [describe] does not take a value for [state]"
    if args.delete and args.topic:
        return "The consumer does not support topic-specific offset deletion from a consumer group."
    if args.delete_offsets and not (args.group and args.topic):
        return "Option [delete-offsets] takes the following options: [group], [topic]"
    if not args.reset_offsets:
        used = [
            f"[{s}]"
            for s in ("dry-run", "execute", "export", "all-topics", *_SCENARIOS)
            if getattr(args, s.replace("-", "_")) not in (None, False)
        ]
        return f"Option {used[0]} may be used with [reset-offsets] only" if used else None
    if _scenario(args) is None:
        scenarios = ", ".join(f"[{s}]" for s in _SCENARIOS)
        return f"Option '[reset-offsets]' requires one of the following scenarios: {scenarios}"
    if not (args.topic or args.all_topics or args.from_file):
        return "One of the reset scopes should be defined: --all-topics, --topic."
    return None


def _scenario(args: argparse.Namespace) -> str | None:
    """The reset scenario option given (one at most: argparse sees to that)."""
    given = [s for s in _SCENARIOS if getattr(args, s.replace("-", "_")) not in (None, False)]
    return given[0] if given else None


class _Groups:
    """The script's ConsumerGroupService: one admin client, one action."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.client = admin(args)
        self.timeout = args.timeout / 1000
        self.failed = False

    def run(self) -> int:
        args = self.args
        if args.list:
            self.list_groups()
        elif args.describe:
            self.describe()
        elif args.delete:
            self.delete()
        elif args.reset_offsets:
            self.reset_offsets()
        else:
            self.delete_offsets()
        return 1 if self.failed else 0

    def error(self, message: str) -> None:
        _print_error(message)
        self.failed = True

    # --- list -----------------------------------------------------------------------------

    def list_groups(self) -> None:
        listings = self._listings()
        if self.args.state is None:
            for listing in listings:
                print(listing.group_id)
            return
        wanted = self._states(self.args.state)
        rows = [(g.group_id, _state(g.state)) for g in listings]
        rows = [(group, state) for group, state in rows if not wanted or state in wanted]
        width = max([15, *(len(group) for group, _ in rows)]) + 10
        for row in [("GROUP", "STATE"), *rows]:
            print(_pad(row, (width, 20)))

    def _states(self, text: str) -> set[str]:
        """``--state stable,empty`` as Kafka's state names; a bad one is a usage error."""
        if not text:
            return set()
        known = {s.upper(): s for s in _VALID_STATES}
        states = {known.get(s.strip().upper(), "") for s in text.split(",")}
        if "" in states:
            self.args.usage(
                f"Invalid state list '{text}'. Valid states are: {', '.join(_VALID_STATES)}"
            )
        return states

    def _listings(self) -> list[Any]:
        from confluent_kafka import KafkaException

        result = self.client.list_consumer_groups(request_timeout=self.timeout).result(TIMEOUT_S)
        if result.errors:
            raise KafkaException(result.errors[0])
        return sorted(result.valid, key=lambda g: g.group_id)

    def _group_ids(self) -> list[str]:
        if self.args.all_groups:
            return [listing.group_id for listing in self._listings()]
        return list(dict.fromkeys(self.args.group))

    # --- describe -------------------------------------------------------------------------

    def describe(self) -> None:
        descriptions = self._describe(self._group_ids())
        if self.args.members:
            self._print_members(descriptions)
        elif self.args.state is not None:
            self._print_states(descriptions)
        else:
            self._print_offsets(descriptions)

    def _describe(self, groups: list[str]) -> dict[str, Any]:
        """Each group's description, by group id; None for a group the cluster has not."""
        from confluent_kafka import KafkaException

        if not groups:
            return {}
        futures = self.client.describe_consumer_groups(groups, request_timeout=self.timeout)
        out: dict[str, Any] = {}
        for group in sorted(groups):
            try:
                out[group] = futures[group].result(TIMEOUT_S)
            except KafkaException as error:
                if _code(error) != _GROUP_ID_NOT_FOUND:
                    raise
                out[group] = None
        return out

    def _should_print(self, group: str, state: str, rows: int) -> bool:
        """The script's notice for the group's state; whether it has rows to print."""
        if state == "Dead":
            self.error(f"Consumer group '{group}' does not exist.")
            return False
        if state == "Empty":
            print(f"\nConsumer group '{group}' has no active members.", file=sys.stderr)
        elif state in _REBALANCING:
            print(f"\nWarning: Consumer group '{group}' is rebalancing.", file=sys.stderr)
        return rows > 0

    def _print_offsets(self, descriptions: Mapping[str, Any]) -> None:
        for group, description in descriptions.items():
            rows = self._offset_rows(group, description) if description else []
            if not self._should_print(group, _described_state(description), len(rows)):
                continue
            widths = [max([15, *(len(str(r[i])) for r in rows)]) for i in (0, 1, 6, 7)]
            layout = (widths[0], widths[1], 10, 15, 15, 15, widths[2], widths[3], 0)
            _print_table([_pad(row, layout) for row in [_OFFSETS_HEADER, *rows]])

    def _offset_rows(self, group: str, description: Any) -> list[tuple[object, ...]]:
        """One row per partition: the members' (the busiest member first), then the
        partitions with a committed offset that no member has."""
        from confluent_kafka.admin import OffsetSpec

        committed = committed_offsets(self.client, group)
        members = sorted(
            (m for m in description.members if _assigned(m)), key=lambda m: -len(_assigned(m))
        )
        owned: list[tuple[Partition, Any]] = [(tp, m) for m in members for tp in _assigned(m)]
        assigned = {tp for tp, _ in owned}
        owned += [(tp, None) for tp in sorted(committed) if tp not in assigned]
        ends = self._log_offsets([tp for tp, _ in owned], OffsetSpec.latest())
        rows = []
        for (topic, partition), member in owned:
            offset, end = committed.get((topic, partition)), ends.get((topic, partition))
            lag = end - offset if offset is not None and end is not None else None
            who = (member.member_id, member.host, member.client_id) if member else (MISSING,) * 3
            rows.append((group, topic, partition, *map(_or_missing, (offset, end, lag)), *who))
        return rows

    def _print_members(self, descriptions: Mapping[str, Any]) -> None:
        verbose = self.args.verbose
        for group, description in descriptions.items():
            members = description.members if description else []
            state = _described_state(description)
            texts = [
                (group, m.member_id, m.group_instance_id or "", m.host, m.client_id)
                for m in members
            ]
            widths = [15, 15, 17, 15, 15]
            if self._should_print(group, state, len(texts)):  # the script's widths: only then
                widths = [max([w, *(len(t[i]) for t in texts)]) for i, w in enumerate(widths)]
            keep = [0, 1, 2, 3, 4] if any(t[2] for t in texts) else [0, 1, 3, 4]
            layout = [*(widths[i] for i in keep), 15]
            header = ("GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID")
            heading = _pad([*(header[i] for i in keep), "#PARTITIONS"], layout)
            print(f"\n{heading} {'ASSIGNMENT' if verbose else ''}")
            for text, member in zip(texts, members, strict=True):
                partitions = _assigned(member)
                row = _pad([*(text[i] for i in keep), len(partitions)], layout)
                print(f"{row} {_assignment_text(partitions) if verbose else ''}")

    def _print_states(self, descriptions: Mapping[str, Any]) -> None:
        for group, description in descriptions.items():
            if not self._should_print(group, _described_state(description), 1):
                continue
            node = description.coordinator
            coordinator = f"{node.host}:{node.port}  ({node.id_string})" if node else MISSING
            layout = (max(25, len(coordinator)), 25, 20, 15, 0)
            header = ("GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS")
            row = (
                group,
                coordinator,
                description.partition_assignor or "",
                _state(description.state),
                len(description.members),
            )
            _print_table([_pad(header, layout), _pad(row, layout)])

    # --- offsets of partitions ------------------------------------------------------------

    def _log_offsets(self, partitions: Iterable[Partition], spec: Any) -> dict[Partition, int]:
        """ListOffsets for *partitions*; a partition that failed is left out."""
        from confluent_kafka import IsolationLevel, KafkaException, TopicPartition

        request = {TopicPartition(t, p): spec for t, p in partitions}
        if not request:
            return {}
        futures = self.client.list_offsets(
            request, request_timeout=self.timeout, isolation_level=IsolationLevel.READ_UNCOMMITTED
        )
        out = {}
        for tp, future in futures.items():
            try:
                out[(tp.topic, tp.partition)] = int(future.result(TIMEOUT_S).offset)
            except KafkaException as error:
                log.debug("ListOffsets %s-%s: %s", tp.topic, tp.partition, _message(error))
        return out

    def _required_offsets(
        self, partitions: list[Partition], spec: Any, what: str
    ) -> dict[Partition, int]:
        found = self._log_offsets(partitions, spec)
        for topic, partition in partitions:
            if (topic, partition) not in found:
                self.args.usage(f"Error getting {what} of topic partition: {topic}-{partition}")
        return {tp: found[tp] for tp in partitions}

    def _in_range(self, requested: Mapping[Partition, int]) -> dict[Partition, int]:
        """*requested*, each offset brought within its partition's log (the script's
        checkOffsetsRange, with its warnings)."""
        from confluent_kafka.admin import OffsetSpec

        starts = self._log_offsets(requested, OffsetSpec.earliest())
        ends = self._log_offsets(requested, OffsetSpec.latest())
        out = {}
        for (topic, partition), offset in sorted(requested.items()):
            end, start = ends.get((topic, partition)), starts.get((topic, partition))
            if end is not None and offset > end:
                _warn_moved(offset, "higher than latest", topic, partition, end)
                offset = end
            elif start is not None and offset < start:
                _warn_moved(offset, "lower than earliest", topic, partition, start)
                offset = start
            out[(topic, partition)] = offset
        return out

    def _at_time(self, partitions: list[Partition], millis: int) -> dict[Partition, int]:
        """The first offset at or after *millis*; the end offset where no record is."""
        from confluent_kafka.admin import OffsetSpec

        found = self._required_offsets(
            partitions, OffsetSpec.for_timestamp(millis), "offset by timestamp"
        )
        empty = [tp for tp in partitions if found[tp] < 0]
        for topic, partition in empty:
            print(
                f"\nWarn: Partition {partition} from topic {topic} is empty. Falling back to "
                "latest known offset."
            )
        return {**found, **self._required_offsets(empty, OffsetSpec.latest(), "ending offset")}

    def _topic_partitions(self, topics: Iterable[str]) -> tuple[list[Partition], list[str]]:
        """``--topic`` values as partitions (a whole topic: every partition it has) and the
        topics the cluster does not have."""
        listed, whole = parse_topics(topics, self.args.usage)
        metadata = self.client.list_topics(timeout=TIMEOUT_S).topics if whole else {}
        missing = [t for t in whole if t not in metadata or metadata[t].error is not None]
        for topic in whole:
            if topic not in missing:
                listed += [(topic, p) for p in sorted(metadata[topic].partitions)]
        return list(dict.fromkeys(listed)), missing

    # --- reset ----------------------------------------------------------------------------

    def reset_offsets(self) -> None:
        plan_file = read_plan(self.args.from_file, self.args.group) if self.args.from_file else {}
        plan: dict[str, dict[Partition, int]] = {}
        for group in self._group_ids():
            state = self._group_state(group)
            if state not in ("Empty", "Dead"):
                self.error(
                    f"Assignments can only be reset if the group '{group}' is inactive, "
                    f"but the current state is {state}."
                )
                plan[group] = {}
                continue
            offsets = self._new_offsets(group, plan_file)
            if self.args.execute and offsets:
                alter_offsets(self.client, group, offsets, TIMEOUT_S)
            plan[group] = offsets
        if self.args.export:
            print(export_csv(plan, with_group=len(self.args.group) != 1))
            return
        header = [_pad(("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"), (30, 30, 10, 15))]
        rows = [
            _pad((group, t, p, offset), (30, 30, 10, 15))
            for group, offsets in plan.items()
            for (t, p), offset in sorted(offsets.items())
        ]
        _print_table(header + rows if plan else [])

    def _group_state(self, group: str) -> str:
        from confluent_kafka import KafkaException

        try:
            state, _ = group_state(self.client, group, TIMEOUT_S)
        except KafkaException as error:
            if _code(error) != _GROUP_ID_NOT_FOUND:
                raise
            return "Dead"
        return _STATES.get(state, "Unknown")

    def _new_offsets(
        self, group: str, plan_file: Mapping[str, dict[Partition, int]]
    ) -> dict[Partition, int]:
        """The offsets the reset scenario gives the group."""
        from confluent_kafka.admin import OffsetSpec

        args = self.args
        if args.from_file:
            if group not in plan_file:
                self.error(f"No reset plan for group {group} found")
                return {}
            return self._in_range(plan_file[group])
        partitions = self._reset_scope(group)
        if args.to_offset is not None:
            return self._in_range(dict.fromkeys(partitions, args.to_offset))
        if args.to_earliest:
            return self._required_offsets(partitions, OffsetSpec.earliest(), "starting offset")
        if args.to_latest:
            return self._required_offsets(partitions, OffsetSpec.latest(), "ending offset")
        if args.to_datetime is not None:
            return self._at_time(partitions, parse_datetime(args.to_datetime))
        if args.by_duration is not None:
            return self._at_time(
                partitions, int(time.time() * 1000) - parse_duration(args.by_duration)
            )
        current = committed_offsets(self.client, group, TIMEOUT_S)
        if args.shift_by is not None:
            for topic, partition in partitions:
                if (topic, partition) not in current:
                    args.usage(
                        f"Cannot shift offset for partition {topic}-{partition} since "
                        "there is no current committed offset"
                    )
            return self._in_range({tp: current[tp] + args.shift_by for tp in partitions})
        uncommitted = [tp for tp in partitions if tp not in current]  # --to-current
        ends = self._required_offsets(uncommitted, OffsetSpec.latest(), "ending offset")
        return {tp: current[tp] if tp in current else ends[tp] for tp in partitions}

    def _reset_scope(self, group: str) -> list[Partition]:
        if self.args.all_topics:
            return sorted(committed_offsets(self.client, group, TIMEOUT_S))
        partitions, missing = self._topic_partitions(self.args.topic)
        if missing:
            raise GroupsFailure(f"Executing consumer group command failed due to {_UNKNOWN_TOPIC}")
        return partitions

    # --- delete ---------------------------------------------------------------------------

    def delete(self) -> None:
        from confluent_kafka import KafkaException

        groups = self._group_ids()
        futures = (
            self.client.delete_consumer_groups(groups, request_timeout=self.timeout)
            if groups
            else {}
        )
        deleted, failed = [], {}
        for group in groups:
            try:
                futures[group].result(TIMEOUT_S)
                deleted.append(group)
            except KafkaException as error:
                failed[group] = _message(error)
        if not failed:
            print(f"Deletion of requested consumer groups ('{', '.join(deleted)}') was successful.")
            return
        self.error("Deletion of some consumer groups failed:")
        for group, message in failed.items():
            print(f"* Group '{group}' could not be deleted due to: {message}")
        if deleted:
            names = ", ".join(f"'{g}'" for g in deleted)
            print(f"\nThese consumer groups were deleted successfully: {names}")

    def _delete_offsets(
        self, group: str, partitions: Sequence[Partition]
    ) -> tuple[int, dict[Partition, int]]:
        from seaway.config import ConfigException
        from seaway.kafka.connection import KafkaConnectionError
        from seaway.kafka.group_offsets import delete_group_offsets

        try:
            return delete_group_offsets(client_config(self.args), group, partitions,
                                        self.timeout, TIMEOUT_S)  # fmt: skip
        except (ConfigException, KafkaConnectionError) as error:
            raise GroupsFailure(f"Executing consumer group command failed due to {error}") from None

    def delete_offsets(self) -> None:
        group, topics = self.args.group[0], self.args.topic
        partitions, missing = self._topic_partitions(topics)
        results: dict[Partition, int] = {(t, -1): 3 for t in missing}  # UNKNOWN_TOPIC_OR_PARTITION
        top = 0
        if partitions:
            top, deleted = self._delete_offsets(group, partitions)
            results.update({tp: top or deleted.get(tp, 0) for tp in partitions})
            top = top or next((deleted[tp] for tp in partitions if deleted.get(tp)), 0)
        if top == 0:
            print(
                f"Request succeed for deleting offsets with topic {', '.join(topics)} group {group}"
            )
        else:
            template = _DELETE_OFFSETS_ERRORS.get(top, "Encounter some unknown error: {name}")
            self.error(template.format(group=group, name=_error_name(top)))
        rows = [_pad(("TOPIC", "PARTITION", "STATUS"), (30, 15, 15))]
        for (topic, partition), code in sorted(results.items()):
            status = f"Error: :{_error_text(code)}" if code else "Successful"
            rows.append(
                _pad((topic, partition if partition >= 0 else "Not Provided", status), (30, 15, 15))
            )
        _print_table(rows)


# --- formats --------------------------------------------------------------------------------


def _pad(values: Sequence[object], widths: Sequence[int]) -> str:
    """*values* left-aligned in columns of *widths* (Java's ``%-Ns``; 0: as is), joined by
    spaces."""
    return " ".join(f"{value!s:<{width}}" for value, width in zip(values, widths, strict=True))


def _print_table(lines: Sequence[str]) -> None:
    """The script's tables: each line after a line break, one more at the end."""
    sys.stdout.write("".join(f"\n{line}" for line in lines) + "\n")


def _warn_moved(offset: int, how: str, topic: str, partition: int, to: int) -> None:
    log.warning("New offset (%d) is %s offset for topic partition %s-%d. Value will be set to %d",
                offset, how, topic, partition, to)  # fmt: skip


def _print_error(message: str) -> None:
    print(f"\nError: {message}")


def _or_missing(value: int | None) -> str:
    return MISSING if value is None else str(value)


def _state(state: Any) -> str:
    """Kafka's name of a confluent-kafka group state."""
    return _STATES.get(getattr(state, "name", ""), "Unknown")


def _described_state(description: Any) -> str:
    return _state(description.state) if description is not None else "Dead"


def _assigned(member: Any) -> list[Partition]:
    assignment = member.assignment.topic_partitions if member.assignment else []
    return sorted((tp.topic, tp.partition) for tp in assignment or [])


def _assignment_text(partitions: list[Partition]) -> str:
    """``orders(0,1), refunds(2)``, as ``--members --verbose`` shows it; "-" for none."""
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    parts = sorted(f"{t}({','.join(map(str, sorted(ps)))})" for t, ps in by_topic.items())
    return ", ".join(parts) or MISSING


# --- clients --------------------------------------------------------------------------------


def _message(error: Any) -> str:
    """A KafkaException's text (librdkafka's)."""
    first = error.args[0] if error.args else error
    return str(first.str()) if hasattr(first, "str") else str(first)


def _code(error: Any) -> int | None:
    """A KafkaException's error code (None without one)."""
    first: Any = error.args[0] if error.args else None
    return int(first.code()) if hasattr(first, "code") else None


def _error_name(code: int) -> str:
    from seaway.protocol.errors import ErrorCode

    try:
        return ErrorCode(code).name.upper()
    except ValueError:
        return str(code)


def _error_text(code: int) -> str:
    """A broker error's description (librdkafka's, without its "Broker: " prefix)."""
    from confluent_kafka import KafkaError

    return str(KafkaError(code).str()).removeprefix("Broker: ")
