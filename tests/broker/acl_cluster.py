"""A broker with Kafka's ACL authorizer and SASL/PLAIN users, for the authorization tests.

``admin`` is a super user; ``alice``, ``bob`` and ``mallory`` have only what a test grants
them with :meth:`AclBroker.allow` / :meth:`AclBroker.deny` (through CreateAcls, as an
operator would). Clients are confluent-kafka's, logged in as the user asked for.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AdminClient,
    ResourcePatternType,
    ResourceType,
)

from seaway.broker import BrokerThread

USERS = ("admin", "alice", "bob", "mallory")
JAAS = (
    "org.apache.kafka.common.security.plain.PlainLoginModule required "
    + " ".join(f'user_{u}="{u}-secret"' for u in USERS)
    + ";"
)
TIMEOUT_S = 30
LITERAL = ResourcePatternType.LITERAL


def acl_broker_config(**extra: Any) -> dict[str, Any]:
    return {
        "listeners": "SASL_PLAINTEXT://127.0.0.1:0",
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:admin",
        "group.initial.rebalance.delay.ms": 0,
        **extra,
    }


class AclBroker:
    """The broker and clients for each user."""

    def __init__(self, broker: BrokerThread) -> None:
        self.broker = broker
        self.bootstrap = broker.listeners["SASL_PLAINTEXT"]
        self._admins: dict[str, AdminClient] = {}

    def client_config(self, user: str, **extra: Any) -> dict[str, Any]:
        return {
            "bootstrap.servers": self.bootstrap,
            "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanism": "PLAIN",
            "sasl.username": user,
            "sasl.password": f"{user}-secret",
            # librdkafka's lines (a stopped broker's "Connection refused") go to logging,
            # which pytest shows for a failed test only
            "logger": logging.getLogger(f"librdkafka.{user}"),
            **extra,
        }

    def admin(self, user: str = "admin") -> AdminClient:
        """The user's admin client (kept: a dropped client fails its pending futures)."""
        if user not in self._admins:
            self._admins[user] = AdminClient(self.client_config(user))
        return self._admins[user]

    def producer(self, user: str, **extra: Any) -> Producer:
        return Producer(self.client_config(user, **extra))

    def consumer(self, user: str, group: str, **extra: Any) -> Consumer:
        settings = {"group.id": group, "auto.offset.reset": "earliest", **extra}
        return Consumer(self.client_config(user, **settings))

    def _bindings(
        self,
        permission: AclPermissionType,
        user: str,
        resource: ResourceType,
        name: str,
        operations: tuple[AclOperation, ...],
        pattern: ResourcePatternType,
        host: str,
    ) -> list[AclBinding]:
        return [
            AclBinding(resource, name, pattern, f"User:{user}", host, op, permission)
            for op in operations
        ]

    def grant(self, bindings: list[AclBinding]) -> None:
        futures = self.admin().create_acls(bindings, request_timeout=TIMEOUT_S)
        for future in futures.values():
            future.result(TIMEOUT_S)

    def allow(self, user: str, resource: ResourceType, name: str, *operations: AclOperation,
              pattern: ResourcePatternType = LITERAL, host: str = "*") -> None:  # fmt: skip
        self.grant(self._bindings(AclPermissionType.ALLOW, user, resource, name, operations,
                                  pattern, host))  # fmt: skip

    def deny(self, user: str, resource: ResourceType, name: str, *operations: AclOperation,
             pattern: ResourcePatternType = LITERAL, host: str = "*") -> None:  # fmt: skip
        self.grant(self._bindings(AclPermissionType.DENY, user, resource, name, operations,
                                  pattern, host))  # fmt: skip

    def revoke_all(self) -> None:
        everything = AclBindingFilter(ResourceType.ANY, None, ResourcePatternType.ANY, None, None,
                                      AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
        for future in self.admin().delete_acls([everything], request_timeout=TIMEOUT_S).values():
            future.result(TIMEOUT_S)


def start_acl_broker(directory: Path, **extra: Any) -> Iterator[AclBroker]:
    """Yield an :class:`AclBroker` on a fresh data directory (for a fixture)."""
    with BrokerThread(directory, config=acl_broker_config(**extra)) as broker:
        yield AclBroker(broker)
