"""The broker's ACL authorizer: Kafka's ``StandardAuthorizer`` over ACLs kept durable.

Turned on as in Kafka, by ``authorizer.class.name`` (the KRaft class or the older
``kafka.security.authorizer.AclAuthorizer``; both mean the same rules here), with
``super.users`` and ``allow.everyone.if.no.acl.found``. Without it every request is allowed
and the ACL APIs answer SECURITY_DISABLED. Decisions are :class:`seaway.security.acl.AclTable`'s;
this module stores the ACLs in the metadata store (they survive restarts) and writes
Kafka's audit lines to the ``kafka.authorizer.logger`` logger: denials at INFO, the rest at
DEBUG (TRACE in Kafka).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from seaway.broker.metadata import AclRow, MetadataStore
from seaway.config import ConfigException
from seaway.security.acl import (
    AclBinding,
    AclBindingFilter,
    AclOperation,
    AclPermissionType,
    AclTable,
    PatternType,
    ResourceType,
    parse_super_users,
)

__all__ = ["AUTHORIZER_CLASSES", "BrokerAuthorizer", "authorizer_settings"]

AUTHORIZER_CLASSES: Final = (
    "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "kafka.security.authorizer.AclAuthorizer",
)
audit = logging.getLogger("kafka.authorizer.logger")


def authorizer_settings(values: Mapping[str, Any]) -> tuple[frozenset[str], bool] | None:
    """``(super.users, allow.everyone.if.no.acl.found)`` when ``authorizer.class.name`` asks
    for the ACL authorizer, None when it is empty; a bad value is a :class:`ConfigException`."""
    name = (values.get("authorizer.class.name") or "").strip()
    if not name:
        return None
    if name not in AUTHORIZER_CLASSES:
        raise ConfigException(
            f"Invalid value {name} for configuration authorizer.class.name: Seaway's broker has "
            f"Kafka's ACL authorizer, named {AUTHORIZER_CLASSES[0]}; other authorizer plugins "
            "cannot be loaded"
        )
    try:
        users = parse_super_users(values.get("super.users"))
    except ValueError as error:
        raise ConfigException(str(error)) from None
    return users, bool(values.get("allow.everyone.if.no.acl.found"))


class BrokerAuthorizer:
    """The ACLs of one broker and the decisions they make."""

    def __init__(
        self, store: MetadataStore, super_users: frozenset[str], allow_if_no_acl: bool
    ) -> None:
        self._store = store
        self.table = AclTable((_binding(row) for row in store.acls()), super_users, allow_if_no_acl)

    # -- decisions -------------------------------------------------------------------------

    def authorize(
        self,
        principal: str,
        host: str,
        operation: AclOperation,
        resource_type: ResourceType,
        name: str,
        *,
        log_denial: bool = True,
    ) -> bool:
        """Whether the request may go on; *log_denial* False for a filtered listing (the
        unauthorized items are just left out, as Kafka logs them only at TRACE)."""
        allowed = self.table.authorize(principal, host, operation, resource_type, name)
        level = logging.INFO if not allowed and log_denial else logging.DEBUG
        if audit.isEnabledFor(level):
            audit.log(
                level,
                "Principal = %s is %s operation = %s from host = %s on resource = %s:LITERAL:%s",
                principal, "Allowed" if allowed else "Denied",
                operation.name, host, _type_name(resource_type), name,
            )  # fmt: skip
        return allowed

    # -- the ACL APIs ----------------------------------------------------------------------

    def create(self, bindings: list[AclBinding]) -> None:
        """Store *bindings* (valid ones: :meth:`AclBinding.invalid` is None); existing ones
        are left as they are."""
        added = [acl for acl in bindings if self.table.add(acl)]
        self._store.alter_acls([acl.key() for acl in added], [])
        for acl in added:
            audit.info("Added ACL %s", acl)

    def describe(self, selection: AclBindingFilter) -> list[AclBinding]:
        return self.table.select(selection)

    def delete(self, filters: list[AclBindingFilter]) -> list[list[AclBinding]]:
        """Remove what each filter matches; per filter, what it removed."""
        matched = [self.table.select(f) for f in filters]
        removed = {acl for found in matched for acl in found}
        for acl in removed:
            self.table.remove(acl)
            audit.info("Removed ACL %s", acl)
        self._store.alter_acls([], [acl.key() for acl in removed])
        return matched


def _type_name(resource_type: ResourceType) -> str:
    """Kafka's spelling in audit lines (``Topic``, ``Group``, ``TransactionalId``...)."""
    return "".join(part.capitalize() for part in resource_type.name.split("_"))


def _binding(row: AclRow) -> AclBinding:
    rtype, name, pattern, principal, host, operation, permission = row
    return AclBinding(ResourceType(rtype), name, PatternType(pattern), principal, host,
                      AclOperation(operation), AclPermissionType(permission))  # fmt: skip
