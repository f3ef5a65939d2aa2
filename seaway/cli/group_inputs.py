"""What ``seaway groups`` reads and writes besides the cluster: ``--topic`` values,
``--from-file`` / ``--export`` plans (CSV), ``--to-datetime`` and ``--by-duration``, each
parsed as ``kafka-consumer-groups.sh`` parses it, with its error texts."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from seaway.errors import SeawayError

__all__ = [
    "GroupsFailure",
    "Partition",
    "export_csv",
    "parse_datetime",
    "parse_duration",
    "parse_topics",
    "read_plan",
]

Partition = tuple[str, int]


class GroupsFailure(SeawayError):
    """An error the script prints as ``Error: <message>``; exit code 1."""


def export_csv(plan: Mapping[str, Mapping[Partition, int]], *, with_group: bool) -> str:
    """The ``--export`` CSV: ``topic,partition,offset`` lines for one ``--group``, else with
    the group first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for group, offsets in plan.items():
        for (topic, partition), offset in sorted(offsets.items()):
            writer.writerow([group, topic, partition, offset][0 if with_group else 1 :])
    return out.getvalue()


def read_plan(path: str, groups: Sequence[str]) -> dict[str, dict[Partition, int]]:
    """A ``--from-file`` CSV as offsets per group (the ``--export`` formats)."""
    try:
        rows = [row for row in csv.reader(Path(path).read_text().splitlines()) if row]
    except OSError as error:
        raise GroupsFailure(f"Executing consumer group command failed due to {error}") from None
    single = len(groups) == 1 and bool(rows) and len(rows[0]) == 3
    plan: dict[str, dict[Partition, int]] = {}
    for row in rows:
        fields = [groups[0], *row] if single else row
        try:
            group, topic, partition, offset = fields
            plan.setdefault(group, {})[(topic, int(partition))] = int(offset)
        except ValueError:
            raise GroupsFailure(
                f"Executing consumer group command failed due to {path}: invalid "
                f"line {','.join(row)!r}: expected group,topic,partition,offset or "
                "topic,partition,offset"
            ) from None
    return plan


def parse_topics(
    topics: Iterable[str], usage: Callable[[str], Any]
) -> tuple[list[Partition], list[str]]:
    """``--topic`` values: the partitions named (``t:0,1``) and the whole topics (``t``)."""
    listed: list[Partition] = []
    whole: list[str] = []
    for value in topics:
        if ":" not in value:
            whole.append(value)
            continue
        parts = value.split(":")
        if len(parts) != 2:
            usage(f"Invalid topic arg '{value}', expected topic name and partitions")
        for partition in parts[1].split(","):
            if not re.fullmatch(r"-?\d+", partition.strip()):
                usage(f"Invalid partition '{partition}' specified in topic arg '{value}''")
            listed.append((parts[0], int(partition)))
    return listed, whole


_DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})(Z|[+-]\d{2}(?::?\d{2})?)?")
_DURATION = re.compile(
    r"([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?",
    re.IGNORECASE,
)


def parse_datetime(text: str) -> int:
    """``--to-datetime`` (``YYYY-MM-DDTHH:mm:SS.sss``, UTC unless a zone follows: ``Z``,
    ``+hh:mm``, ``+hhmm`` or ``+hh``) in ms since the epoch."""
    match = _DATETIME.fullmatch(text.strip())
    try:
        if match is None:
            raise ValueError(text)
        zone = match.group(2) or "Z"
        if zone != "Z" and len(zone) == 3:
            zone += "00"
        stamp = dt.datetime.strptime(
            match.group(1) + zone.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z"
        )
    except ValueError:
        raise GroupsFailure(
            f'Executing consumer group command failed due to Unparseable date: "{text}"'
        ) from None
    return int(stamp.timestamp() * 1000)


def parse_duration(text: str) -> int:
    """``--by-duration`` (ISO-8601 ``PnDTnHnMn.nS``, as Java's Duration.parse) in ms."""
    match = _DURATION.fullmatch(text.strip())
    if match is None or not any(match.groups()[1:]) or text.strip().upper().endswith("T"):
        raise GroupsFailure(
            "Executing consumer group command failed due to Text cannot be parsed to a Duration"
        )
    sign, days, hours, minutes, seconds, fraction = match.groups()
    total = dt.timedelta(
        days=int(days or 0),
        hours=int(hours or 0),
        minutes=int(minutes or 0),
        seconds=int(seconds or 0),
    )
    millis = int(total.total_seconds() * 1000)
    if fraction:
        millis += (-1 if (seconds or "").startswith("-") else 1) * int(fraction.ljust(3, "0")[:3])
    return -millis if sign == "-" else millis
