"""DescribeLogDirs (35): the broker's log directory, each partition's size in it, and the
directory's total and usable bytes (v4). Needs DESCRIBE on the cluster, as in Kafka."""

from __future__ import annotations

import shutil
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make, nested
from seaway.security.acl import AclOperation, ResourceType


@handles(ApiKey.DESCRIBE_LOG_DIRS, max_version=4)
async def describe_log_dirs(ctx: RequestContext) -> Any:
    resp = ctx.response_class
    if not ctx.authorized(AclOperation.DESCRIBE, ResourceType.CLUSTER):
        return make(resp, throttle_time=ZERO,
                    error_code=ErrorCode.cluster_authorization_failed, results=())  # fmt: skip
    result_cls, topic_cls = (
        nested(resp, "DescribeLogDirsResult"),
        nested(resp, "DescribeLogDirsTopic"),
    )
    part_cls = nested(resp, "DescribeLogDirsPartition")
    topics = ctx.broker.topics
    wanted: dict[str, list[int] | None]  # None: every partition
    if ctx.request.topics is None:
        wanted = dict.fromkeys(topics.topics)
    else:
        wanted = {t.topic: list(t.partitions) for t in ctx.request.topics}
    entries = []
    for name, numbers in sorted(wanted.items()):
        topic = topics.get(name)
        if topic is None:
            continue
        logs = topic.partitions
        indexes = (
            range(len(logs)) if numbers is None else [n for n in numbers if 0 <= n < len(logs)]
        )
        parts = tuple(make(part_cls, partition_index=i, partition_size=logs[i].size, offset_lag=0,
                           is_future_key=False) for i in indexes)  # fmt: skip
        entries.append(make(topic_cls, name=name, partitions=parts))
    usage = shutil.disk_usage(topics.data_dir)
    result = make(
        result_cls,
        error_code=ErrorCode.none,
        log_dir=str(topics.data_dir),
        topics=tuple(entries),
        total_bytes=usage.total,
        usable_bytes=usage.free,
    )
    return make(resp, throttle_time=ZERO, error_code=ErrorCode.none, results=(result,))
