"""Kafka's access control lists and how an authorizer decides with them (``StandardAuthorizer``).

The codes are the wire protocol's (CreateAcls, DescribeAcls, DeleteAcls). A decision:

1. a principal in ``super.users`` is allowed everything;
2. the ACLs of the resource type whose pattern matches the name (LITERAL: equal, or the
   LITERAL ``*``; PREFIXED: the name starts with it), for the caller's principal or
   ``User:*`` and its host or ``*``, for the operation, ``ALL``, or (ALLOW only) an operation
   that implies it (READ, WRITE, DELETE or ALTER imply DESCRIBE; ALTER_CONFIGS implies
   DESCRIBE_CONFIGS);
3. any DENY among them denies; else any ALLOW allows;
4. none: denied if the resource has any ACL at all, else ``allow.everyone.if.no.acl.found``.

:class:`AclTable` is the decision over a set of bindings, nothing else: the broker keeps
the set durable (:mod:`seaway.broker.authorizer`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

__all__ = [
    "CLUSTER_NAME",
    "SUPPORTED_OPERATIONS",
    "AclBinding",
    "AclBindingFilter",
    "AclOperation",
    "AclPermissionType",
    "AclTable",
    "PatternType",
    "ResourceType",
    "parse_super_users",
]


class ResourceType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    TOPIC = 2
    GROUP = 3
    CLUSTER = 4
    TRANSACTIONAL_ID = 5
    DELEGATION_TOKEN = 6
    USER = 7


class PatternType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    MATCH = 2
    LITERAL = 3
    PREFIXED = 4


class AclOperation(IntEnum):
    UNKNOWN = 0
    ANY = 1
    ALL = 2
    READ = 3
    WRITE = 4
    CREATE = 5
    DELETE = 6
    ALTER = 7
    DESCRIBE = 8
    CLUSTER_ACTION = 9
    DESCRIBE_CONFIGS = 10
    ALTER_CONFIGS = 11
    IDEMPOTENT_WRITE = 12
    CREATE_TOKENS = 13
    DESCRIBE_TOKENS = 14


class AclPermissionType(IntEnum):
    UNKNOWN = 0
    ANY = 1
    DENY = 2
    ALLOW = 3


CLUSTER_NAME: Final = "kafka-cluster"
WILDCARD: Final = "*"
WILDCARD_PRINCIPAL: Final = "User:*"
_NO_SUCH_NAME: Final = "\x00"  # a name no resource has (authorize_any's first question)

_Op = AclOperation
SUPPORTED_OPERATIONS: Final[dict[ResourceType, tuple[AclOperation, ...]]] = {
    ResourceType.TOPIC: (_Op.READ, _Op.WRITE, _Op.CREATE, _Op.DESCRIBE, _Op.DELETE, _Op.ALTER,
                         _Op.DESCRIBE_CONFIGS, _Op.ALTER_CONFIGS),
    ResourceType.GROUP: (_Op.READ, _Op.DESCRIBE, _Op.DELETE, _Op.DESCRIBE_CONFIGS,
                         _Op.ALTER_CONFIGS),
    ResourceType.CLUSTER: (_Op.CREATE, _Op.CLUSTER_ACTION, _Op.DESCRIBE_CONFIGS,
                           _Op.ALTER_CONFIGS, _Op.IDEMPOTENT_WRITE, _Op.ALTER, _Op.DESCRIBE),
    ResourceType.TRANSACTIONAL_ID: (_Op.DESCRIBE, _Op.WRITE),
    ResourceType.DELEGATION_TOKEN: (_Op.DESCRIBE,),
    ResourceType.USER: (_Op.CREATE_TOKENS, _Op.DESCRIBE_TOKENS),
}  # fmt: skip
"""The operations that mean something per resource type (``authorized_operations`` bits)."""

# An ALLOW of the key implies the operations of the value (a DENY implies nothing).
_IMPLIED_BY: Final = {
    _Op.DESCRIBE: frozenset({_Op.DESCRIBE, _Op.READ, _Op.WRITE, _Op.DELETE, _Op.ALTER}),
    _Op.DESCRIBE_CONFIGS: frozenset({_Op.DESCRIBE_CONFIGS, _Op.ALTER_CONFIGS}),
}


@dataclass(frozen=True, slots=True)
class AclBinding:
    """One stored ACL: a resource pattern and an access control entry."""

    resource_type: ResourceType
    name: str
    pattern_type: PatternType
    principal: str
    host: str
    operation: AclOperation
    permission: AclPermissionType

    def invalid(self) -> str | None:
        """Why CreateAcls must refuse this binding (INVALID_REQUEST), or None."""
        concrete = (
            (self.resource_type, ResourceType),
            (self.pattern_type, PatternType),
            (self.operation, AclOperation),
            (self.permission, AclPermissionType),
        )
        for value, kind in concrete:
            if value in (kind(0), kind(1)) or (kind is PatternType and value is PatternType.MATCH):
                return f"Invalid {kind.__name__} {value.name}: an ACL needs a concrete value"
        if not self.name:
            return "Invalid empty resource name"
        if self.resource_type is ResourceType.CLUSTER and self.name != CLUSTER_NAME:
            return f"The only valid name for the CLUSTER resource is {CLUSTER_NAME}"
        if ":" not in self.principal:
            return f"Could not parse principal from `{self.principal}` (no colon is found)"
        return None

    def key(self) -> tuple[int, str, int, str, str, int, int]:
        """Its fields as plain values, in wire order: how ACLs are sorted and stored."""
        return (int(self.resource_type), self.name, int(self.pattern_type), self.principal,
                self.host, int(self.operation), int(self.permission))  # fmt: skip

    def pattern_matches(self, name: str) -> bool:
        """Whether this binding's pattern covers the resource *name*."""
        if self.pattern_type is PatternType.PREFIXED:
            return name.startswith(self.name)
        return self.name in (name, WILDCARD)

    def __str__(self) -> str:
        return (
            f"(principal={self.principal}, host={self.host}, operation={self.operation.name}, "
            f"permissionType={self.permission.name}) on {self.resource_type.name}:"
            f"{self.pattern_type.name}:{self.name}"
        )


@dataclass(frozen=True, slots=True)
class AclBindingFilter:
    """What DescribeAcls and DeleteAcls select (Kafka's ``AclBindingFilter``): ANY and None
    match everything; pattern ANY with a name matches equal names of either pattern type,
    MATCH every pattern that would cover the name."""

    resource_type: ResourceType = ResourceType.ANY
    name: str | None = None
    pattern_type: PatternType = PatternType.ANY
    principal: str | None = None
    host: str | None = None
    operation: AclOperation = AclOperation.ANY
    permission: AclPermissionType = AclPermissionType.ANY

    def unknown(self) -> bool:
        """Whether a field is UNKNOWN (the filter is refused with INVALID_REQUEST)."""
        return 0 in (self.resource_type, self.pattern_type, self.operation, self.permission)

    def matches(self, acl: AclBinding) -> bool:
        if self.resource_type not in (ResourceType.ANY, acl.resource_type):
            return False
        if not self._pattern_matches(acl):
            return False
        return (
            self.principal in (None, acl.principal)
            and self.host in (None, acl.host)
            and self.operation in (AclOperation.ANY, acl.operation)
            and self.permission in (AclPermissionType.ANY, acl.permission)
        )

    def _pattern_matches(self, acl: AclBinding) -> bool:
        if self.pattern_type not in (PatternType.ANY, PatternType.MATCH, acl.pattern_type):
            return False
        if self.name is None:
            return True
        if self.pattern_type is not PatternType.MATCH:
            return self.name == acl.name
        return acl.pattern_matches(self.name)


def parse_super_users(value: str | None) -> frozenset[str]:
    """``super.users``: ``Type:name`` principals separated by semicolons."""
    users = frozenset(u.strip() for u in (value or "").split(";") if u.strip())
    for user in users:
        if ":" not in user:
            raise ValueError(
                f"super.users entry {user!r} is not a principal: write Type:name, e.g. "
                "User:admin, and separate entries with ';'"
            )
    return users


class AclTable:
    """Bindings by resource type, and the decisions they make."""

    def __init__(
        self,
        bindings: Iterable[AclBinding] = (),
        super_users: frozenset[str] = frozenset(),
        allow_if_no_acl: bool = False,
    ) -> None:
        self.super_users = super_users
        self.allow_if_no_acl = allow_if_no_acl
        self._by_type: dict[ResourceType, set[AclBinding]] = {}
        for acl in bindings:
            self.add(acl)

    def add(self, acl: AclBinding) -> bool:
        """Store *acl*; False if it was there already."""
        found = self._by_type.setdefault(acl.resource_type, set())
        if acl in found:
            return False
        found.add(acl)
        return True

    def remove(self, acl: AclBinding) -> None:
        self._by_type.get(acl.resource_type, set()).discard(acl)

    def select(self, selection: AclBindingFilter) -> list[AclBinding]:
        """The stored bindings *selection* matches, in a stable order."""
        types = (
            list(self._by_type)
            if selection.resource_type is ResourceType.ANY
            else [selection.resource_type]
        )
        found = [a for t in types for a in self._by_type.get(t, ()) if selection.matches(a)]
        return sorted(found, key=AclBinding.key)

    def __len__(self) -> int:
        return sum(len(found) for found in self._by_type.values())

    # -- decisions -----------------------------------------------------------------------

    def authorize(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
    ) -> bool:
        """Whether *principal* connecting from *host* may do *operation* on the resource."""
        if principal in self.super_users:
            return True
        matching = [a for a in self._by_type.get(resource_type, ()) if a.pattern_matches(name)]
        if not matching:
            return self.allow_if_no_acl
        allowed = False
        for acl in matching:
            if acl.principal not in (principal, WILDCARD_PRINCIPAL) or acl.host not in (
                host,
                WILDCARD,
            ):
                continue
            if acl.permission is AclPermissionType.DENY:
                if acl.operation in (operation, AclOperation.ALL):
                    return False
            elif acl.operation is AclOperation.ALL or acl.operation in _IMPLIED_BY.get(
                operation, (operation,)
            ):
                allowed = True
        return allowed

    def authorize_any(
        self, principal: str, host: str, operation: AclOperation, resource_type: ResourceType
    ) -> bool:
        """Whether *operation* is allowed on some resource of the type (Kafka's
        ``authorizeByResourceType``: idempotent producers without IDEMPOTENT_WRITE)."""
        if self.authorize(principal, host, operation, resource_type, _NO_SUCH_NAME):
            return True  # super users, LITERAL "*" ALLOWs, no ACLs with allow-everyone
        relevant = [
            a
            for a in self._by_type.get(resource_type, ())
            if a.principal in (principal, WILDCARD_PRINCIPAL)
            and a.host in (host, WILDCARD)
            and a.operation in (operation, AclOperation.ALL)
        ]
        denied = {
            (a.pattern_type, a.name) for a in relevant if a.permission is AclPermissionType.DENY
        }
        if (PatternType.LITERAL, WILDCARD) in denied:
            return False
        for acl in relevant:
            if acl.permission is AclPermissionType.ALLOW and not _dominated(acl, denied):
                return True
        return False

    def authorized_operations(
        self, principal: str, host: str, resource_type: ResourceType, name: str
    ) -> int:
        """The ``authorized_operations`` bit field (bit ``1 << op``) of one resource."""
        bits = 0
        for operation in SUPPORTED_OPERATIONS.get(resource_type, ()):
            if self.authorize(principal, host, operation, resource_type, name):
                bits |= 1 << operation
        return bits


def _dominated(allow: AclBinding, denied: set[tuple[PatternType, str]]) -> bool:
    """Whether a DENY covers every name *allow* covers (a LITERAL by its own name or a prefix
    of it, a PREFIXED by a shorter or equal prefix)."""
    for pattern, name in denied:
        if pattern is PatternType.PREFIXED and allow.name.startswith(name):
            return True
        literal = pattern is PatternType.LITERAL and allow.pattern_type is PatternType.LITERAL
        if literal and name == allow.name:
            return True
    return False
