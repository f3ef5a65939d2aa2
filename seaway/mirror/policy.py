"""Remote topic naming: Kafka's ``ReplicationPolicy``, its two implementations, and topology.

A replication policy names the topics MM2 creates on a target cluster and recognises them:

* :class:`DefaultReplicationPolicy` prefixes the source alias, ``us-west.topic1``. The
  separator is ``replication.policy.separator`` (default ``.``). The MM2 internal topics
  (``mm2-offset-syncs.<alias>.internal``, ``<alias>.checkpoints.internal``) use that separator
  too, unless ``replication.policy.internal.topic.separator.enabled=false`` (KIP-949, for
  installations older than KIP-690), which keeps ``.`` for them. The heartbeats topic is always
  ``heartbeats``.
* :class:`IdentityReplicationPolicy` keeps topic names (one-way replication; MM2 cannot detect
  cycles). A topic's source is the configured ``source.cluster.alias``. Heartbeats topics are the
  exception: they are renamed and parsed as :class:`DefaultReplicationPolicy` does, so topology
  discovery still works.

Like Kafka's ``configure``, :meth:`ReplicationPolicy.configure` reads only the keys present,
and ``replication.policy.internal.topic.separator.enabled`` is read only when a separator is
given. :func:`policy_class` resolves ``replication.policy.class``; :func:`replication_policy`
builds and configures one from connector properties.

The functions at the end (:func:`count_hops_for_topic`, :func:`upstream_clusters`,
:func:`remote_topics`, ...) are ``MirrorClient``'s topology queries over a list of topic names.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any, Final

from seaway.config import ConfigException, load_class
from seaway.java.numbers import parse_boolean

REPLICATION_POLICY_CLASS_CONFIG: Final = "replication.policy.class"
SEPARATOR_CONFIG: Final = "replication.policy.separator"
SEPARATOR_DEFAULT: Final = "."
INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG: Final = (
    "replication.policy.internal.topic.separator.enabled"
)
INTERNAL_TOPIC_SEPARATOR_ENABLED_DEFAULT: Final = True
SOURCE_CLUSTER_ALIAS_CONFIG: Final = "source.cluster.alias"
HEARTBEATS_TOPIC: Final = "heartbeats"


class ReplicationPolicy(abc.ABC):
    """Defines which topics are remote topics, and the names of MM2's internal topics."""

    def configure(self, props: Mapping[str, Any]) -> None:  # noqa: B027 - optional hook
        """Apply connector properties; the base policy has none."""

    @abc.abstractmethod
    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        """The name on the target of *topic* replicated from *source_cluster_alias*."""

    @abc.abstractmethod
    def topic_source(self, topic: str) -> str | None:
        """The source cluster alias of a remote topic; None if *topic* is not remote."""

    @abc.abstractmethod
    def upstream_topic(self, topic: str) -> str | None:
        """The topic's name on its source cluster (may itself be remote); None if not remote."""

    def original_topic(self, topic: str) -> str:
        """The topic's name on the cluster it was first written to, across any number of hops."""
        while True:
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            topic = upstream

    def heartbeats_topic(self) -> str:
        """The heartbeats topic name."""
        return HEARTBEATS_TOPIC

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        """The offset-syncs topic name; *cluster_alias* is the cluster at the other end."""
        return f"mm2-offset-syncs.{cluster_alias}.internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        """The checkpoints topic name for checkpoints of groups on *cluster_alias*."""
        return f"{cluster_alias}.checkpoints.internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        """True for ``heartbeats`` and its remote copies (``us-west.heartbeats``, ...)."""
        return self.heartbeats_topic() == self.original_topic(topic)

    def is_checkpoints_topic(self, topic: str) -> bool:
        """True for a checkpoints topic."""
        return topic.endswith(".checkpoints.internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        """True for MM2's own internal topics, which are never replicated."""
        return topic.endswith(".internal")

    def is_internal_topic(self, topic: str) -> bool:
        """True for topics never replicated: MM2's, Kafka's (``__*``, ``.*``) and Connect's."""
        kafka_internal = topic.startswith(("__", "."))
        connect_internal = topic.endswith(("-internal", ".internal"))
        return self.is_mm2_internal_topic(topic) or kafka_internal or connect_internal


class DefaultReplicationPolicy(ReplicationPolicy):
    """Remote topics are ``<source alias><separator><topic>``, for example ``us-west.topic1``."""

    def __init__(self) -> None:
        self._separator: str = SEPARATOR_DEFAULT
        self._internal_topic_separator_enabled: bool = INTERNAL_TOPIC_SEPARATOR_ENABLED_DEFAULT

    @property
    def separator(self) -> str:
        """The separator between the source alias and the topic name."""
        return self._separator

    @property
    def internal_topic_separator_enabled(self) -> bool:
        """Whether the internal topic names use :attr:`separator` rather than ``.``."""
        return self._internal_topic_separator_enabled

    def configure(self, props: Mapping[str, Any]) -> None:
        """Read ``replication.policy.separator`` and, with it, the internal-separator flag."""
        if SEPARATOR_CONFIG in props:
            self._separator = str(props[SEPARATOR_CONFIG])
            if INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG in props:
                enabled = props[INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG]
                self._internal_topic_separator_enabled = parse_boolean(str(enabled))

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return f"{source_cluster_alias}{self._separator}{topic}"

    def topic_source(self, topic: str) -> str | None:
        # Java's String.split(quoted separator): trailing empty parts are dropped, so
        # "topic." and "a.." are not remote, while ".topic" has the empty alias "".
        parts = topic.split(self._separator) if self._separator else list(topic)
        while parts and not parts[-1]:
            parts.pop()
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        if source is None:
            return None
        return topic[len(source) + len(self._separator) :]

    def _internal_separator(self) -> str:
        return self._separator if self._internal_topic_separator_enabled else "."

    def _internal_suffix(self) -> str:
        return f"{self._internal_separator()}internal"

    def _checkpoints_topic_suffix(self) -> str:
        return f"{self._internal_separator()}checkpoints{self._internal_suffix()}"

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return (
            f"mm2-offset-syncs{self._internal_separator()}{cluster_alias}{self._internal_suffix()}"
        )

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return f"{cluster_alias}{self._checkpoints_topic_suffix()}"

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(self._checkpoints_topic_suffix())

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return topic.endswith(self._internal_suffix())


class IdentityReplicationPolicy(DefaultReplicationPolicy):
    """Remote topics keep their names; only heartbeats topics are renamed (as by the default).

    Any topic may be remote, and its source is ``source.cluster.alias`` (None if not set).
    MM2 cannot prevent replication cycles with this policy.
    """

    def __init__(self) -> None:
        super().__init__()
        self._source_cluster_alias: str | None = None

    @property
    def source_cluster_alias(self) -> str | None:
        """The configured ``source.cluster.alias``."""
        return self._source_cluster_alias

    def configure(self, props: Mapping[str, Any]) -> None:
        """Read the separator settings and ``source.cluster.alias``."""
        super().configure(props)
        if SOURCE_CLUSTER_ALIAS_CONFIG in props:
            alias = props[SOURCE_CLUSTER_ALIAS_CONFIG]
            self._source_cluster_alias = None if alias is None else str(alias)

    def _looks_like_heartbeat(self, topic: str | None) -> bool:
        return topic is not None and topic.endswith(self.heartbeats_topic())

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        if self._looks_like_heartbeat(topic):
            return super().format_remote_topic(source_cluster_alias, topic)
        return topic

    def topic_source(self, topic: str) -> str | None:
        if self._looks_like_heartbeat(topic):
            return super().topic_source(topic)
        return self._source_cluster_alias

    def upstream_topic(self, topic: str) -> str | None:
        if self._looks_like_heartbeat(topic):
            return super().upstream_topic(topic)
        return topic


_KAFKA_PACKAGE: Final = "org.apache.kafka.connect.mirror."


def _known_policies() -> dict[str, type[ReplicationPolicy]]:
    names: dict[str, type[ReplicationPolicy]] = {}
    for cls in (DefaultReplicationPolicy, IdentityReplicationPolicy):
        names[_KAFKA_PACKAGE + cls.__name__] = cls
        names[cls.__name__] = cls
    return names


POLICIES: Final[Mapping[str, type[ReplicationPolicy]]] = MappingProxyType(_known_policies())
"""The built-in policies by Kafka class name and simple class name."""


def policy_class(name: str | type) -> type[ReplicationPolicy]:
    """The policy class for a ``replication.policy.class`` value.

    *name* is a Kafka class name, a simple class name, a Python path (``package.module.Class``
    or ``package.module:Class``) or a class. Raises :class:`~seaway.config.ConfigException`.
    """
    if isinstance(name, type):
        cls: type = name
    else:
        text = name.strip()
        found = POLICIES.get(text)
        if found is not None:
            return found
        try:
            cls = load_class(text)
        except (LookupError, ImportError):
            raise ConfigException(
                REPLICATION_POLICY_CLASS_CONFIG, name, f"Class {text} could not be found."
            ) from None
    if not issubclass(cls, ReplicationPolicy):
        raise ConfigException(
            REPLICATION_POLICY_CLASS_CONFIG,
            name,
            f"{cls.__module__}.{cls.__qualname__} is not a ReplicationPolicy",
        )
    return cls


def replication_policy(props: Mapping[str, Any]) -> ReplicationPolicy:
    """A new policy of ``replication.policy.class`` (default: the default policy), configured
    with *props* as Kafka configures it with the connector's original properties."""
    cls = policy_class(props.get(REPLICATION_POLICY_CLASS_CONFIG) or DefaultReplicationPolicy)
    policy = cls()
    policy.configure(props)
    return policy


# Topology queries over topic names (Kafka's MirrorClient).


def count_hops_for_topic(policy: ReplicationPolicy, topic: str, source_cluster_alias: str) -> int:
    """How many replication hops *topic* is from *source_cluster_alias*; -1 if it is not.

    ``source2.source1.topic`` is 1 hop from source2 and 2 from source1. A repeated source
    (possible with identity naming) is taken as a cycle: -1.
    """
    hops = 0
    visited: set[str] = set()
    current: str | None = topic
    while current is not None:
        hops += 1
        source = policy.topic_source(current)
        if source is None:
            return -1
        if source == source_cluster_alias:
            return hops
        if source in visited:
            return -1
        visited.add(source)
        current = policy.upstream_topic(current)
    return -1


def is_remote_topic(policy: ReplicationPolicy, topic: str) -> bool:
    """True for a replicated topic that is not internal."""
    return not policy.is_internal_topic(topic) and policy.topic_source(topic) is not None


def heartbeat_topics(policy: ReplicationPolicy, topics: Iterable[str]) -> set[str]:
    """The heartbeats topics among *topics*: ``heartbeats`` and its remote copies."""
    return {topic for topic in topics if policy.is_heartbeats_topic(topic)}


def checkpoint_topics(policy: ReplicationPolicy, topics: Iterable[str]) -> set[str]:
    """The checkpoints topics among *topics*."""
    return {topic for topic in topics if policy.is_checkpoints_topic(topic)}


def all_sources(policy: ReplicationPolicy, topic: str) -> set[str]:
    """Every cluster alias along *topic*'s replication path (stops at a repeated alias)."""
    sources: set[str] = set()
    current: str | None = topic
    source = policy.topic_source(topic)
    while source is not None and source not in sources:
        sources.add(source)
        current = policy.upstream_topic(current) if current is not None else None
        source = policy.topic_source(current) if current is not None else None
    return sources


def upstream_clusters(policy: ReplicationPolicy, topics: Iterable[str]) -> set[str]:
    """Every cluster replicating into this one, directly or through others (from heartbeats)."""
    clusters: set[str] = set()
    for topic in heartbeat_topics(policy, topics):
        clusters |= all_sources(policy, topic)
    return clusters


def replication_hops(policy: ReplicationPolicy, topics: Iterable[str], upstream_alias: str) -> int:
    """The fewest hops from *upstream_alias* to this cluster, by heartbeats; -1 if unreachable."""
    hops = [
        count_hops_for_topic(policy, t, upstream_alias) for t in heartbeat_topics(policy, topics)
    ]
    reachable = [h for h in hops if h != -1]
    return min(reachable, default=-1)


def remote_topics(
    policy: ReplicationPolicy, topics: Iterable[str], source: str | None = None
) -> set[str]:
    """The remote topics among *topics*; only those replicated directly from *source* if given."""
    return {
        topic
        for topic in topics
        if is_remote_topic(policy, topic)
        and (source is None or policy.topic_source(topic) == source)
    }


__all__ = [
    "HEARTBEATS_TOPIC",
    "INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG",
    "INTERNAL_TOPIC_SEPARATOR_ENABLED_DEFAULT",
    "POLICIES",
    "REPLICATION_POLICY_CLASS_CONFIG",
    "SEPARATOR_CONFIG",
    "SEPARATOR_DEFAULT",
    "SOURCE_CLUSTER_ALIAS_CONFIG",
    "DefaultReplicationPolicy",
    "IdentityReplicationPolicy",
    "ReplicationPolicy",
    "all_sources",
    "checkpoint_topics",
    "count_hops_for_topic",
    "heartbeat_topics",
    "is_remote_topic",
    "policy_class",
    "remote_topics",
    "replication_hops",
    "replication_policy",
    "upstream_clusters",
]
