"""Replication policies and MirrorClient's topology queries (Kafka's ReplicationPolicyTest,
MirrorClientTest and the behaviour of DefaultReplicationPolicy/IdentityReplicationPolicy)."""

from __future__ import annotations

from collections import OrderedDict

import pytest

from seaway.config import ConfigException
from seaway.mirror.policy import (
    INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG,
    POLICIES,
    REPLICATION_POLICY_CLASS_CONFIG,
    SEPARATOR_CONFIG,
    SOURCE_CLUSTER_ALIAS_CONFIG,
    DefaultReplicationPolicy,
    IdentityReplicationPolicy,
    ReplicationPolicy,
    checkpoint_topics,
    count_hops_for_topic,
    heartbeat_topics,
    policy_class,
    remote_topics,
    replication_hops,
    replication_policy,
    upstream_clusters,
)


def identity(source: str | None = "source") -> IdentityReplicationPolicy:
    policy = IdentityReplicationPolicy()
    policy.configure({SOURCE_CLUSTER_ALIAS_CONFIG: source})
    return policy


def separated(separator: str, internal_enabled: object = None) -> DefaultReplicationPolicy:
    props: dict[str, object] = {SEPARATOR_CONFIG: separator}
    if internal_enabled is not None:
        props[INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG] = internal_enabled
    policy = DefaultReplicationPolicy()
    policy.configure(props)
    return policy


class TestDefaultNaming:
    def test_remote_topic_chain(self) -> None:
        policy = DefaultReplicationPolicy()
        assert policy.format_remote_topic("A", "topic") == "A.topic"
        assert policy.format_remote_topic("A", "B.topic") == "A.B.topic"
        assert policy.topic_source("A.B.topic") == "A"
        assert policy.upstream_topic("A.B.topic") == "B.topic"
        assert policy.upstream_topic("B.topic") == "topic"
        assert policy.original_topic("A.B.topic") == "topic"

    def test_local_topic(self) -> None:
        policy = DefaultReplicationPolicy()
        assert policy.topic_source("topic") is None
        assert policy.upstream_topic("topic") is None
        assert policy.original_topic("topic") == "topic"

    @pytest.mark.parametrize(
        ("topic", "source", "upstream"),
        [
            ("topic.", None, None),  # Java's split drops trailing empty strings
            ("a..", None, None),
            ("...", None, None),
            ("", None, None),
            (".topic", "", "topic"),  # a leading empty string is kept: alias ""
            ("a..b", "a", ".b"),
            ("a.b.", "a", "b."),
        ],
    )
    def test_java_split_edge_cases(
        self, topic: str, source: str | None, upstream: str | None
    ) -> None:
        policy = DefaultReplicationPolicy()
        assert policy.topic_source(topic) == source
        assert policy.upstream_topic(topic) == upstream

    def test_underscore_separator(self) -> None:
        policy = separated("_")
        assert policy.format_remote_topic("A", "my_topic") == "A_my_topic"
        assert policy.topic_source("A_B_my_topic") == "A"
        assert policy.upstream_topic("A_B_my_topic") == "B_my_topic"
        assert policy.original_topic("A_B_my_topic") == "topic"  # underscores are separators
        assert policy.topic_source("A.topic") is None

    def test_double_underscore_separator(self) -> None:
        policy = separated("__")
        assert policy.format_remote_topic("source1", "topic") == "source1__topic"
        assert policy.topic_source("source1__source2__topic") == "source1"
        assert policy.upstream_topic("source1__source2__topic") == "source2__topic"
        assert policy.original_topic("source1__source2__topic") == "topic"
        assert policy.topic_source("my_topic") is None
        # left-to-right, non-overlapping matches, as Java's regex split
        assert policy.topic_source("a___b") == "a"
        assert policy.upstream_topic("a___b") == "_b"

    def test_regex_characters_are_literal(self) -> None:
        policy = separated("|")
        assert policy.topic_source("a|b") == "a"
        assert policy.topic_source("ab") is None


class TestInternalTopics:
    def test_internal_topic(self) -> None:
        # ReplicationPolicyTest.testInternalTopic
        policy = DefaultReplicationPolicy()
        assert policy.is_internal_topic("__consumer_offsets")
        assert policy.is_internal_topic(".hiddentopic")
        assert policy.is_internal_topic("mm2-offsets.CLUSTER.internal")
        assert policy.is_internal_topic("mm2-offsets-CLUSTER-internal")
        assert not policy.is_internal_topic("mm2-offsets_CLUSTER_internal")

    def test_default_internal_topic_names(self) -> None:
        policy = DefaultReplicationPolicy()
        assert policy.offset_syncs_topic("B") == "mm2-offset-syncs.B.internal"
        assert policy.checkpoints_topic("A") == "A.checkpoints.internal"
        assert policy.heartbeats_topic() == "heartbeats"

    def test_offset_syncs_topic_follows_internal_separator_flag(self) -> None:
        assert separated("__", False).offset_syncs_topic("CLUSTER") == (
            "mm2-offset-syncs.CLUSTER.internal"
        )
        assert separated("__", True).offset_syncs_topic("CLUSTER") == (
            "mm2-offset-syncs__CLUSTER__internal"
        )
        assert (
            separated("__").offset_syncs_topic("CLUSTER") == "mm2-offset-syncs__CLUSTER__internal"
        )

    def test_checkpoints_topic_follows_internal_separator_flag(self) -> None:
        assert separated("__", False).checkpoints_topic("CLUSTER") == "CLUSTER.checkpoints.internal"
        assert (
            separated("__", True).checkpoints_topic("CLUSTER") == "CLUSTER__checkpoints__internal"
        )

    def test_heartbeats_topic_ignores_internal_separator_flag(self) -> None:
        assert separated("__", True).heartbeats_topic() == "heartbeats"
        assert separated("__", False).heartbeats_topic() == "heartbeats"

    def test_custom_separator_recognises_its_internal_topics(self) -> None:
        policy = separated("__")
        assert policy.is_checkpoints_topic("A__checkpoints__internal")
        assert not policy.is_checkpoints_topic("A.checkpoints.internal")
        assert policy.is_mm2_internal_topic("mm2-offset-syncs__B__internal")
        assert not policy.is_mm2_internal_topic("mm2-offset-syncs.B.internal")
        assert policy.is_internal_topic("mm2-offset-syncs__B__internal")  # KAFKA-13397
        assert policy.is_internal_topic("mm2-offset-syncs.B.internal")  # Connect's rule
        assert not policy.is_internal_topic("A__topic")

    def test_separator_disabled_for_internal_topics(self) -> None:
        policy = separated("__", "false")
        assert policy.is_checkpoints_topic("A.checkpoints.internal")
        assert not policy.is_checkpoints_topic("A__checkpoints__internal")
        assert policy.is_mm2_internal_topic("mm2-offset-syncs.B.internal")
        assert policy.format_remote_topic("A", "t") == "A__t"  # data topics keep the separator

    @pytest.mark.parametrize(
        ("value", "enabled"), [("TRUE", True), ("False", False), ("no", False)]
    )
    def test_flag_is_parsed_like_java_parse_boolean(self, value: str, enabled: bool) -> None:
        assert separated("__", value).internal_topic_separator_enabled is enabled

    def test_flag_is_read_only_with_a_separator(self) -> None:
        policy = DefaultReplicationPolicy()
        policy.configure({INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG: "false"})
        assert policy.internal_topic_separator_enabled
        assert policy.offset_syncs_topic("B") == "mm2-offset-syncs.B.internal"

    def test_configure_keeps_earlier_settings(self) -> None:
        policy = separated("__")
        policy.configure({})
        assert policy.separator == "__"
        policy.configure({INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG: False})
        assert policy.internal_topic_separator_enabled  # no separator in this call


class TestHeartbeatsAndCheckpointsTopics:
    def test_is_heartbeat_topic(self) -> None:
        # MirrorClientTest.testIsHeartbeatTopic
        policy = DefaultReplicationPolicy()
        assert policy.is_heartbeats_topic("heartbeats")
        assert policy.is_heartbeats_topic("source1.heartbeats")
        assert policy.is_heartbeats_topic("source2.source1.heartbeats")
        assert not policy.is_heartbeats_topic("heartbeats!")
        assert not policy.is_heartbeats_topic("!heartbeats")
        assert not policy.is_heartbeats_topic("source1heartbeats")
        assert not policy.is_heartbeats_topic("source1-heartbeats")

    def test_is_checkpoint_topic(self) -> None:
        # MirrorClientTest.testIsCheckpointTopic
        policy = DefaultReplicationPolicy()
        assert policy.is_checkpoints_topic("source1.checkpoints.internal")
        assert not policy.is_checkpoints_topic("checkpoints.internal")
        assert not policy.is_checkpoints_topic("checkpoints-internal")
        assert not policy.is_checkpoints_topic("checkpoints.internal!")
        assert not policy.is_checkpoints_topic("!checkpoints.internal")
        assert not policy.is_checkpoints_topic("source1checkpointsinternal")

    def test_topic_source_of_internal_topics(self) -> None:
        policy = DefaultReplicationPolicy()
        assert policy.topic_source("source1.checkpoints.internal") == "source1"
        assert policy.topic_source("mm2-offset-syncs.B.internal") == "mm2-offset-syncs"
        assert policy.topic_source("heartbeats") is None
        assert policy.topic_source("__consumer_offsets") is None


class TestIdentityPolicy:
    def test_topic_source(self) -> None:
        # MirrorClientTest.testIdentityReplicationTopicSource
        policy = identity("primary")
        assert policy.format_remote_topic("primary", "topic1") == "topic1"
        assert policy.topic_source("topic1") == "primary"
        assert policy.format_remote_topic("backup", "heartbeats") == "backup.heartbeats"
        assert policy.topic_source("backup.heartbeats") == "backup"

    def test_any_topic_is_its_own_upstream(self) -> None:
        policy = identity("primary")
        assert policy.upstream_topic("topic1") == "topic1"
        assert policy.original_topic("topic1") == "topic1"
        assert policy.upstream_topic("a.b") == "a.b"

    def test_heartbeats_like_the_default_policy(self) -> None:
        policy = identity("primary")
        assert policy.topic_source("heartbeats") is None
        assert policy.upstream_topic("heartbeats") is None
        assert policy.upstream_topic("b.a.heartbeats") == "a.heartbeats"
        assert policy.original_topic("b.a.heartbeats") == "heartbeats"
        assert policy.is_heartbeats_topic("heartbeats")
        assert policy.is_heartbeats_topic("b.a.heartbeats")
        # ends with "heartbeats", so parsed as a remote heartbeats name, which it is not
        assert policy.topic_source("myheartbeats") is None
        assert not policy.is_heartbeats_topic("myheartbeats")

    def test_heartbeats_use_the_configured_separator(self) -> None:
        policy = IdentityReplicationPolicy()
        policy.configure({SEPARATOR_CONFIG: "_", SOURCE_CLUSTER_ALIAS_CONFIG: "primary"})
        assert policy.format_remote_topic("backup", "heartbeats") == "backup_heartbeats"
        assert policy.topic_source("backup_heartbeats") == "backup"
        assert policy.format_remote_topic("backup", "a_b") == "a_b"

    def test_without_source_alias(self) -> None:
        policy = IdentityReplicationPolicy()
        assert policy.source_cluster_alias is None
        assert policy.topic_source("topic1") is None
        assert policy.format_remote_topic("x", "topic1") == "topic1"

    def test_internal_topics_as_the_default_policy(self) -> None:
        policy = identity("primary")
        assert policy.checkpoints_topic("primary") == "primary.checkpoints.internal"
        assert policy.offset_syncs_topic("backup") == "mm2-offset-syncs.backup.internal"
        assert policy.is_internal_topic("primary.checkpoints.internal")


class MinimalPolicy(ReplicationPolicy):
    """Only the abstract methods: every other method is the interface's default."""

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return f"{source_cluster_alias}+{topic}"

    def topic_source(self, topic: str) -> str | None:
        return topic.split("+", 1)[0] if "+" in topic else None

    def upstream_topic(self, topic: str) -> str | None:
        return topic.split("+", 1)[1] if "+" in topic else None


def test_interface_defaults() -> None:
    policy = MinimalPolicy()
    policy.configure({"anything": 1})
    assert policy.original_topic("a+b+t") == "t"
    assert policy.heartbeats_topic() == "heartbeats"
    assert policy.is_heartbeats_topic("a+heartbeats")
    assert policy.offset_syncs_topic("B") == "mm2-offset-syncs.B.internal"
    assert policy.checkpoints_topic("A") == "A.checkpoints.internal"
    assert policy.is_checkpoints_topic("A.checkpoints.internal")
    assert policy.is_mm2_internal_topic("x.internal")
    assert policy.is_internal_topic("x-internal")
    assert not policy.is_internal_topic("a+t")


def test_abstract_methods_are_required() -> None:
    with pytest.raises(TypeError):
        ReplicationPolicy()  # type: ignore[abstract]


class TestPolicyClass:
    @pytest.mark.parametrize(
        ("name", "expected"),
        [
            ("org.apache.kafka.connect.mirror.DefaultReplicationPolicy", DefaultReplicationPolicy),
            (
                "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
                IdentityReplicationPolicy,
            ),
            ("DefaultReplicationPolicy", DefaultReplicationPolicy),
            (" IdentityReplicationPolicy ", IdentityReplicationPolicy),
            ("seaway.mirror.policy.IdentityReplicationPolicy", IdentityReplicationPolicy),
            ("seaway.mirror.policy:DefaultReplicationPolicy", DefaultReplicationPolicy),
            (f"{__name__}.MinimalPolicy", MinimalPolicy),
            (MinimalPolicy, MinimalPolicy),
        ],
    )
    def test_resolves(self, name: str | type, expected: type) -> None:
        assert policy_class(name) is expected

    def test_known_names(self) -> None:
        assert set(POLICIES) == {
            "org.apache.kafka.connect.mirror.DefaultReplicationPolicy",
            "org.apache.kafka.connect.mirror.IdentityReplicationPolicy",
            "DefaultReplicationPolicy",
            "IdentityReplicationPolicy",
        }

    @pytest.mark.parametrize(
        "name",
        ["org.example.MyPolicy", "NoSuchPolicy", "seaway.mirror.policy.Nope", "nosuchmodule.X"],
    )
    def test_unknown_class(self, name: str) -> None:
        with pytest.raises(ConfigException) as info:
            policy_class(name)
        assert str(info.value) == (
            f"Invalid value {name} for configuration replication.policy.class: "
            f"Class {name} could not be found."
        )

    def test_not_a_policy(self) -> None:
        with pytest.raises(
            ConfigException, match=r"collections.OrderedDict is not a ReplicationPolicy"
        ):
            policy_class("collections.OrderedDict")
        with pytest.raises(ConfigException, match=r"is not a ReplicationPolicy"):
            policy_class(OrderedDict)

    def test_replication_policy_from_props(self) -> None:
        policy = replication_policy({SEPARATOR_CONFIG: "_", "other": "ignored"})
        assert type(policy) is DefaultReplicationPolicy
        assert policy.format_remote_topic("A", "t") == "A_t"
        identity_class = "org.apache.kafka.connect.mirror.IdentityReplicationPolicy"
        policy = replication_policy(
            {
                REPLICATION_POLICY_CLASS_CONFIG: identity_class,
                SOURCE_CLUSTER_ALIAS_CONFIG: "primary",
            }
        )
        assert isinstance(policy, IdentityReplicationPolicy)
        assert policy.topic_source("t") == "primary"


# MirrorClientTest's topology queries.


def test_count_hops_for_topic() -> None:
    policy = DefaultReplicationPolicy()
    assert count_hops_for_topic(policy, "topic", "source") == -1
    assert count_hops_for_topic(policy, "source", "source") == -1
    assert count_hops_for_topic(policy, "sourcetopic", "source") == -1
    assert count_hops_for_topic(policy, "source1.topic", "source2") == -1
    assert count_hops_for_topic(policy, "source1.topic", "source1") == 1
    assert count_hops_for_topic(policy, "source2.source1.topic", "source2") == 1
    assert count_hops_for_topic(policy, "source2.source1.topic", "source1") == 2
    assert count_hops_for_topic(policy, "source3.source2.source1.topic", "source1") == 3
    assert count_hops_for_topic(policy, "source3.source2.source1.topic", "source4") == -1


def test_count_hops_stops_on_identity_cycles() -> None:
    assert count_hops_for_topic(identity("a"), "topic", "b") == -1
    assert count_hops_for_topic(identity("a"), "topic", "a") == 1


def test_heartbeat_topics() -> None:
    topics = [
        "topic1",
        "topic2",
        "heartbeats",
        "source1.heartbeats",
        "source2.source1.heartbeats",
        "source3.heartbeats",
    ]
    assert heartbeat_topics(DefaultReplicationPolicy(), topics) == set(topics[2:])


def test_checkpoint_topics() -> None:
    topics = [
        "topic1",
        "topic2",
        "checkpoints.internal",
        "source1.checkpoints.internal",
        "source2.source1.checkpoints.internal",
        "source3.checkpoints.internal",
    ]
    assert checkpoint_topics(DefaultReplicationPolicy(), topics) == set(topics[3:])


def test_replication_hops() -> None:
    topics = [
        "topic1",
        "topic2",
        "heartbeats",
        "source1.heartbeats",
        "source1.source2.heartbeats",
        "source3.heartbeats",
    ]
    policy = DefaultReplicationPolicy()
    assert replication_hops(policy, topics, "source1") == 1
    assert replication_hops(policy, topics, "source2") == 2
    assert replication_hops(policy, topics, "source3") == 1
    assert replication_hops(policy, topics, "source4") == -1


UPSTREAM_TOPICS = [
    "topic1",
    "topic2",
    "heartbeats",
    "source1.heartbeats",
    "source1.source2.heartbeats",
    "source3.source4.source5.heartbeats",
]


def test_upstream_clusters() -> None:
    sources = upstream_clusters(DefaultReplicationPolicy(), UPSTREAM_TOPICS)
    assert sources == {"source1", "source2", "source3", "source4", "source5"}


def test_identity_upstream_clusters() -> None:
    # Heartbeats are a special case of IdentityReplicationPolicy, so this works as usual.
    sources = upstream_clusters(identity("source"), UPSTREAM_TOPICS)
    assert sources == {"source1", "source2", "source3", "source4", "source5"}


def test_remote_topics() -> None:
    topics = [
        "topic1",
        "topic2",
        "topic3",
        "source1.topic4",
        "source1.source2.topic5",
        "source3.source4.source5.topic6",
    ]
    policy = DefaultReplicationPolicy()
    assert remote_topics(policy, topics) == set(topics[3:])
    assert remote_topics(policy, topics, "source1") == {"source1.topic4", "source1.source2.topic5"}
    assert remote_topics(policy, topics, "source2") == set()


def test_remote_topics_leave_out_internal_topics() -> None:
    topics = ["source1.topic", "source1.checkpoints.internal", "__consumer_offsets", "a.b-internal"]
    assert remote_topics(DefaultReplicationPolicy(), topics) == {"source1.topic"}


def test_identity_remote_topics() -> None:
    topics = ["topic1", "topic2", "topic3", "heartbeats", "backup.heartbeats"]
    remote = remote_topics(identity("source"), topics)
    assert remote == {"topic1", "topic2", "topic3", "backup.heartbeats"}


def test_remote_topics_with_separator() -> None:
    topics = [
        "topic1",
        "topic2",
        "topic3",
        "source1__topic4",
        "source1__source2__topic5",
        "source3__source4__source5__topic6",
    ]
    assert remote_topics(separated("__"), topics) == set(topics[3:])
