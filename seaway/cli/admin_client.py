"""What Seaway's Kafka admin commands (``seaway topics``, ``groups``, ``configs``, ``acls``)
share, after Kafka's scripts: ``--bootstrap-server`` and ``--command-config`` (a client
``.properties`` file with Java settings such as ``security.protocol`` and
``sasl.jaas.config``, translated for librdkafka), so they work against any Kafka, secured
or not; errors printed as the scripts print them, with exit code 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from typing import Any, Final

from seaway.kafka.timeouts import REQUEST_TIMEOUT_S

__all__ = [
    "TIMEOUT_S",
    "add_connection",
    "admin",
    "client_config",
    "fail",
    "key_values",
    "wait_all",
]

TIMEOUT_S: Final = REQUEST_TIMEOUT_S


def add_connection(p: argparse.ArgumentParser) -> None:
    """``--bootstrap-server`` and ``--command-config``, as Kafka's scripts take them."""
    p.add_argument("--bootstrap-server", required=True, metavar="HOST:PORT",
                   help="the Kafka cluster to connect to")  # fmt: skip
    p.add_argument("--command-config", metavar="FILE",
                   help="client settings (.properties, Java names: security.protocol, "
                   "sasl.jaas.config, ssl.truststore.location, ...)")  # fmt: skip


def client_config(args: argparse.Namespace) -> dict[str, str]:
    """The librdkafka settings of ``--bootstrap-server`` and ``--command-config``."""
    from seaway.config.properties import load_properties
    from seaway.kafka.java_config import to_librdkafka

    settings = load_properties(args.command_config) if args.command_config else {}
    return to_librdkafka({**settings, "bootstrap.servers": args.bootstrap_server})


def admin(args: argparse.Namespace) -> Any:
    """An AdminClient for ``--bootstrap-server`` with the ``--command-config`` settings."""
    from seaway.kafka import clients

    return clients.admin(client_config(args))


def wait_all(futures: dict[Any, Any], describe: Callable[[Any], str]) -> list[str]:
    """Wait for every future; the errors, each as ``describe(key): message``."""
    from confluent_kafka import KafkaException

    errors = []
    for key, future in futures.items():
        try:
            future.result(TIMEOUT_S)
        except KafkaException as error:
            errors.append(f"{describe(key)}: {error.args[0].str()}")
    return errors


def key_values(items: Iterable[str], flag: str) -> dict[str, str]:
    """``k=v`` items (each may hold several, comma-separated) as a dict; a malformed item is a
    usage error naming *flag*."""
    out: dict[str, str] = {}
    for item in items:
        for pair in item.split(","):
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise SystemExit(f"Invalid entry {pair!r} for {flag}: write key=value")
            out[key.strip()] = value.strip()
    return out


def fail(message: str) -> int:
    """Print an error as Kafka's scripts do; exit code 1."""
    print(f"Error while executing command: {message}", file=sys.stderr)
    return 1
