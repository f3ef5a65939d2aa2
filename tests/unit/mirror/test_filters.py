"""MM2's default topic, group and topic-config filters (Kafka's Default*Filter, 4.0)."""

from __future__ import annotations

import logging

import pytest

from seaway.config import ConfigException
from seaway.mirror import filters
from seaway.mirror.filters import (
    ConfigPropertyFilter,
    DefaultConfigPropertyFilter,
    DefaultGroupFilter,
    DefaultTopicFilter,
    GroupFilter,
    PatternList,
    TopicFilter,
    config_property_filter,
    group_filter,
    is_default_filter_class,
    topic_filter,
    translate_deprecated,
)


def test_default_strings_are_kafkas() -> None:
    assert filters.TOPICS_DEFAULT == ".*"
    assert filters.TOPICS_EXCLUDE_DEFAULT == r".*[\-\.]internal, .*\.replica, __.*"
    assert filters.GROUPS_DEFAULT == ".*"
    assert filters.GROUPS_EXCLUDE_DEFAULT == "console-consumer-.*, connect-.*, __.*"
    assert filters.CONFIG_PROPERTIES_EXCLUDE_DEFAULT == (
        r"follower\.replication\.throttled\.replicas, "
        r"leader\.replication\.throttled\.replicas, "
        r"message\.timestamp\.difference\.max\.ms, "
        r"message\.timestamp\.type, "
        r"unclean\.leader\.election\.enable, "
        r"min\.insync\.replicas"
    )
    assert filters.USE_DEFAULTS_FROM_DEFAULT == "target"


@pytest.mark.parametrize(
    ("topic", "replicated"),
    [
        ("orders", True),
        ("my.topic", True),
        ("_schemas", True),
        # The filter alone accepts these: heartbeats are replicated on purpose, and cycles
        # ("B.orders" flowing back to B) are stopped by the connector's isCycle, not the filter.
        ("heartbeats", True),
        ("A.heartbeats", True),
        ("A.orders", True),
        # Connect's default internal topic names are not excluded by the filter either.
        ("connect-offsets", True),
        # Excluded by ".*[\-\.]internal": every MM2 internal topic...
        ("mm2-offset-syncs.A.internal", False),
        ("mm2-offset-syncs.B.internal", False),
        ("A.checkpoints.internal", False),
        ("mm2-configs.A.internal", False),
        ("mm2-offsets.A.internal", False),
        ("mm2-status.A.internal", False),
        # ...and any user topic ending in -internal or .internal.
        ("orders-internal", False),
        ("orders.internal", False),
        ("orders_internal", True),
        ("internal", True),
        ("orders.internalx", True),
        # ".*\.replica"
        ("orders.replica", False),
        ("orders-replica", True),
        # "__.*": Kafka's own internal topics.
        ("__consumer_offsets", False),
        ("__transaction_state", False),
        ("__cluster_metadata", False),
        ("_single_underscore", True),
        # Only ReplicationPolicy.isInternalTopic (not this filter) drops names starting with ".".
        (".hidden", True),
    ],
)
def test_default_topic_filter(topic: str, replicated: bool) -> None:
    assert DefaultTopicFilter().should_replicate_topic(topic) is replicated


@pytest.mark.parametrize(
    ("group", "replicated"),
    [
        ("app", True),
        ("A-mm2", True),
        ("console-consumer-12345", False),
        ("connect-my-sink", False),
        ("connect-cluster", False),
        ("connect", True),
        ("my-console-consumer-1", True),
        ("__share", False),
        ("_one", True),
    ],
)
def test_default_group_filter(group: str, replicated: bool) -> None:
    assert DefaultGroupFilter().should_replicate_group(group) is replicated


@pytest.mark.parametrize(
    "prop",
    [
        "follower.replication.throttled.replicas",
        "leader.replication.throttled.replicas",
        "message.timestamp.difference.max.ms",
        "message.timestamp.type",
        "unclean.leader.election.enable",
        "min.insync.replicas",
    ],
)
def test_default_config_property_filter_excludes(prop: str) -> None:
    assert not DefaultConfigPropertyFilter().should_replicate_config_property(prop)


@pytest.mark.parametrize("prop", ["retention.ms", "cleanup.policy", "min_insync_replicas"])
def test_default_config_property_filter_keeps(prop: str) -> None:
    # "min_insync_replicas": the dots in the defaults are escaped, so they match only dots.
    assert DefaultConfigPropertyFilter().should_replicate_config_property(prop)


def test_use_defaults_from() -> None:
    assert not DefaultConfigPropertyFilter().should_replicate_source_default("retention.ms")
    source = DefaultConfigPropertyFilter({"use.defaults.from": "source"})
    assert source.should_replicate_source_default("retention.ms")
    with pytest.raises(ConfigException, match=r"use.defaults.from"):
        DefaultConfigPropertyFilter({"use.defaults.from": "Source"})


def test_config_property_exclude_replaces_defaults() -> None:
    # MirrorSourceConfigTest.testConfigPropertyMatching
    f = DefaultConfigPropertyFilter({"config.properties.exclude": "prop2"})
    assert f.should_replicate_config_property("prop1")
    assert not f.should_replicate_config_property("prop2")
    assert f.should_replicate_config_property("min.insync.replicas")


def test_patterns_match_the_whole_name() -> None:
    f = DefaultTopicFilter({"topics": "topic1"})
    assert f.should_replicate_topic("topic1")
    assert not f.should_replicate_topic("topic10")
    assert not f.should_replicate_topic("xtopic1")
    g = DefaultTopicFilter({"topics": "foo.*"})
    assert g.should_replicate_topic("foo-1")
    assert g.should_replicate_topic("foo")
    assert not g.should_replicate_topic("xfoo")


def test_list_is_comma_separated_and_trimmed() -> None:
    # MirrorSourceConfigTest.testListOfTopics
    f = DefaultTopicFilter({"topics": "  topic1 ,topic2  ,  a.*b "})
    assert f.include.patterns == ("topic1", "topic2", "a.*b")
    assert f.should_replicate_topic("topic1")
    assert f.should_replicate_topic("topic2")
    assert f.should_replicate_topic("a--b")
    assert not f.should_replicate_topic("topic3")


def test_empty_include_matches_nothing() -> None:
    # MirrorSourceConfigTest.testNoTopics: an empty list matches nothing, not everything.
    f = DefaultTopicFilter({"topics": ""})
    assert not f.should_replicate_topic("topic1")
    assert not f.should_replicate_topic("")
    assert not DefaultGroupFilter({"groups": " "}).should_replicate_group("app")


def test_empty_exclude_excludes_nothing() -> None:
    f = DefaultTopicFilter({"topics.exclude": ""})
    assert f.should_replicate_topic("__consumer_offsets")
    assert f.should_replicate_topic("mm2-offset-syncs.B.internal")
    g = DefaultGroupFilter({"groups.exclude": ""})
    assert g.should_replicate_group("console-consumer-1")


def test_exclude_wins_over_include() -> None:
    f = DefaultTopicFilter({"topics": "orders.*", "topics.exclude": "orders-private"})
    assert f.should_replicate_topic("orders-public")
    assert not f.should_replicate_topic("orders-private")
    # Giving topics.exclude replaces the default exclusions entirely.
    assert DefaultTopicFilter({"topics": ".*", "topics.exclude": "x"}).should_replicate_topic(
        "__consumer_offsets"
    )


def test_list_values_may_already_be_lists() -> None:
    f = DefaultGroupFilter({"groups": ["app-.*"], "groups.exclude": []})
    assert f.should_replicate_group("app-1")
    assert not f.should_replicate_group("other")


def test_unrelated_props_are_ignored() -> None:
    f = DefaultTopicFilter({"topics": "a", "groups": "(", "name": "x", "tasks.max": "2"})
    assert f.should_replicate_topic("a")


@pytest.mark.parametrize(
    ("factory", "key"),
    [
        (DefaultTopicFilter, "topics"),
        (DefaultTopicFilter, "topics.exclude"),
        (DefaultGroupFilter, "groups"),
        (DefaultGroupFilter, "groups.exclude"),
        (DefaultConfigPropertyFilter, "config.properties.exclude"),
    ],
)
def test_malformed_regex_names_the_key(factory: type, key: str) -> None:
    with pytest.raises(ConfigException) as info:
        factory({key: "ok.*, bad(group"})
    assert info.value.name == key
    message = str(info.value)
    assert f"configuration {key}:" in message
    assert "Invalid regex 'bad(group'" in message


def test_wrong_value_type_names_the_key() -> None:
    with pytest.raises(ConfigException, match="configuration topics"):
        DefaultTopicFilter({"topics": 42})


def test_pattern_list() -> None:
    patterns = PatternList(["a", "b+"], "x")
    assert patterns.matches("bbb")
    assert not patterns.matches("ab")
    assert not PatternList([]).matches("")
    assert PatternList([r"(?<db>\p{Alpha}+)\.\Q-x\E"]).matches("shop.-x")  # Java's syntax
    assert "['a', 'b+']" in repr(patterns)
    with pytest.raises(ConfigException, match="configuration x"):
        PatternList(["[z-a]"], "x")


# ------------------------------------------------------------------ 3.x deprecated names


def test_deprecated_blacklists_are_honoured(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="seaway.mirror.filters"):
        f = DefaultTopicFilter({"topics.blacklist": "topic3"})
    assert not f.should_replicate_topic("topic3")
    assert f.should_replicate_topic("__consumer_offsets")  # the alias replaced the defaults
    assert "topics.blacklist was removed in Kafka 4.0; use topics.exclude" in caplog.text
    assert not DefaultGroupFilter({"groups.blacklist": "group-7"}).should_replicate_group("group-7")
    cfg = DefaultConfigPropertyFilter({"config.properties.blacklist": "property-3"})
    assert not cfg.should_replicate_config_property("property-3")
    assert cfg.should_replicate_config_property("min.insync.replicas")


def test_current_name_wins_over_deprecated(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="seaway.mirror.filters"):
        f = DefaultTopicFilter({"topics.exclude": "a", "topics.blacklist": "b"})
    assert not f.should_replicate_topic("a")
    assert f.should_replicate_topic("b")
    assert "Using topics.exclude" in caplog.text


def test_translate_deprecated() -> None:
    props = {"topics.blacklist": "x", "groups.exclude": "g", "groups.blacklist": "h", "k": "v"}
    assert translate_deprecated(props) == {"topics.exclude": "x", "groups.exclude": "g", "k": "v"}
    assert props["topics.blacklist"] == "x"  # not modified


def test_malformed_deprecated_regex_names_the_alias() -> None:
    with pytest.raises(ConfigException) as info:
        DefaultTopicFilter({"topics.blacklist": "a("})
    assert info.value.name == "topics.blacklist"


# ------------------------------------------------------------------ loading by class name


class _OnlyOrders(TopicFilter):
    def configure(self, props: object) -> None:
        self.configured = True

    def should_replicate_topic(self, topic: str) -> bool:
        return topic == "orders"


def test_loaders_use_defaults() -> None:
    assert isinstance(topic_filter({}), DefaultTopicFilter)
    assert isinstance(group_filter({}), DefaultGroupFilter)
    assert isinstance(config_property_filter({}), DefaultConfigPropertyFilter)
    loaded = topic_filter(
        {"topic.filter.class": "org.apache.kafka.connect.mirror.DefaultTopicFilter", "topics": "a"}
    )
    assert loaded.should_replicate_topic("a")
    assert not loaded.should_replicate_topic("b")


def test_loaders_accept_python_classes() -> None:
    loaded = topic_filter({"topic.filter.class": _OnlyOrders})
    assert isinstance(loaded, _OnlyOrders)
    assert loaded.configured
    assert loaded.should_replicate_topic("orders")
    by_path = group_filter({"group.filter.class": "seaway.mirror.filters.DefaultGroupFilter"})
    assert isinstance(by_path, DefaultGroupFilter)


def test_loader_errors_name_the_key() -> None:
    with pytest.raises(ConfigException, match=r"configuration topic.filter.class"):
        topic_filter({"topic.filter.class": "no.such.Filter"})
    with pytest.raises(ConfigException, match=r"configuration group.filter.class.*GroupFilter"):
        group_filter({"group.filter.class": "seaway.mirror.filters.DefaultTopicFilter"})


def test_interfaces_have_default_hooks() -> None:
    class Everything(GroupFilter):
        def should_replicate_group(self, group: str) -> bool:
            return True

    class NoProps(ConfigPropertyFilter):
        def should_replicate_config_property(self, prop: str) -> bool:
            return False

    g, p = Everything(), NoProps()
    g.configure({})
    g.close()
    p.configure({})
    assert not p.should_replicate_source_default("x")
    p.close()


def test_is_default_filter_class() -> None:
    default = filters.DEFAULT_TOPIC_FILTER_CLASS
    assert is_default_filter_class(None, default)
    assert is_default_filter_class(" org.apache.kafka.connect.mirror.DefaultTopicFilter", default)
    assert is_default_filter_class("seaway.mirror.filters.DefaultTopicFilter", default)
    assert is_default_filter_class(DefaultTopicFilter, default)
    assert not is_default_filter_class(_OnlyOrders, default)
    assert not is_default_filter_class("com.example.MyFilter", default)
