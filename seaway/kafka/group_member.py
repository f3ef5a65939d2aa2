"""A member of a Kafka group through the generic group APIs, for any protocol type.

Kafka Connect's workers (protocol type ``connect``) are such members: they do not consume,
they only join a group to elect a leader and receive assignments the leader computes
(Kafka's ``AbstractCoordinator``). confluent-kafka exposes only the consumer's own group
protocol, so the requests are sent here with Seaway's Kafka client: FindCoordinator,
JoinGroup (with the ``MEMBER_ID_REQUIRED`` round of v4), SyncGroup, Heartbeat and LeaveGroup.

:meth:`GroupMember.join` runs one rebalance from the caller's thread; a background thread
heartbeats between rebalances and raises :attr:`GroupMember.rejoin_needed` when the
coordinator announces a new rebalance, or when the member lost its place in the group.
"""

from __future__ import annotations

import datetime
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from seaway.kafka.cluster import GROUP, KafkaCluster
from seaway.kafka.connection import KafkaConnectionError
from seaway.kafka.security import PLAINTEXT, ClientSecurity
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError
from seaway.protocol.framing import make, nested

__all__ = ["GroupMember", "Joined", "MemberMetadata"]

log = logging.getLogger(__name__)


# A heartbeat or rebalance with these errors means this member's place is gone: join anew.
_RESET: Final = frozenset(
    {ErrorCode.unknown_member_id, ErrorCode.illegal_generation, ErrorCode.fenced_instance_id}
)


@dataclass(frozen=True, slots=True)
class MemberMetadata:
    """One member as the leader sees it in the JoinGroup response."""

    member_id: str
    metadata: bytes


@dataclass(frozen=True, slots=True)
class Joined:
    """The outcome of one rebalance, for this member."""

    generation: int
    member_id: str
    leader_id: str
    protocol: str
    assignment: bytes

    @property
    def is_leader(self) -> bool:
        return self.member_id == self.leader_id


Assign = Callable[[str, int, Sequence[MemberMetadata]], dict[str, bytes]]
"""The leader's assignor: (chosen protocol, generation, members) -> assignment bytes per
member id. The leader's own member id is :attr:`GroupMember.member_id` by then."""


def _ms(value: int) -> datetime.timedelta:
    return datetime.timedelta(milliseconds=value)


class GroupMember:
    """This process's membership of *group_id* with *protocol_type*."""

    def __init__(
        self,
        bootstrap_servers: str,
        group_id: str,
        protocol_type: str,
        *,
        client_id: str,
        session_timeout_ms: int = 10_000,
        rebalance_timeout_ms: int = 60_000,
        heartbeat_interval_ms: int = 3_000,
        retry_backoff_ms: int = 100,
        security: ClientSecurity = PLAINTEXT,
    ) -> None:
        self.group_id = group_id
        self.protocol_type = protocol_type
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.heartbeat_interval_s = heartbeat_interval_ms / 1000
        self.retry_backoff_s = retry_backoff_ms / 1000
        # A JoinGroup is answered when the whole group has joined: up to the rebalance timeout.
        request_timeout_s = rebalance_timeout_ms / 1000 + 10
        self._cluster = KafkaCluster(
            bootstrap_servers, client_id=client_id, request_timeout_s=request_timeout_s,
            security=security,
        )  # fmt: skip
        self._heartbeats = KafkaCluster(
            bootstrap_servers, client_id=client_id, request_timeout_s=session_timeout_ms / 1000,
            security=security,
        )  # fmt: skip
        self.member_id = ""
        self.generation = -1
        self._lock = threading.Lock()
        self._rejoin = threading.Event()
        self._rejoin.set()
        self._closed = threading.Event()
        self._last_heartbeat = time.monotonic()
        self._thread = threading.Thread(
            target=self._heartbeat_loop, name=f"{client_id}-heartbeat", daemon=True
        )
        self._thread.start()

    # --- state ----------------------------------------------------------------------------

    @property
    def rejoin_needed(self) -> bool:
        """True when this member must join again before its assignment can be trusted."""
        return self._rejoin.is_set()

    def request_rejoin(self) -> None:
        """Have the next :meth:`wait` return so the caller joins again."""
        self._rejoin.set()

    def wait(self, timeout_s: float) -> bool:
        """Wait until a rejoin is needed (True) or *timeout_s* passes (False)."""
        return self._rejoin.wait(timeout_s)

    def seconds_since_heartbeat(self) -> float:
        """How long since the coordinator last answered this member (a heartbeat, even one
        announcing a rebalance, or a join)."""
        return time.monotonic() - self._last_heartbeat

    # --- one rebalance --------------------------------------------------------------------

    def join(self, protocols: Sequence[tuple[str, bytes]], assign: Assign) -> Joined:
        """Join the group (offering *protocols* in preference order) and sync; the leader's
        assignment comes from *assign*. Raises KafkaError or KafkaConnectionError when this
        round failed; the caller backs off and joins again."""
        self._rejoin.clear()
        try:
            joined = self._join_and_sync(protocols, assign)
        except KafkaError:
            self._last_heartbeat = time.monotonic()  # the coordinator answered, with an error
            self._rejoin.set()
            raise
        except BaseException:
            self._rejoin.set()
            raise
        self._last_heartbeat = time.monotonic()
        return joined

    def _join_and_sync(self, protocols: Sequence[tuple[str, bytes]], assign: Assign) -> Joined:
        with self._lock:
            self.generation = -1
        response = self._join_group(protocols)
        if response.error_code == ErrorCode.member_id_required:
            self.member_id = response.member_id  # KIP-394: join again with the given id
            response = self._join_group(protocols)
        code = ErrorCode(response.error_code)
        if code in _RESET:
            self.member_id = ""
        if code != ErrorCode.none:
            raise KafkaError(code, f"JoinGroup({self.group_id})")
        member_id, leader = response.member_id, response.leader
        generation = int(response.generation_id)
        protocol = response.protocol_name or ""
        self.member_id = member_id
        assignments: dict[str, bytes] = {}
        if member_id == leader:
            members = [MemberMetadata(m.member_id, bytes(m.metadata)) for m in response.members]
            assignments = assign(protocol, generation, members)
        assignment = self._sync_group(generation, member_id, protocol, assignments)
        with self._lock:
            self.generation = generation
        log.info(
            "Joined group %s: generation %d, member %s, leader %s, protocol %s",
            self.group_id, self.generation, member_id, leader, protocol,
        )  # fmt: skip
        return Joined(generation, member_id, leader, protocol, assignment)

    def _join_group(self, protocols: Sequence[tuple[str, bytes]]) -> Any:
        connection = self._coordinator(self._cluster)
        cls = connection.request_class(ApiKey.JOIN_GROUP, 1, 7)
        protocol_cls = nested(cls, "JoinGroupRequestProtocol")
        request = make(
            cls,
            group_id=self.group_id,
            session_timeout=_ms(self.session_timeout_ms),
            rebalance_timeout=_ms(self.rebalance_timeout_ms),
            member_id=self.member_id,
            group_instance_id=None,  # Connect never uses static membership
            protocol_type=self.protocol_type,
            protocols=tuple(make(protocol_cls, name=n, metadata=m) for n, m in protocols),
        )
        return self._call(self._cluster, connection, request)

    def _sync_group(
        self, generation: int, member_id: str, protocol: str, assignments: dict[str, bytes]
    ) -> bytes:
        connection = self._coordinator(self._cluster)
        cls = connection.request_class(ApiKey.SYNC_GROUP, 1, 5)
        assignment_cls = nested(cls, "SyncGroupRequestAssignment")
        request = make(
            cls,
            group_id=self.group_id,
            generation_id=generation,
            member_id=member_id,
            group_instance_id=None,
            protocol_type=self.protocol_type,
            protocol_name=protocol,  # v5+: mandatory, the group's (KIP-559)
            assignments=tuple(
                make(assignment_cls, member_id=m, assignment=a) for m, a in assignments.items()
            ),
        )
        response = self._call(self._cluster, connection, request)
        code = ErrorCode(response.error_code)
        if code in _RESET:
            self.member_id = ""
        if code != ErrorCode.none:
            raise KafkaError(code, f"SyncGroup({self.group_id})")
        return bytes(response.assignment)

    # --- heartbeats -----------------------------------------------------------------------

    def _heartbeat_loop(self) -> None:
        while not self._closed.wait(self.heartbeat_interval_s):
            with self._lock:
                generation, member_id = self.generation, self.member_id
            if generation < 0:  # not a member of a generation (joining, or never joined)
                continue
            # Heartbeats go on while a rejoin waits: the coordinator keeps this member while
            # the caller finishes what it must do (stop revoked work) before joining again.
            try:
                connection = self._coordinator(self._heartbeats)
                cls = connection.request_class(ApiKey.HEARTBEAT, 0, 4)
                request = make(
                    cls,
                    group_id=self.group_id,
                    generation_id=generation,
                    member_id=member_id,
                    group_instance_id=None,
                )
                code = ErrorCode(self._call(self._heartbeats, connection, request).error_code)
            except (KafkaError, KafkaConnectionError) as error:
                log.debug("Heartbeat of group %s failed: %s", self.group_id, error)
                continue
            self._last_heartbeat = time.monotonic()  # the coordinator answered
            if code == ErrorCode.rebalance_in_progress:
                if not self._rejoin.is_set():
                    log.info("Group %s is rebalancing: rejoining", self.group_id)
                self._rejoin.set()
            elif code in _RESET:
                with self._lock:
                    if (self.member_id, self.generation) != (member_id, generation):
                        continue  # answered for a generation already left behind
                    self.generation = -1
                    if code != ErrorCode.illegal_generation:
                        self.member_id = ""
                log.info("Group %s no longer knows member %s of generation %d (%s)",
                         self.group_id, member_id, generation, code.name)  # fmt: skip
                self._rejoin.set()
            else:
                log.debug("Heartbeat of group %s answered %s", self.group_id, code.name)

    # --- requests -------------------------------------------------------------------------

    def _coordinator(self, cluster: KafkaCluster) -> Any:
        try:
            return cluster.coordinator(self.group_id, GROUP)
        except (KafkaError, KafkaConnectionError) as error:
            cluster.forget(error)
            raise

    def _call(self, cluster: KafkaCluster, connection: Any, request: Any) -> Any:
        try:
            response = connection.request(request)
        except KafkaConnectionError as error:
            cluster.forget(error)
            raise
        code = getattr(response, "error_code", ErrorCode.none)
        if code in (ErrorCode.not_coordinator, ErrorCode.coordinator_not_available):
            cluster.forget(KafkaError(ErrorCode(code), "coordinator moved"))
        return response

    # --- leaving --------------------------------------------------------------------------

    def leave(self) -> None:
        """Leave the group so the others rebalance at once (best effort)."""
        with self._lock:
            member_id, self.generation = self.member_id, -1
            self.member_id = ""
        self._rejoin.set()
        if not member_id:
            return
        try:
            connection = self._coordinator(self._cluster)
            cls = connection.request_class(ApiKey.LEAVE_GROUP, 0, 4)
            identity_cls = nested(cls, "MemberIdentity") if cls.__version__ >= 3 else None
            members = (
                (make(identity_cls, member_id=member_id, group_instance_id=None, reason=None),)
                if identity_cls
                else ()
            )
            request = make(cls, group_id=self.group_id, member_id=member_id, members=members)
            self._call(self._cluster, connection, request)
            log.info("Left group %s as member %s", self.group_id, member_id)
        except (KafkaError, KafkaConnectionError) as error:
            log.warning("Could not leave group %s: %s", self.group_id, error)

    def close(self) -> None:
        """Leave the group and stop heartbeating."""
        self._closed.set()
        self.leave()
        self._thread.join(5)
        self._cluster.close()
        self._heartbeats.close()
