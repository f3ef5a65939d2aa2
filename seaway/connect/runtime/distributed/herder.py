"""The herder of a worker in a cluster: group membership, assignments, forwarding, fencing.

Workers with one ``group.id`` are members of a Kafka group of protocol type ``connect``
(:class:`~seaway.kafka.group_member.GroupMember`). Its elected leader assigns connectors to
members with :class:`~seaway.connect.runtime.distributed.assignor.CooperativeAssignor`; each
worker runs what it is assigned and nothing else (a connector and all its tasks, as one
Spark query of this worker's own Spark application). A membership thread joins, applies
assignments (revoked connectors stop before the worker joins again, so no connector runs on
two workers), heartbeats, and joins again when a connector appears or disappears, when the
coordinator starts a rebalance, or when the leader's delay (KIP-415) runs out.

Only the leader writes connector configs, task configs, session keys and task-count
records; a follower raises :class:`~seaway.connect.runtime.herder.NotLeaderError` with the
leader's URL and the REST layer forwards the request, as Kafka's workers do. A connector's
owner publishes its task configs through the leader (``POST /connectors/{c}/tasks``, signed
with the session key, KIP-507) and asks it to fence the zombies of the previous generation
before exactly-once tasks start (``PUT /connectors/{c}/fence``, KIP-618).
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
import time
from collections.abc import Sequence
from typing import Any, Final
from urllib.parse import quote

from seaway.connect.api import SourceConnector
from seaway.connect.api.errors import NotFoundError
from seaway.connect.runtime.distributed import internal_requests
from seaway.connect.runtime.distributed.assignor import CooperativeAssignor
from seaway.connect.runtime.distributed.protocol import (
    CONFIG_MISMATCH,
    CONNECTOR_TASK,
    NO_ERROR,
    SESSIONED,
    Assignment,
    WorkerMetadata,
    protocols_offered,
)
from seaway.connect.runtime.errors import BadRequestError, ConnectRestError
from seaway.connect.runtime.herder import InternalRequest, NotAssignedError, NotLeaderError
from seaway.connect.runtime.herder_state import RunningConnector
from seaway.connect.runtime.storage import SessionKey, TargetState
from seaway.connect.runtime.storage.settings import client_config
from seaway.connect.runtime.worker_herder import WorkerHerder
from seaway.kafka.group_member import GroupMember, Joined, MemberMetadata
from seaway.kafka.security import ClientSecurity

__all__ = ["DistributedHerder"]

log = logging.getLogger(__name__)

PROTOCOL_TYPE: Final = "connect"
_KEY_ALGORITHM: Final = "HmacSHA256"
_KEY_BYTES: Final = 32
_IDLE_S: Final = 0.5
_BACKOFF_S: Final = 1.0
_INTERNAL_RETRY_S: Final = 10.0


class DistributedHerder(WorkerHerder):
    """A worker that runs the connectors its group's leader assigns to it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        config = self.state.config
        self.connect_protocol = str(config.get("connect.protocol")).lower()
        self.member: GroupMember | None = None
        self.assignor = CooperativeAssignor(int(config.get("scheduled.rebalance.max.delay.ms")))
        self._owned: set[str] = set()
        self._owned_lock = threading.Lock()  # never held while a connector starts or stops
        self._assigned_offset = -1  # the config offset the last applied assignment knew
        self._generation = -1
        self._completed_generation = -1
        self._leader_id = ""
        self._leader_url: str | None = None
        self._is_leader = False
        self._owner_urls: dict[str, str] = {}  # leader only: connector -> its worker's URL
        self._protocol_version = 1
        self._rejoin_at: float | None = None
        self._membership: threading.Thread | None = None
        self._stopping_membership = threading.Event()
        self.rebalances = 0
        self._rebalancing = False
        self._rebalance_ms: list[float] = []  # durations of completed rebalances
        self._last_rebalance: float | None = None

    # --- lifecycle --------------------------------------------------------------------------

    def _start_assignment(self) -> None:
        config = self.state.config
        self.member = GroupMember(
            config.bootstrap_servers,
            str(config.get("group.id")),
            PROTOCOL_TYPE,
            client_id=f"connect-{self.worker_id}",
            session_timeout_ms=int(config.get("session.timeout.ms")),
            rebalance_timeout_ms=int(config.get("rebalance.timeout.ms")),
            heartbeat_interval_ms=int(config.get("heartbeat.interval.ms")),
            security=ClientSecurity.from_config(client_config(config.originals)),
        )
        self._membership = threading.Thread(
            target=self._membership_loop, name="connect-group-member", daemon=True
        )
        self._membership.start()
        # Started means a member of the group with its first assignment, so the worker
        # answers at once; requests still wait for readiness if that takes longer.
        if not self._ready.wait(int(config.get("rebalance.timeout.ms")) / 1000):
            log.warning("Worker %s has no assignment from its group yet; requests wait for it",
                        self.worker_id)  # fmt: skip

    def stop(self) -> None:
        """Stop the connectors (flushing offsets), then leave the group and stop."""
        self._stopping_membership.set()
        if self._membership is not None:
            self._membership.join(30)
        super().stop()
        if self.member is not None:
            self.member.close()

    # --- membership -------------------------------------------------------------------------

    def _membership_loop(self) -> None:
        assert self.member is not None
        while not self._stopping_membership.is_set():
            if self._rejoin_at is not None and time.monotonic() >= self._rejoin_at:
                self._rejoin_at = None
                self.member.request_rejoin()
            if self.state.configs.snapshot().connectors_changed_offset > self._assigned_offset:
                # A connector was created or deleted after the config the last assignment
                # was made from (even while that rebalance ran): the leader must place it.
                self.member.request_rejoin()
            if self.member.rejoin_needed:
                try:
                    self._rebalance()
                except Exception as error:
                    log.warning("Rebalance of worker %s failed (%s); joining again",
                                self.worker_id, error)  # fmt: skip
                    self._stopping_membership.wait(_BACKOFF_S)
                    self._lose_everything_if_cut_off()
                continue
            self._lose_everything_if_cut_off()
            self._rotate_session_key()
            self.member.wait(_IDLE_S)

    def _lose_everything_if_cut_off(self) -> None:
        """A worker the group has not heard of for a session timeout stops its work, so it
        cannot run connectors the leader has given to others meanwhile."""
        assert self.member is not None
        with self._owned_lock:
            owned = set(self._owned)
        if owned and not self._heard_from_group():
            log.warning(
                "Worker %s has not reached its group coordinator for %.0f s: stopping its "
                "connectors %s to avoid running them while not a member of the group",
                self.worker_id, self.member.seconds_since_heartbeat(), sorted(owned),
            )  # fmt: skip
            self._revoke(owned)
            self.member.request_rejoin()

    def _heard_from_group(self) -> bool:
        """Whether the coordinator answered this worker within a session timeout."""
        assert self.member is not None
        session_s = int(self.state.config.get("session.timeout.ms")) / 1000
        return self.member.seconds_since_heartbeat() < session_s

    def _metadata(self) -> WorkerMetadata:
        snapshot = self.state.configs.snapshot()
        with self._owned_lock:
            owned = sorted(self._owned)
        allocation = Assignment(
            self._protocol_version, NO_ERROR, self._leader_id, self._leader_url or "",
            snapshot.offset, {c: self._task_ids(snapshot, c) for c in owned},
        )  # fmt: skip
        return WorkerMetadata(self.url, snapshot.offset, allocation)

    @staticmethod
    def _task_ids(snapshot: Any, connector: str) -> list[int]:
        return [CONNECTOR_TASK, *range(snapshot.task_count(connector))]

    def _rebalance(self) -> None:
        assert self.member is not None
        started = time.monotonic()
        joined = self.member.join(
            protocols_offered(self.connect_protocol, self._metadata()), self._assign
        )
        assignment = Assignment.decode(joined.assignment)
        self._rebalancing = True
        try:
            completed = self.rebalances
            self._apply(joined, assignment)
        finally:
            self._rebalancing = False
        if self.rebalances > completed:
            self._last_rebalance = time.monotonic()
            self._rebalance_ms = [*self._rebalance_ms[-99:], (time.monotonic() - started) * 1000]

    def _rebalance_metrics(self) -> dict[str, Any] | None:
        durations = self._rebalance_ms
        snapshot = self.state.configs.snapshot()
        with self._owned_lock:
            owned = set(self._owned)
        return {
            "protocol": "SESSIONED" if self._protocol_version >= 2 else "COMPATIBLE",
            "leader": self._leader_url,
            "epoch": self._generation,
            "completed": self.rebalances,
            "rebalancing": 1.0 if self._rebalancing else 0.0,
            "max_ms": max(durations, default=0.0),
            "avg_ms": sum(durations) / len(durations) if durations else 0.0,
            "last_completed": self._last_rebalance,
            "assigned_connectors": len(owned),
            "assigned_tasks": sum(snapshot.task_count(c) for c in owned),
        }

    def _assign(
        self, protocol: str, generation: int, members: Sequence[MemberMetadata]
    ) -> dict[str, bytes]:
        """The leader's part of a rebalance: an assignment for every member."""
        assert self.member is not None
        leader_id = self.member.member_id
        states = {m.member_id: WorkerMetadata.decode(m.metadata) for m in members}
        version = 2 if protocol == SESSIONED else 1
        wanted = max(s.config_offset for s in states.values())
        snapshot = self.state.configs.snapshot()
        if snapshot.offset < wanted:
            self._catch_up()
            snapshot = self.state.configs.snapshot()
        leader_url = self.url
        if snapshot.offset < wanted:
            log.warning(
                "Was selected to perform assignments, but do not have latest config found in "
                "sync request (have offset %d, members have read %d). Returning an empty "
                "configuration to trigger re-sync.", snapshot.offset, wanted,
            )  # fmt: skip
            return {
                m: Assignment(version, CONFIG_MISMATCH, leader_id, leader_url, wanted).encode()
                for m in states
            }
        plans = self.assignor.assign(
            {m: s.connectors for m, s in states.items()},
            set(snapshot.connectors()),
            generation=generation,
            last_completed_generation=self._completed_generation,
        )
        self._owner_urls = {c: states[m].url for c, m in self.assignor.owners.items()}
        result = {}
        for member, plan in plans.items():
            allocation = states[member].allocation
            revoked_ids = allocation.assigned if allocation else {}
            result[member] = Assignment(
                version, NO_ERROR, leader_id, leader_url, snapshot.offset,
                {c: self._task_ids(snapshot, c) for c in sorted(plan.added)},
                {c: list(revoked_ids.get(c, [CONNECTOR_TASK])) for c in sorted(plan.revoked)},
                plan.delay_ms,
            ).encode()  # fmt: skip
        log.info(
            "Leader %s assigned generation %d: %s", self.worker_id, generation,
            {states[m].url: (sorted(p.added), sorted(p.revoked), p.delay_ms)
             for m, p in plans.items()},
        )  # fmt: skip
        return result

    def _catch_up(self) -> None:
        timeout_s = int(self.state.config.get("worker.sync.timeout.ms")) / 1000
        try:
            self.state.configs.refresh(timeout_s)
        except Exception as error:
            log.warning("Reading the config topic to its end failed: %s", error)

    def _apply(self, joined: Joined, assignment: Assignment) -> None:
        """Apply one member's assignment: stop what is revoked, start what is added."""
        assert self.member is not None
        self._leader_id = assignment.leader
        self._leader_url = assignment.leader_url or None
        self._is_leader = joined.is_leader
        self._generation = joined.generation
        self._protocol_version = assignment.version
        if assignment.error == CONFIG_MISMATCH:
            log.info("The leader's config is behind: catching up and joining again")
            self._catch_up()
            self.member.request_rejoin()
            return
        self._revoke(assignment.revoked_connectors)
        if self.state.configs.snapshot().offset < assignment.config_offset:
            log.info("Catching up to assignment's config offset.")
            self._catch_up()
        snapshot = self.state.configs.snapshot()
        if snapshot.offset < assignment.config_offset:
            log.warning(
                "Current config state offset %d is behind group assignment %d. Forcing "
                "rebalance.", snapshot.offset, assignment.config_offset,
            )  # fmt: skip
            self.member.request_rejoin()
            return
        with self._owned_lock:
            self._owned |= assignment.connectors
            owned = set(self._owned)
        self._assigned_offset = assignment.config_offset
        self._completed_generation = joined.generation
        self.rebalances += 1
        for name in owned | assignment.connectors:
            self.mark(name)
        if assignment.revoked:
            self.member.request_rejoin()  # the follow-up round places what was revoked
        if assignment.delay_ms > 0:
            self._rejoin_at = time.monotonic() + assignment.delay_ms / 1000
        if self._is_leader:
            self._rotate_session_key()
            self._destroy_removed_statuses(snapshot)
        log.info(
            "Worker %s (generation %d, %s) runs %s", self.worker_id, joined.generation,
            "leader" if self._is_leader else f"leader {self._leader_url}", sorted(owned),
        )  # fmt: skip
        self._ready.set()

    def _revoke(self, connectors: set[str]) -> None:
        """Stop *connectors* now, before this worker joins again."""
        if not connectors:
            return
        with self._owned_lock:
            self._owned -= connectors
        with self.state.lock:
            for name in sorted(connectors):
                if name in self.state.running:
                    self.queries.release(name)
        self.state.statuses.flush()

    def _destroy_removed_statuses(self, snapshot: Any) -> None:
        configured = set(snapshot.connectors())
        for connector in self.state.statuses.connectors() - configured:
            self.state.destroy_statuses(connector, ())

    # --- session keys (KIP-507) -------------------------------------------------------------

    def _rotate_session_key(self) -> None:
        if not self._is_leader or self.connect_protocol != SESSIONED:
            return
        key = self.state.configs.snapshot().session_key
        ttl_ms = int(self.state.config.get("inter.worker.key.ttl.ms"))
        now_ms = int(time.time() * 1000)
        if key is not None and key.creation_timestamp + ttl_ms > now_ms:
            return
        try:
            self.state.configs.put_session_key(
                SessionKey(secrets.token_bytes(_KEY_BYTES), _KEY_ALGORITHM, now_ms)
            )
            log.info("Leader %s wrote a new session key", self.worker_id)
        except Exception as error:
            log.warning("Writing a session key failed: %s", error)

    def _signed(self) -> bool:
        return self.connect_protocol == SESSIONED and self._protocol_version >= 2

    def _verify(self, request: InternalRequest) -> None:
        if self._signed():
            internal_requests.verify(
                self.state.configs.snapshot().session_key, request.headers, request.body
            )

    def _send_internal(self, method: str, path: str, body: bytes | None) -> bool:
        """Send an internal request to the leader, signed. Retried for a while (250 ms,
        500 ms, ...); False if the leader did not accept it, so the caller tries again later
        without holding up the herder (a new leader may be on its way)."""
        delay, deadline = 0.25, time.monotonic() + _INTERNAL_RETRY_S
        while not self._stopping.is_set() and time.monotonic() < deadline:
            leader = self._leader_url
            if leader is None:
                self._stopping.wait(delay)
                continue
            headers = {}
            key = self.state.configs.snapshot().session_key
            if self._signed() and key is not None:
                headers = internal_requests.sign(key, body or b"")
            try:
                reply = internal_requests.send(
                    method, leader.rstrip("/") + path, body, headers, timeout_s=60,
                    context=self.rest_client_context,
                )  # fmt: skip
                if reply.status < 300:
                    return True
                message = reply.body.decode("utf-8", "replace")
            except ConnectRestError as error:
                message = error.message
            log.warning("%s %s on leader %s failed: %s; retrying in %.2f s", method, path,
                        leader, message, delay)  # fmt: skip
            self._stopping.wait(delay)
            delay = min(delay * 2, 60.0)
        return False

    def _later(self, name: str, regenerate: bool) -> None:
        """Reconcile connector *name* again in a little while."""
        timer = threading.Timer(_BACKOFF_S, self.mark, (name, regenerate))
        timer.daemon = True
        timer.start()

    # --- the hooks of WorkerHerder ----------------------------------------------------------

    def _owns(self, name: str) -> bool:
        with self._owned_lock:
            return name in self._owned

    def _may_run(self, name: str) -> bool:
        """Owned, and the group has heard from this worker within a session timeout (a
        worker frozen longer may have lost the connector without knowing it yet)."""
        return self._owns(name) and self._heard_from_group()

    def _require_leader(self, message: str) -> None:
        if not self._is_leader:
            raise NotLeaderError(message, self._leader_url)

    def _require_owner(self, name: str) -> None:
        if self._owns(name):
            return
        if self._is_leader:
            owner = self._owner_urls.get(name)
            raise NotAssignedError(f"Connector {name} is not assigned to this worker", owner)
        raise NotLeaderError(f"Cannot restart connector {name}: it runs on another worker",
                             self._leader_url)  # fmt: skip

    def _publish_task_configs(self, name: str, configs: list[dict[str, str]]) -> None:
        if self._is_leader:
            self.state.configs.put_task_configs(name, configs)
            return
        body = json.dumps(configs, separators=(",", ":")).encode("utf-8")
        if self._send_internal("POST", f"/connectors/{_quote(name)}/tasks", body):
            self._catch_up()
        else:
            self._later(name, regenerate=True)

    def _before_exactly_once_start(self, name: str) -> bool:
        if self._is_leader:
            self._fence(name)
            return True
        if self._send_internal("PUT", f"/connectors/{_quote(name)}/fence", None):
            self._catch_up()
            return True
        self._later(name, regenerate=False)
        return False

    def _status_generation(self, run: RunningConnector) -> int:
        return self._group_generation()

    def _group_generation(self) -> int:
        return max(self._generation, 0)

    # --- internal requests ------------------------------------------------------------------

    def put_task_configs(
        self, name: str, configs: list[dict[str, str]], request: InternalRequest
    ) -> None:
        self._verify(request)
        self._require_leader("Only the leader may write task configurations.")
        snapshot = self.state.configs.snapshot()
        if not snapshot.contains(name):
            raise NotFoundError(f"Connector {name} not found")
        if configs and snapshot.target_state(name) is TargetState.STOPPED:
            raise BadRequestError(
                f"Cannot submit non-empty set of task configs for stopped connector {name}"
            )
        self.state.configs.put_task_configs(name, configs)

    def fence_zombies(self, name: str, request: InternalRequest) -> None:
        self._verify(request)
        self._require_leader("Only the leader may perform zombie fencing.")
        self._fence(name)

    def _fence(self, name: str) -> None:
        """Fence the task producers of the connector's previous task generation, then record
        the new task count (Kafka's ``fenceZombieSourceTasks``)."""
        self._catch_up()
        snapshot = self.state.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        if not isinstance(
            self.state.plugins.new_connector(config["connector.class"]), SourceConnector
        ):
            raise BadRequestError(f"Connector {name} is not a source connector")
        if name not in snapshot.pending_fencing:
            return
        recorded = snapshot.task_count_record(name)
        count = snapshot.task_count(name)
        if recorded is not None and not (recorded == 1 and count == 1):
            self.state.worker.fence_producers(
                [f"{self.state.config.get('group.id')}-{name}-{task}" for task in range(recorded)],
                dict(config),
            )
        if self.state.configs.snapshot().task_config_generation(name) != (
            snapshot.task_config_generation(name)
        ):
            raise ConnectRestError(
                409, "Fencing failed because new task configurations were generated for the "
                "connector"
            )  # fmt: skip
        self.state.configs.put_task_count_record(name, count)
        log.info("Fenced the zombies of connector %s (task count %s -> %d)", name, recorded,
                 count)  # fmt: skip


def _quote(name: str) -> str:
    return quote(name, safe="")
