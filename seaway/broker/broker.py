"""The broker: one Kafka-compatible node, its storage, coordinators and listener."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import fcntl
import logging
import os
import ssl
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seaway.broker.authorizer import BrokerAuthorizer, authorizer_settings
from seaway.broker.config import ADMIN_LISTENER, BROKER_CONFIG_DEF, admin_listener_address
from seaway.broker.coordinator.assignors import assignor_name
from seaway.broker.coordinator.consumer_coordinator import ConsumerGroupCoordinator
from seaway.broker.coordinator.group_coordinator import GroupCoordinator
from seaway.broker.coordinator.offsets_topic import OffsetsTopic
from seaway.broker.coordinator.producer_ids import ProducerIdManager
from seaway.broker.coordinator.transaction import TransactionCoordinator
from seaway.broker.listeners import Listener, parse_listeners
from seaway.broker.log.log_cleaner import CleanerConfig, LogCleaner
from seaway.broker.metadata import MetadataStore
from seaway.broker.metrics import BrokerMetrics
from seaway.broker.quotas import ClientQuotas
from seaway.broker.scram_users import ScramUsers, parse_add_scram
from seaway.broker.server import Connection
from seaway.broker.topics import TopicManager
from seaway.security.tls import TlsSettings

if TYPE_CHECKING:
    from seaway.broker.admin_server import AdminServer

log = logging.getLogger(__name__)

__all__ = ["Broker"]

CLEAN_SHUTDOWN_MARKER = ".clean-shutdown"
_SESSION_CHECK_S = 0.5


def _new_cluster_id() -> str:
    """A random 22-character URL-safe id, as ``kafka-storage random-uuid`` prints."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


def _tls_context(listener: Listener, originals: Mapping[str, Any]) -> ssl.SSLContext:
    """An SSL or SASL_SSL listener's context, from ``listener.name.<l>.ssl.*`` over ``ssl.*``.
    As in Kafka, the broker-wide ``ssl.client.auth`` applies to SSL listeners only."""
    prefix = f"listener.name.{listener.name.lower()}."
    settings = TlsSettings.prefixed(originals, prefix)
    if listener.sasl and prefix + "ssl.client.auth" not in originals:
        if settings.values.get("ssl.client.auth", "none").lower() != "none":
            log.warning(
                "Broker configuration 'ssl.client.auth' is not applied to listener %s: set "
                "%sssl.client.auth to require client certificates on a SASL_SSL listener",
                listener.name,
                prefix,
            )
        settings = TlsSettings({**settings.values, "ssl.client.auth": "none"})
    owner = f"Listener {listener.name} (which reads {prefix}ssl.* over ssl.*)"
    return settings.server_context(owner, prefix="")


class Broker:
    """A single-node Kafka-wire-compatible broker.

    >>> broker = Broker({"log.dirs": "/tmp/seaway", "port": 0})
    >>> await broker.start()            # doctest: +SKIP
    >>> broker.bootstrap_servers        # doctest: +SKIP
    '127.0.0.1:40123'
    """

    def __init__(self, config: Mapping[str, Any]) -> None:
        known = {
            k: v
            for k, v in config.items()
            if k in BROKER_CONFIG_DEF or k.startswith("listener.name.")
        }
        for key in sorted(set(config) - set(known)):
            log.warning("Ignoring unknown broker config %s", key)
        self.config_originals: dict[str, Any] = dict(known)
        self.config_values: dict[str, Any] = BROKER_CONFIG_DEF.parse(
            {k: v for k, v in known.items() if k in BROKER_CONFIG_DEF}
        )
        v = self.config_values
        self.node_id: int = v["node.id"]
        self.host: str = v["host"]
        set_values = {k: x for k, x in v.items() if x not in (None, "")}
        specs = parse_listeners({**set_values, **known})
        self._tls = {x.name: _tls_context(x, known) for x in specs if x.tls}
        # name -> listener; ports chosen by the system are filled in by start()
        self.bound_listeners: dict[str, Listener] = {x.name: x for x in specs}
        scram = v["seaway.scram.credentials"]
        self._add_scram = parse_add_scram(scram.value) if scram is not None else {}
        self._authorizer_settings = authorizer_settings(v)
        self._primary = next((x.name for x in specs if x.protocol == "PLAINTEXT"), specs[0].name)
        self.data_dir = Path(v["log.dirs"]).resolve()
        self.auto_create: bool = v["auto.create.topics.enable"]
        self.default_partitions: int = v["num.partitions"]
        self.delete_topic_enable: bool = v["delete.topic.enable"]
        self.stopping = False
        self._servers: list[asyncio.Server] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._connections: set[asyncio.Task[None]] = set()
        self._lock_fd: int | None = None
        self.admin: AdminServer | None = None  # the admin.listener's server, once started

    @property
    def advertised_host(self) -> str:
        return self.bound_listeners[self._primary].advertised_host

    @property
    def port(self) -> int:
        return self.bound_listeners[self._primary].advertised_port

    @property
    def bootstrap_servers(self) -> str:
        """The first PLAINTEXT listener's address (else the first listener's)."""
        return f"{self.advertised_host}:{self.port}"

    @property
    def listeners(self) -> dict[str, str]:
        """Listener name -> the ``host:port`` it advertises (bound ports once started)."""
        return {
            n: f"{x.advertised_host}:{x.advertised_port}" for n, x in self.bound_listeners.items()
        }

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the data directory (recovering it after a crash) and start listening."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._lock_data_dir()
        marker = self.data_dir / CLEAN_SHUTDOWN_MARKER
        clean = marker.exists() or not (self.data_dir / "metadata.db").exists()
        started = time.monotonic()
        self.store = MetadataStore(self.data_dir / "metadata.db")
        self.cluster_id = self.store.cluster_value(
            "cluster.id", self.config_values["cluster.id"] or _new_cluster_id()
        )
        self.scram = ScramUsers(self.store)
        if self._add_scram:
            self.scram.alter(self._add_scram, ())
        self.quotas = ClientQuotas(
            self.store,
            self.config_values["quota.window.num"],
            self.config_values["quota.window.size.seconds"],
        )
        self.authorizer: BrokerAuthorizer | None = None
        if self._authorizer_settings is not None:
            self.authorizer = BrokerAuthorizer(self.store, *self._authorizer_settings)
        self.topics = TopicManager(self.data_dir, self.store, self.config_values, recover=not clean)
        marker.unlink(missing_ok=True)
        v = self.config_values
        self.groups = GroupCoordinator(
            self.store,
            initial_delay_ms=v["group.initial.rebalance.delay.ms"],
            min_session_timeout_ms=v["group.min.session.timeout.ms"],
            max_session_timeout_ms=v["group.max.session.timeout.ms"],
            max_group_size=v["group.max.size"],
            metadata_max_bytes=v["offset.metadata.max.bytes"],
            offsets_topic=OffsetsTopic(self.topics, v["offsets.topic.num.partitions"]),
            consumer=ConsumerGroupCoordinator(
                self.topics,
                session_timeout_ms=v["group.consumer.session.timeout.ms"],
                heartbeat_interval_ms=v["group.consumer.heartbeat.interval.ms"],
                assignors=[assignor_name(a) for a in v["group.consumer.assignors"]],
                max_size=v["group.consumer.max.size"],
            ),
        )
        self.producer_ids = ProducerIdManager(self.store)
        self.transactions = TransactionCoordinator(
            self.store,
            self.topics,
            self.groups,
            self.producer_ids,
            max_timeout_ms=v["transaction.max.timeout.ms"],
        )
        self.metrics = BrokerMetrics(self, self.bound_listeners, asyncio.get_running_loop())
        admin = admin_listener_address(v[ADMIN_LISTENER])
        if admin is not None:
            from seaway.broker.admin_server import AdminServer

            interval_s = v["admin.history.interval.ms"] / 1000
            self.admin = AdminServer(self.metrics, *admin, interval_s=interval_s)
            await asyncio.get_running_loop().run_in_executor(None, self.admin.start)
        for name, spec in list(self.bound_listeners.items()):
            server = await asyncio.start_server(
                partial(self._accept, name), spec.host or None, spec.port, ssl=self._tls.get(name)
            )
            self._servers.append(server)
            self.bound_listeners[name] = spec.with_port(server.sockets[0].getsockname()[1])
        self._schedule(v["log.retention.check.interval.ms"] / 1000, self._enforce_retention)
        self.cleaner = LogCleaner(self.topics.all_partitions, CleanerConfig.from_values(v))
        self.cleaner.start()
        self._schedule(v["log.flush.scheduler.interval.ms"] / 1000, self._flush_by_time)
        self._schedule(_SESSION_CHECK_S, self._expire_sessions)
        self._schedule(v["offsets.retention.check.interval.ms"] / 1000, self._expire_offsets)
        self._schedule(
            v["transaction.abort.timed.out.transaction.cleanup.interval.ms"] / 1000,
            self._abort_expired_transactions,
        )
        log.info(
            "Seaway broker %d (cluster %s) listening on %s (%s), data in %s%s (%.2fs)%s",
            self.node_id,
            self.cluster_id,
            self.bootstrap_servers,
            ", ".join(f"{n}={a}" for n, a in self.listeners.items()),
            self.data_dir,
            "" if clean else " after recovery",
            time.monotonic() - started,
            f"; admin API at {self.admin.url}" if self.admin is not None else "",
        )

    async def stop(self) -> None:
        """Stop listening, finish, flush every log and mark the shutdown clean."""
        if not self._servers:
            return
        self.stopping = True
        if self.admin is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.admin.stop)
            self.admin = None
        for server in self._servers:
            server.close()
        for task in [*self._tasks, *self._connections]:
            task.cancel()
        await asyncio.gather(*self._tasks, *self._connections, return_exceptions=True)
        await self.groups.close()
        await self.cleaner.stop()
        self.topics.close()
        self.store.close()
        (self.data_dir / CLEAN_SHUTDOWN_MARKER).touch()
        self._unlock_data_dir()
        self._servers = []
        log.info("Seaway broker %d stopped", self.node_id)

    async def serve_forever(self) -> None:
        assert self._servers
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*(server.serve_forever() for server in self._servers))

    def _lock_data_dir(self) -> None:
        fd = os.open(self.data_dir / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise RuntimeError(
                f"{self.data_dir} is in use by another broker: give this one its own log.dirs"
            ) from None
        self._lock_fd = fd

    def _unlock_data_dir(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # -- connections -----------------------------------------------------------------------

    async def _accept(
        self, listener: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        self.metrics.connected(listener, 1)
        try:
            await Connection(self, reader, writer, self.bound_listeners[listener]).serve()
        except asyncio.CancelledError:
            pass  # shutting down: the connection is closed by serve()
        finally:
            self._connections.discard(task)
            self.metrics.connected(listener, -1)

    # -- background work -------------------------------------------------------------------

    def _schedule(self, interval_s: float, fn: Callable[[], Awaitable[None] | None]) -> None:
        self._tasks.append(asyncio.create_task(run_every(interval_s, fn), name=fn.__name__))

    def _enforce_retention(self) -> None:
        now = int(time.time() * 1000)
        for _, _, plog in self.topics.all_partitions():
            plog.delete_old_segments(now)

    async def _flush_by_time(self) -> None:
        due = [p for _, _, p in self.topics.all_partitions() if p.flush_due()]
        if due:
            await asyncio.get_running_loop().run_in_executor(None, _flush, due)

    def _expire_sessions(self) -> None:
        self.groups.expire_sessions()

    def _abort_expired_transactions(self) -> None:
        self.transactions.abort_expired()

    def _expire_offsets(self) -> None:
        self.groups.expire_offsets(self.config_values["offsets.retention.minutes"] * 60000)


async def run_every(interval_s: float, fn: Callable[[], Awaitable[None] | None]) -> None:
    """Run *fn* every *interval_s* until cancelled. A failure is logged with its traceback
    once; the same failure again (a failing disk, every flush) only at DEBUG until a run
    succeeds, which is logged too."""
    failing: str | None = None
    while True:
        await asyncio.sleep(interval_s)
        try:
            result = fn()
            if result is not None:
                await result
        except Exception as error:
            again = failing == repr(error)
            failing = repr(error)
            if again:
                log.debug("Background task %s failed again: %s", fn.__name__, error)
            else:
                log.exception("Background task %s failed (logged once while it fails the "
                              "same way)", fn.__name__)  # fmt: skip
            continue
        if failing is not None:
            log.info("Background task %s works again", fn.__name__)
            failing = None


def _flush(logs: list[Any]) -> None:
    for plog in logs:
        plog.flush()
