"""DescribeUserScramCredentials (50) with the batch client: which SCRAM mechanisms (and
iterations) each user has, against any Kafka (KIP-554).

librdkafka 2.16 reads this response's per-user error messages one byte too long, so Seaway's
own client asks instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from seaway.kafka.cluster import KafkaCluster
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested
from seaway.security.scram import MECHANISMS

__all__ = ["describe_user_scram_credentials"]

_NAMES: Final = {m.type_id: name for name, m in MECHANISMS.items()}

# a user, and its error or its (mechanism, iterations)
UserCredentials = tuple[str, KafkaError | None, list[tuple[str, int]]]


def describe_user_scram_credentials(
    cluster: KafkaCluster, users: Sequence[str] = ()
) -> list[UserCredentials]:
    """Each user of *users* (none: every user with credentials), in the broker's order;
    :class:`KafkaError` if the broker refuses the whole request."""

    def call() -> Any:
        connection = cluster.any_connection()
        cls = connection.request_class(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, 0, 0)
        user_cls = nested(cls, "UserName")
        asked = tuple(make(user_cls, name=u) for u in users) if users else None
        response = connection.request(make(cls, users=asked))
        if response.error_code != ErrorCode.none:
            raise KafkaError(ErrorCode(response.error_code), response.error_message)
        return response

    response = cluster.retrying(call, "DescribeUserScramCredentials")
    return [
        (
            str(r.user),
            None
            if r.error_code == ErrorCode.none
            else KafkaError(ErrorCode(r.error_code), r.error_message),
            [
                (_NAMES.get(int(i.mechanism), "UNKNOWN"), int(i.iterations))
                for i in r.credential_infos
            ],
        )
        for r in response.results
    ]
