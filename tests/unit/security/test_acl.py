"""Kafka's authorization rules over ACL bindings (StandardAuthorizer's cases)."""

from __future__ import annotations

import pytest

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

Op, Perm, Pat, Res = AclOperation, AclPermissionType, PatternType, ResourceType
ALICE, HOST = "User:alice", "10.0.0.1"


def acl(name: str, op: AclOperation, perm: AclPermissionType = Perm.ALLOW, *,
        principal: str = ALICE, host: str = "*", pattern: PatternType = Pat.LITERAL,
        rtype: ResourceType = Res.TOPIC) -> AclBinding:  # fmt: skip
    return AclBinding(rtype, name, pattern, principal, host, op, perm)


def allowed(table: AclTable, op: AclOperation, name: str = "orders", principal: str = ALICE,
            host: str = HOST, rtype: ResourceType = Res.TOPIC) -> bool:  # fmt: skip
    return table.authorize(principal, host, op, rtype, name)


def test_no_acl_denies_unless_allow_everyone_if_no_acl_found() -> None:
    assert not allowed(AclTable(), Op.READ)
    assert allowed(AclTable(allow_if_no_acl=True), Op.READ)


def test_an_acl_for_anyone_else_closes_the_resource_even_with_allow_everyone() -> None:
    table = AclTable([acl("orders", Op.READ, principal="User:bob")], allow_if_no_acl=True)
    assert not allowed(table, Op.READ)
    assert allowed(table, Op.READ, name="other")


def test_super_users_pass_even_a_deny() -> None:
    table = AclTable([acl("orders", Op.ALL, Perm.DENY, principal="User:admin")],
                     super_users=parse_super_users("User:admin; User:CN=broker"))  # fmt: skip
    assert allowed(table, Op.WRITE, principal="User:admin")
    assert allowed(table, Op.WRITE, principal="User:CN=broker")


def test_deny_wins_over_allow() -> None:
    table = AclTable([acl("orders", Op.ALL), acl("orders", Op.WRITE, Perm.DENY)])
    assert allowed(table, Op.READ) and not allowed(table, Op.WRITE)


@pytest.mark.parametrize("granted", [Op.READ, Op.WRITE, Op.DELETE, Op.ALTER])
def test_an_allow_implies_describe(granted: AclOperation) -> None:
    table = AclTable([acl("orders", granted)])
    assert allowed(table, Op.DESCRIBE)
    assert allowed(table, granted)
    assert not allowed(table, Op.CREATE)


def test_alter_configs_implies_describe_configs_and_a_deny_implies_nothing() -> None:
    table = AclTable([acl("orders", Op.ALTER_CONFIGS), acl("orders", Op.READ, Perm.DENY),
                      acl("orders", Op.DESCRIBE)])  # fmt: skip
    assert allowed(table, Op.DESCRIBE_CONFIGS)
    assert not allowed(table, Op.READ) and allowed(table, Op.DESCRIBE)


def test_literal_wildcard_prefixed_and_other_names() -> None:
    table = AclTable([acl("*", Op.READ), acl("app-", Op.WRITE, pattern=Pat.PREFIXED)])
    assert allowed(table, Op.READ, name="anything")
    assert allowed(table, Op.WRITE, name="app-orders")
    assert not allowed(table, Op.WRITE, name="ap")
    assert not allowed(table, Op.READ, name="x", rtype=Res.GROUP)  # another resource type


def test_wildcard_principal_and_hosts_are_exact() -> None:
    table = AclTable([acl("orders", Op.READ, principal="User:*", host=HOST)])
    assert allowed(table, Op.READ, principal="User:bob")
    assert not allowed(table, Op.READ, host="10.0.0.2")


def test_authorize_any_for_idempotent_writes() -> None:
    assert AclTable([acl("app-", Op.WRITE, pattern=Pat.PREFIXED)]).authorize_any(
        ALICE, HOST, Op.WRITE, Res.TOPIC)  # fmt: skip
    denied = AclTable(
        [acl("app-x", Op.WRITE), acl("app-", Op.WRITE, Perm.DENY, pattern=Pat.PREFIXED)]
    )
    assert not denied.authorize_any(ALICE, HOST, Op.WRITE, Res.TOPIC)
    assert not AclTable([acl("*", Op.WRITE, Perm.DENY), acl("x", Op.WRITE)]).authorize_any(
        ALICE, HOST, Op.WRITE, Res.TOPIC)  # fmt: skip
    assert AclTable(allow_if_no_acl=True).authorize_any(ALICE, HOST, Op.WRITE, Res.TOPIC)
    assert not AclTable().authorize_any(ALICE, HOST, Op.WRITE, Res.TOPIC)


def test_authorized_operations_bits() -> None:
    table = AclTable([acl("orders", Op.READ)])
    bits = table.authorized_operations(ALICE, HOST, Res.TOPIC, "orders")
    assert bits == (1 << Op.READ) | (1 << Op.DESCRIBE)


def test_filters_any_match_and_exact() -> None:
    literal = acl("orders", Op.READ)
    prefixed = acl("ord", Op.READ, pattern=Pat.PREFIXED)
    star = acl("*", Op.WRITE)
    table = AclTable([literal, prefixed, star, acl("g", Op.READ, rtype=Res.GROUP)])
    assert table.select(AclBindingFilter(Res.TOPIC, "orders", Pat.ANY)) == [literal]
    assert set(table.select(AclBindingFilter(Res.TOPIC, "orders", Pat.MATCH))) == {
        literal, prefixed, star}  # fmt: skip
    assert table.select(AclBindingFilter(Res.TOPIC, None, Pat.PREFIXED)) == [prefixed]
    assert len(table.select(AclBindingFilter())) == 4
    assert table.select(AclBindingFilter(operation=Op.WRITE)) == [star]


@pytest.mark.parametrize(
    ("binding", "message"),
    [
        (acl("", Op.READ), "empty resource name"),
        (acl("other", Op.ALTER, rtype=Res.CLUSTER), "only valid name for the CLUSTER"),
        (acl("orders", Op.ANY), "AclOperation ANY"),
        (acl("orders", Op.READ, Perm.UNKNOWN), "AclPermissionType UNKNOWN"),
        (acl("orders", Op.READ, pattern=Pat.MATCH), "PatternType MATCH"),
        (acl("orders", Op.READ, principal="alice"), "no colon"),
    ],
)
def test_invalid_bindings_say_why(binding: AclBinding, message: str) -> None:
    assert message in (binding.invalid() or "")


def test_super_users_must_be_principals() -> None:
    with pytest.raises(ValueError, match="Type:name"):
        parse_super_users("admin")
