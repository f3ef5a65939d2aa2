"""The broker's listeners, read as Kafka reads them.

``listeners`` is a list of ``NAME://host:port`` (names are case-insensitive and upper-cased,
an IPv6 host is bracketed, an empty host binds every interface, port 0 a free port); no two
may share a name, nor a port unless one host is an IPv4 and the other an IPv6 address.
``listener.security.protocol.map`` maps each name to PLAINTEXT, SSL, SASL_PLAINTEXT or
SASL_SSL; left unset, it maps those four names to themselves. ``advertised.listeners`` gives
the addresses Metadata hands out per listener name; it may not use ``0.0.0.0``.

A listener's settings are ``listener.name.<name lower>.<key>`` over ``<key>``. A SASL
listener enables ``sasl.enabled.mechanisms`` (Kafka's default, GSSAPI, is not supported);
PLAIN's users are the ``user_<name>="<password>"`` options of the
``listener.name.<name lower>.plain.sasl.jaas.config`` entry, else of the JAAS file's
``<name lower>.KafkaServer`` context, else its ``KafkaServer`` context (the file named by
``KAFKA_OPTS=-Djava.security.auth.login.config=<file>``).

Seaway's own keys and defaults: without ``listeners`` there is one PLAINTEXT listener on
``host:port``. A listener that ``advertised.listeners`` leaves out advertises
``advertised.host``, else its bind address (Kafka would not advertise it at all); an empty
advertised host (Kafka: the machine's name) and a wildcard bind host (``0.0.0.0``, ``::``,
which Kafka refuses to advertise) become ``advertised.host`` or 127.0.0.1.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from seaway.config import ConfigException
from seaway.security.jaas import LoginModule, jaas_file_contexts, jaas_file_path, parse_jaas_config
from seaway.security.sasl import PLAIN
from seaway.security.scram import MECHANISMS as SCRAM_MECHANISMS

__all__ = ["Listener", "parse_listeners"]

log = logging.getLogger(__name__)

PROTOCOLS: Final = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
MECHANISMS: Final = (PLAIN, *SCRAM_MECHANISMS)
_PLAIN_MODULE: Final = "org.apache.kafka.common.security.plain.PlainLoginModule"
_ENDPOINT: Final = re.compile(r"(.+)://\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)")  # Kafka's
_WILDCARDS: Final = ("", "0.0.0.0", "::")
_EXAMPLE: Final = "expected NAME://host:port, e.g. PLAINTEXT://localhost:9092,SSL://[::1]:9093"

Endpoints = dict[str, tuple[str, int]]  # listener name -> (host, port)


@dataclass(frozen=True)
class Listener:
    """One listener: where it binds, what it advertises, how clients must talk to it."""

    name: str
    protocol: str
    host: str
    port: int
    advertised_host: str
    advertised_port: int
    settings: Mapping[str, Any]  # this listener's view of the broker config (prefix applied)
    mechanisms: tuple[str, ...] = ()
    plain_users: Mapping[str, str] | None = None

    @property
    def tls(self) -> bool:
        return self.protocol in ("SSL", "SASL_SSL")

    @property
    def sasl(self) -> bool:
        return self.protocol.startswith("SASL_")

    def with_port(self, port: int) -> Listener:
        """This listener once bound: a port of 0 becomes the one the system chose."""
        advertised = port if self.advertised_port in (0, self.port) else self.advertised_port
        return replace(self, port=port, advertised_port=advertised)


def _csv(value: Any) -> list[str]:
    """A Kafka LIST value (a comma-separated string or already a list), blanks dropped."""
    items = value.split(",") if isinstance(value, str) else list(value or ())
    return [text for item in items if (text := str(item).strip())]


def _endpoints(key: str, value: Any) -> Endpoints:
    """``NAME://host:port,...`` as name -> (host, port), names upper-cased."""
    found: Endpoints = {}
    for item in _csv(value):
        match = _ENDPOINT.fullmatch(item)
        if match is None or int(match[3]) > 65535:
            reason = f"Unable to parse {item} to a broker endpoint; {_EXAMPLE}"
            raise ConfigException(key, value, reason)
        name = match[1].upper()
        if name in found:
            reason = f"Each listener must have a different name, listeners: {value}"
            raise ConfigException(key, value, reason)
        found[name] = (match[2], int(match[3]))
    return found


def _ip_version(host: str) -> int:
    try:
        return ipaddress.ip_address(host).version
    except ValueError:
        return 0


def _check_ports(bound: Endpoints, value: Any) -> None:
    """No two listeners on a port, unless one binds an IPv4 and the other an IPv6 address."""
    ports: dict[int, list[str]] = {}
    for host, port in bound.values():
        if port:
            ports.setdefault(port, []).append(host)
    for port, hosts in ports.items():
        if len(hosts) > 1 and sorted(map(_ip_version, hosts)) != [4, 6]:
            raise ConfigException(
                "listeners",
                value,
                f"Each listener must have a different port, listeners: {value} (two may share port "
                f"{port} only if one has an IPv4 address and the other an IPv6 address)",
            )


def _protocol_map(config: Mapping[str, Any]) -> dict[str, str]:
    """``listener.security.protocol.map`` as name -> protocol; unset, each protocol's own name."""
    key = "listener.security.protocol.map"
    value = config.get(key)
    if value in (None, ""):
        return {p: p for p in PROTOCOLS}
    found = {}
    for item in _csv(value):
        name, colon, protocol = item.rpartition(":")
        if not colon or not name.strip():
            raise ConfigException(key, value, f"expected NAME:PROTOCOL, got {item!r}")
        if protocol.strip().upper() not in PROTOCOLS:
            raise ConfigException(
                f"Invalid security protocol `{protocol.strip()}` defined in {key}: use one of "
                f"{', '.join(PROTOCOLS)}"
            )
        found[name.strip().upper()] = protocol.strip().upper()
    return found


def _check_protocols(bound: Endpoints, protocols: Mapping[str, str], value: Any) -> None:
    for name in bound:
        if name not in protocols:
            raise ConfigException(
                "listeners",
                value,
                f"No security protocol defined for listener {name}: add {name}:<protocol> (one "
                f"of {', '.join(PROTOCOLS)}) to listener.security.protocol.map, which once set "
                "replaces the default mapping of each protocol's own name",
            )


def _check_advertised(advertised: Endpoints, bound: Endpoints, value: Any) -> None:
    if not set(advertised) <= set(bound):
        raise ConfigException(
            "advertised.listeners listener names must be equal to or a subset of the ones "
            f"defined in listeners. Found {','.join(advertised)}. The valid options based on the "
            f"current configuration are {','.join(bound)}"
        )
    for host, _ in advertised.values():
        if host in ("0.0.0.0", "::"):
            raise ConfigException(
                "advertised.listeners",
                value,
                f"advertised.listeners cannot use the nonroutable meta-address {host}. Use a "
                "routable IP address.",
            )


def _advertised_host(host: str, config: Mapping[str, Any]) -> str:
    """The host clients are told for a listener on *host* that nothing else advertises."""
    chosen = str(config.get("advertised.host") or "") or host
    return "127.0.0.1" if chosen in _WILDCARDS else chosen


def _listener_settings(config: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The broker config as listener *name* sees it: its prefixed keys over the plain ones."""
    prefix = f"listener.name.{name.lower()}."
    view = {k: v for k, v in config.items() if not k.startswith("listener.name.")}
    view.update({k[len(prefix) :]: v for k, v in config.items() if k.startswith(prefix)})
    return view


def _mechanisms(
    config: Mapping[str, Any], name: str, settings: Mapping[str, Any]
) -> tuple[str, ...]:
    """The SASL mechanisms listener *name* enables (Kafka's default, GSSAPI, is unsupported)."""
    key = f"listener.name.{name.lower()}.sasl.enabled.mechanisms"
    key = key if key in config else "sasl.enabled.mechanisms"
    value = settings.get("sasl.enabled.mechanisms")
    mechanisms = tuple(_csv("GSSAPI" if value is None else value))
    unknown = [m for m in mechanisms if m not in MECHANISMS]
    if unknown or not mechanisms:
        problem = (
            f"SASL mechanism {', '.join(unknown)} is not supported"
            if unknown
            else f"listener {name} uses SASL but enables no mechanism"
        )
        default = " (GSSAPI is Kafka's default)" if value is None else ""
        raise ConfigException(
            key,
            "GSSAPI" if value is None else value,
            f"{problem}{default}: set {key} to some of {', '.join(MECHANISMS)}",
        )
    return mechanisms


def _plain_module(
    config: Mapping[str, Any], name: str, environ: Mapping[str, str] | None
) -> LoginModule | None:
    """The PLAIN login module of listener *name*: its ``sasl.jaas.config``, else the JAAS file's."""
    inline = config.get(f"listener.name.{name.lower()}.plain.sasl.jaas.config")
    if inline:
        module = parse_jaas_config(str(inline))
        return module if module.name == _PLAIN_MODULE else None
    contexts, context = jaas_file_contexts(environ), f"{name.lower()}.KafkaServer"
    if context not in contexts and "KafkaServer" not in contexts:
        path = jaas_file_path(environ)
        raise ConfigException(
            f"Could not find a 'KafkaServer' or '{context}' entry in the JAAS configuration. "
            f"System property 'java.security.auth.login.config' is {path or 'not set'}: set "
            f"listener.name.{name.lower()}.plain.sasl.jaas.config or KAFKA_OPTS="
            "-Djava.security.auth.login.config=<JAAS file>"
        )
    modules = contexts.get(context, contexts.get("KafkaServer", []))
    return next((m for m in modules if m.name == _PLAIN_MODULE), None)


def _plain_users(
    config: Mapping[str, Any], name: str, environ: Mapping[str, str] | None
) -> dict[str, str]:
    """PLAIN's ``user_<name>="<password>"`` options for listener *name*."""
    module = _plain_module(config, name, environ)
    options = module.options if module else {}
    users = {k[5:]: v for k, v in options.items() if k.startswith("user_")}
    if not users:
        raise ConfigException(
            f"Listener {name} enables PLAIN but has no users: set "
            f"listener.name.{name.lower()}.plain.sasl.jaas.config={_PLAIN_MODULE} required "
            'user_alice="alice-secret";'
        )
    return users


def _listener(
    config: Mapping[str, Any],
    name: str,
    protocol: str,
    bind: tuple[str, int],
    advertised: tuple[str, int] | None,
    environ: Mapping[str, str] | None,
) -> Listener:
    host, port = advertised or bind
    if advertised is None or not host:
        host = _advertised_host(host, config)
    settings = _listener_settings(config, name)
    listener = Listener(name, protocol, *bind, host, port, settings)
    if not listener.sasl:
        return listener
    mechanisms = _mechanisms(config, name, settings)
    prefixed = [f"listener.name.{name.lower()}.{m.lower()}.sasl.jaas.config" for m in mechanisms]
    if settings.get("sasl.jaas.config") and not all(key in config for key in prefixed):
        log.warning(
            "Server config sasl.jaas.config should be prefixed with SASL mechanism name, "
            "ignoring config"
        )
    users = _plain_users(config, name, environ) if PLAIN in mechanisms else None
    return replace(listener, mechanisms=mechanisms, plain_users=users)


def parse_listeners(
    config: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> list[Listener]:
    """The listeners *config* (a broker's originals, typed values merged in) asks for.

    *environ* (default ``os.environ``) holds ``KAFKA_OPTS``, which may name a JAAS file.
    """
    host, port = str(config.get("host", "127.0.0.1")), int(config.get("port", 9092))
    listeners = config.get("listeners")
    bound = _endpoints("listeners", listeners) if listeners else {"PLAINTEXT": (host, port)}
    listeners = listeners or f"PLAINTEXT://{host}:{port}"  # as Kafka's messages would show it
    _check_ports(bound, listeners)
    protocols = _protocol_map(config)
    _check_protocols(bound, protocols, listeners)
    advertised_value = config.get("advertised.listeners")
    advertised = _endpoints("advertised.listeners", advertised_value) if advertised_value else {}
    _check_advertised(advertised, bound, advertised_value)
    return [
        _listener(config, name, protocols[name], bind, advertised.get(name), environ)
        for name, bind in bound.items()
    ]
