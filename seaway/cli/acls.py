"""``seaway acls``: Kafka's ``kafka-acls.sh`` (AclCommand) on the admin client (any Kafka).

    seaway acls --bootstrap-server localhost:9092 --command-config admin.properties \\
        --add --allow-principal User:alice --operation Read --topic orders
    seaway acls --bootstrap-server localhost:9092 --add --allow-principal User:alice \\
        --producer --topic orders --transactional-id tx --idempotent
    seaway acls --bootstrap-server localhost:9092 --add --allow-principal User:bob \\
        --consumer --topic orders --group billing
    seaway acls --bootstrap-server localhost:9092 --list --topic orders
    seaway acls --bootstrap-server localhost:9092 --list --principal User:alice
    seaway acls --bootstrap-server localhost:9092 --remove --topic orders --force

Checks, messages and output are the script's (``Adding ACLs for resource `...`:``,
``Current ACLs for resource `...`:``, the ``(y/n)`` prompt of ``--remove`` without
``--force``, read from stdin). librdkafka drops DescribeAcls' error code, so an empty
listing is checked against the broker's ``authorizer.class.name`` to report, as Kafka
does, a cluster without an authorizer. Delegation-token and user-principal resources are
not offered: librdkafka has no resource type for them.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, NoReturn

from seaway.cli.admin_client import TIMEOUT_S, add_connection, admin
from seaway.errors import SeawayError

Usage = Callable[[str], NoReturn]

# fmt: off
# AclOperation names librdkafka knows (ANY and UNKNOWN are filters, not operations)
_OPERATIONS: Final = ("ALL", "READ", "WRITE", "CREATE", "DELETE", "ALTER", "DESCRIBE",
                      "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS", "IDEMPOTENT_WRITE")
# Kafka's AclEntry.supportedOperations (ALL is valid everywhere)
_SUPPORTED: Final = {
    "TOPIC": {"READ", "WRITE", "CREATE", "DESCRIBE", "DELETE", "ALTER", "DESCRIBE_CONFIGS",
              "ALTER_CONFIGS"},
    "GROUP": {"READ", "DESCRIBE", "DELETE", "DESCRIBE_CONFIGS", "ALTER_CONFIGS"},
    "CLUSTER": {"CREATE", "CLUSTER_ACTION", "DESCRIBE_CONFIGS", "ALTER_CONFIGS",
                "IDEMPOTENT_WRITE", "ALTER", "DESCRIBE"},
    "TRANSACTIONAL_ID": {"DESCRIBE", "WRITE"},
}
_NOT_WITH_LIST: Final = ("producer", "consumer", "allow_host", "allow_principal", "deny_host",
                         "deny_principal")
# fmt: on
_PATTERN_TYPES: Final = ("ANY", "MATCH", "LITERAL", "PREFIXED")
# Java exception classes of the errors an ACL request may answer, with the default message
# Kafka uses when the broker sends none
_EXCEPTIONS: Final = {
    "SECURITY_DISABLED": ("SecurityDisabledException", "No Authorizer is configured."),
    "CLUSTER_AUTHORIZATION_FAILED": (
        "ClusterAuthorizationException",
        "Cluster authorization failed.",
    ),
    "INVALID_REQUEST": (
        "InvalidRequestException",
        "This most likely occurs because of a request being malformed by the client library "
        "or the message was sent to an incompatible broker. See the broker logs for more details.",
    ),
}
_JAVA_ERRORS: Final = "org.apache.kafka.common.errors."


def _pascal(operation: str) -> str:
    """READ -> Read, IDEMPOTENT_WRITE -> IdempotentWrite (the names the script takes)."""
    return "".join(word.capitalize() for word in operation.split("_"))


def _operation(value: str) -> str:
    """An ``--operation`` name (Kafka's ``IdempotentWrite``; any case, ``_`` allowed)."""
    key = value.strip().replace("_", "").lower()
    for operation in _OPERATIONS:
        if operation.replace("_", "").lower() == key:
            return operation
    valid = ", ".join(_pascal(o) for o in _OPERATIONS)
    raise argparse.ArgumentTypeError(
        f"invalid operation {value!r}: valid operation names are {valid}"
    )


def _pattern_type(value: str) -> str:
    if value.strip().upper() in _PATTERN_TYPES:
        return value.strip().upper()
    raise argparse.ArgumentTypeError(
        f"Unknown resource-pattern-type: {value} (valid: any, match, literal, prefixed)"
    )


@dataclass(frozen=True)
class Pattern:
    """A resource pattern (or, with ANY/MATCH or no name, a pattern filter), printed as
    Kafka prints ``ResourcePattern``/``ResourcePatternFilter``."""

    resource_type: str  # TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID; ANY for a filter
    name: str | None
    pattern_type: str

    def __str__(self) -> str:
        name = "<any>" if self.name is None else self.name
        return (
            f"ResourcePattern(resourceType={self.resource_type}, name={name}, "
            f"patternType={self.pattern_type})"
        )

    def key(self) -> tuple[str, str, str]:
        return (self.resource_type, self.name or "", self.pattern_type)


@dataclass(frozen=True)
class Entry:
    """An access control entry, printed as Kafka prints ``AccessControlEntry``."""

    principal: str
    host: str
    operation: str
    permission: str

    def __str__(self) -> str:
        return (
            f"(principal={self.principal}, host={self.host}, operation={self.operation}"
            f", permissionType={self.permission})"
        )


CLUSTER: Final = Pattern("CLUSTER", "kafka-cluster", "LITERAL")
_EVERYTHING: Final = Pattern("ANY", None, "ANY")


class CommandError(SeawayError):
    """A failure printed as ``Error while executing ACL command: ...``."""


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="add, list and remove ACLs (kafka-acls.sh)")
    add_connection(p)
    actions = p.add_mutually_exclusive_group(required=True)
    actions.add_argument("--add", action="store_true", help="add ACLs")
    actions.add_argument("--remove", action="store_true", help="remove ACLs")
    actions.add_argument(
        "--list", action="store_true", help="list ACLs (of the resources given, else all)"
    )
    _add_resources(p)
    _add_entries(p)
    p.add_argument(
        "--producer",
        action="store_true",
        help="producer ACLs: WRITE, DESCRIBE, CREATE on --topic; WRITE, DESCRIBE on "
        "--transactional-id",
    )
    p.add_argument(
        "--idempotent", action="store_true", help="with --producer: IDEMPOTENT_WRITE on the cluster"
    )
    p.add_argument(
        "--consumer",
        action="store_true",
        help="consumer ACLs: READ, DESCRIBE on --topic, READ on --group",
    )
    p.add_argument(
        "--principal",
        action="append",
        default=[],
        metavar="TYPE:NAME",
        help="with --list: only this principal's ACLs (repeatable)",
    )
    p.add_argument("--force", action="store_true", help="do not ask for confirmation")
    p.set_defaults(run=run, usage_error=p.error)


def _add_resources(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--topic", action="append", default=[], help="a topic ('*': all topics; repeatable)"
    )
    p.add_argument(
        "--group",
        action="append",
        default=[],
        help="a consumer group ('*': all groups; repeatable)",
    )
    p.add_argument("--cluster", action="store_true", help="the cluster resource")
    p.add_argument(
        "--transactional-id",
        action="append",
        default=[],
        metavar="ID",
        help="a transactional id ('*': all; repeatable)",
    )
    p.add_argument(
        "--resource-pattern-type",
        type=_pattern_type,
        default="LITERAL",
        metavar="ANY|MATCH|LITERAL|PREFIXED",
        help="literal or prefixed for --add; also any or match for --list and --remove "
        "(default: literal)",
    )


def _add_entries(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--allow-principal",
        action="append",
        default=[],
        metavar="TYPE:NAME",
        help="a principal to allow, e.g. User:alice (repeatable)",
    )
    p.add_argument(
        "--deny-principal",
        action="append",
        default=[],
        metavar="TYPE:NAME",
        help="a principal to deny (repeatable)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="HOST",
        help="hosts --allow-principal may come from (default: *)",
    )
    p.add_argument(
        "--deny-host",
        action="append",
        default=[],
        metavar="HOST",
        help="hosts --deny-principal is denied from (default: *)",
    )
    names = ", ".join(_pascal(o) for o in _OPERATIONS)
    p.add_argument(
        "--operation",
        action="append",
        type=_operation,
        metavar="OPERATION",
        help=f"an operation to allow or deny (repeatable; default All): {names}",
    )


def run(args: argparse.Namespace) -> int:
    usage: Usage = args.usage_error
    _check_args(args, usage)
    try:
        session = _Session(args)
        if args.add:
            _add(session, args, usage)
        elif args.remove:
            _remove(session, args, usage)
        else:
            _list(session, args)
    except CommandError as error:
        print(f"Error while executing ACL command: {error}", file=sys.stderr)
        return 1
    return 0


def _check_args(args: argparse.Namespace, usage: Usage) -> None:
    """The script's checks of the options (each a usage error)."""
    if args.list:
        _invalid_with(args, usage, "list", *_NOT_WITH_LIST)
    for convenience in ("producer", "consumer"):
        if getattr(args, convenience):
            _invalid_with(args, usage, convenience, "operation", "deny_principal", "deny_host")
    if args.principal and not args.list:
        usage("The --principal option is only available if --list is set")
    if args.producer and not args.topic:
        usage("With --producer you must specify a --topic")
    if args.idempotent and not args.producer:
        usage("The --idempotent option is only available if --producer is set")
    if args.consumer and (
        not args.topic
        or not args.group
        or (not args.producer and (args.cluster or args.transactional_id))
    ):
        usage(
            "With --consumer you must specify a --topic and a --group and no --cluster or "
            "--transactional-id option should be specified."
        )


def _invalid_with(args: argparse.Namespace, usage: Usage, used: str, *others: str) -> None:
    for other in others:
        if getattr(args, other):
            usage(f'Option "[{used}]" can\'t be used with option "[{other.replace("_", "-")}]"')


def _principal(value: str) -> str:
    """A ``type:name`` principal, as Kafka parses it."""
    kind, sep, name = value.strip().partition(":")
    if not sep:
        raise CommandError(
            f"expected a string in format principalType:principalName but got {value.strip()}"
        )
    return f"{kind}:{name}"


def _resources(args: argparse.Namespace, usage: Usage | None) -> list[Pattern]:
    """The resources named on the command line (the script's order), as patterns of
    ``--resource-pattern-type``; with *usage*, none is a usage error."""
    kind = args.resource_pattern_type
    found = [Pattern("TOPIC", t.strip(), kind) for t in args.topic]
    if kind == "LITERAL" and (args.cluster or args.idempotent):
        found.append(CLUSTER)
    found += [Pattern("GROUP", g.strip(), kind) for g in args.group]
    found += [Pattern("TRANSACTIONAL_ID", t, kind) for t in args.transactional_id]
    if not found and usage is not None:
        usage(
            "You must provide at least one resource: --topic <topic> or --cluster or "
            "--group <group> or --transactional-id <transactional-id>"
        )
    return list(dict.fromkeys(found))


def _entries(args: argparse.Namespace, operations: Iterable[str]) -> set[Entry]:
    """The entries of ``--allow-*`` and ``--deny-*`` for *operations*."""
    entries = set()
    for permission, principals, hosts in (
        ("ALLOW", args.allow_principal, args.allow_host),
        ("DENY", args.deny_principal, args.deny_host),
    ):
        names = {_principal(p) for p in principals}
        for host in {h.strip() for h in hosts} or {"*"}:
            entries |= {Entry(p, host, op, permission) for p in names for op in operations}
    return entries


def _requested(args: argparse.Namespace, usage: Usage) -> dict[Pattern, set[Entry]]:
    """Each resource with the entries to add (or remove): the ``--operation``s, or those
    ``--producer`` and ``--consumer`` stand for."""
    resources = _resources(args, usage)
    wanted: dict[Pattern, set[Entry]] = {}
    if not args.producer and not args.consumer:
        entries = _entries(args, args.operation or ["ALL"])
        wanted = {resource: set(entries) for resource in resources}
    if args.producer:
        for resource in resources:
            if resource.resource_type == "TOPIC":
                wanted[resource] = _entries(args, ("WRITE", "DESCRIBE", "CREATE"))
            elif resource.resource_type == "TRANSACTIONAL_ID":
                wanted[resource] = _entries(args, ("WRITE", "DESCRIBE"))
        if args.idempotent:
            wanted[CLUSTER] = _entries(args, ("IDEMPOTENT_WRITE",))
    if args.consumer:
        for resource in resources:
            if resource.resource_type == "TOPIC":
                wanted.setdefault(resource, set()).update(_entries(args, ("READ", "DESCRIBE")))
            elif resource.resource_type == "GROUP":
                wanted.setdefault(resource, set()).update(_entries(args, ("READ",)))
    _check_operations(wanted, usage)
    return wanted


def _check_operations(wanted: dict[Pattern, set[Entry]], usage: Usage) -> None:
    for resource, entries in wanted.items():
        valid = _SUPPORTED[resource.resource_type] | {"ALL"}
        if any(e.operation not in valid for e in entries):
            names = ", ".join(o for o in _OPERATIONS if o in valid)
            usage(f"ResourceType {resource.resource_type} only supports operations [{names}]")


def _ordered(entries: Iterable[Entry]) -> list[Entry]:
    """By principal, host, then operation in Kafka's order."""

    def key(e: Entry) -> tuple[str, str, int, str]:
        rank = _OPERATIONS.index(e.operation) if e.operation in _OPERATIONS else 99
        return (e.principal, e.host, rank, e.permission)

    return sorted(entries, key=key)


def _lines(entries: Iterable[Entry]) -> str:
    return "\n".join(f"\t{e}" for e in _ordered(entries))


def _add(session: _Session, args: argparse.Namespace, usage: Usage) -> None:
    if args.resource_pattern_type not in ("LITERAL", "PREFIXED"):
        usage(
            f"A '--resource-pattern-type' value of '{args.resource_pattern_type}' is not "
            "valid when adding acls."
        )
    wanted = _requested(args, usage)
    if any(not entries for entries in wanted.values()):
        usage(
            "You must specify one of: --allow-principal, --deny-principal when trying to add ACLs."
        )
    for resource, entries in wanted.items():
        existing = {e for p, e in session.describe([resource]) if p == resource}
        new = []
        for entry in _ordered(entries):
            if entry in existing:
                print(f"Acl (pattern={resource}, entry={entry}) already exists.")
            else:
                new.append(entry)
        if new:
            print(f"Adding ACLs for resource `{resource}`: \n {_lines(new)}\n")
            session.create(resource, new)


def _remove(session: _Session, args: argparse.Namespace, usage: Usage) -> None:
    for resource, entries in _requested(args, usage).items():
        if entries:
            question = (
                f"Are you sure you want to remove ACLs: \n {_lines(entries)}\n"
                f" from resource filter `{resource}`? (y/n)"
            )
        else:
            question = (
                f"Are you sure you want to delete all ACLs for resource filter `{resource}`? (y/n)"
            )
        if args.force or _confirm(question):
            session.delete(resource, entries)


def _confirm(question: str) -> bool:
    """Ask on stdout, read the answer from stdin: ``y`` (any case) is yes."""
    print(question, flush=True)
    return sys.stdin.readline().strip().lower() == "y"


def _list(session: _Session, args: argparse.Namespace) -> None:
    principals = list(dict.fromkeys(_principal(p) for p in args.principal))
    found = session.describe(_resources(args, None) or [_EVERYTHING])
    if not found:
        session.explain_empty()
    by_resource: dict[Pattern, set[Entry]] = {}
    for resource, entry in found:
        by_resource.setdefault(resource, set()).add(entry)
    if not principals:
        _print_acls(by_resource)
    for principal in principals:
        print(f"ACLs for principal `{principal}`")
        mine = {r: {e for e in es if e.principal == principal} for r, es in by_resource.items()}
        _print_acls({r: es for r, es in mine.items() if es})


def _print_acls(by_resource: dict[Pattern, set[Entry]]) -> None:
    for resource in sorted(by_resource, key=Pattern.key):
        print(f"Current ACLs for resource `{resource}`:\n{_lines(by_resource[resource])}\n")


class _Session:
    """The admin client's ACL calls, in the command's terms; errors as
    :class:`CommandError` with Kafka's exception class and message."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self._authorizer: str | None = None
        self._checked = False

    @functools.cached_property
    def client(self) -> Any:
        """The admin client, made when first needed (after the options are checked)."""
        return admin(self.args)

    def describe(self, filters: Iterable[Pattern]) -> list[tuple[Pattern, Entry]]:
        """The ACLs matching any of *filters* (each resource pattern with any entry)."""
        found: list[tuple[Pattern, Entry]] = []
        for selection in filters:
            future = self.client.describe_acls(_filter(selection, None), request_timeout=TIMEOUT_S)
            found += [_from_binding(b) for b in _result(future)]
        if not found:
            self._check_authorizer()
        return list(dict.fromkeys(found))

    def create(self, resource: Pattern, entries: Iterable[Entry]) -> None:
        bindings = [_binding(resource, e) for e in entries]
        for future in self.client.create_acls(bindings, request_timeout=TIMEOUT_S).values():
            _result(future)

    def delete(self, resource: Pattern, entries: Iterable[Entry]) -> None:
        filters = [_filter(resource, e) for e in entries] or [_filter(resource, None)]
        for future in self.client.delete_acls(filters, request_timeout=TIMEOUT_S).values():
            _result(future)

    def _check_authorizer(self) -> None:
        """An empty DescribeAcls answer may hide SECURITY_DISABLED (librdkafka drops the
        error code): ask the broker for its ``authorizer.class.name``."""
        if not self._checked:
            from seaway.kafka.admin import authorizer_class

            self._authorizer, self._checked = authorizer_class(self.client), True
        if self._authorizer == "":
            raise CommandError(_java_error("SECURITY_DISABLED", None))

    def explain_empty(self) -> None:
        """Say (on stderr) why an empty listing may be incomplete when the broker's
        settings could not be read either (the principal lacks cluster permissions)."""
        if self._authorizer is None:
            print(
                "No ACLs were listed. librdkafka does not report DescribeAcls errors: if "
                "there are ACLs, this principal needs DESCRIBE on the cluster to list them.",
                file=sys.stderr,
            )


def _result(future: Any) -> Any:
    from confluent_kafka import KafkaException

    try:
        return future.result(TIMEOUT_S)
    except KafkaException as exc:
        error = exc.args[0]
        raise CommandError(_java_error(error.name(), error.str())) from None


def _java_error(code: str, message: str | None) -> str:
    """The error as Kafka's script shows it: ``<exception class>: <message>``."""
    if code not in _EXCEPTIONS:
        return message or code
    exception, default = _EXCEPTIONS[code]
    if not message or message.startswith("Broker: "):  # librdkafka's text: none was sent
        message = default
    return f"{_JAVA_ERRORS}{exception}: {message}"


def _binding(resource: Pattern, entry: Entry) -> Any:
    from confluent_kafka.admin import AclBinding

    return AclBinding(*_fields(resource, entry))


def _filter(resource: Pattern, entry: Entry | None) -> Any:
    """A binding filter: *resource* (a pattern filter) with *entry*, or any entry."""
    from confluent_kafka.admin import AclBindingFilter

    return AclBindingFilter(*_fields(resource, entry))


def _fields(resource: Pattern, entry: Entry | None) -> tuple[Any, ...]:
    """AclBinding(Filter)'s arguments; no *entry* is any principal, host, operation and
    permission (None is "any" to librdkafka, whatever the stubs say)."""
    from confluent_kafka.admin import (
        AclOperation,
        AclPermissionType,
        ResourcePatternType,
        ResourceType,
    )

    # librdkafka calls Kafka's CLUSTER resource type (4) BROKER
    kind = "BROKER" if resource.resource_type == "CLUSTER" else resource.resource_type
    pattern = (ResourceType[kind], resource.name, ResourcePatternType[resource.pattern_type])
    if entry is None:
        return (*pattern, None, None, AclOperation.ANY, AclPermissionType.ANY)
    operation, permission = AclOperation[entry.operation], AclPermissionType[entry.permission]
    return (*pattern, entry.principal, entry.host, operation, permission)


def _from_binding(binding: Any) -> tuple[Pattern, Entry]:
    kind = binding.restype.name
    resource = Pattern(
        "CLUSTER" if kind == "BROKER" else kind, binding.name, binding.resource_pattern_type.name
    )
    entry = Entry(
        binding.principal, binding.host, binding.operation.name, binding.permission_type.name
    )
    return resource, entry
