"""MM2 connector configs and the driver's mm2.properties (Kafka's MirrorMakerConfig, 4.0)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from seaway.config import ConfigException, Type, parse_properties
from seaway.mirror import config as mc
from seaway.mirror.config import (
    MIRROR_CHECKPOINT_CONFIG_DEF,
    MIRROR_HEARTBEAT_CONFIG_DEF,
    MIRROR_SOURCE_CONFIG_DEF,
    MirrorCheckpointConfig,
    MirrorConfigError,
    MirrorHeartbeatConfig,
    MirrorMakerConfig,
    MirrorSourceConfig,
    SourceAndTarget,
)
from seaway.mirror.filters import DefaultTopicFilter

AB = SourceAndTarget("A", "B")
BA = SourceAndTarget("B", "A")
BYTES = "org.apache.kafka.connect.converters.ByteArrayConverter"


def _pairs(*names: str) -> list[SourceAndTarget]:
    return [SourceAndTarget(*name.split("->")) for name in names]


def _two(**extra: str) -> dict[str, str]:
    """clusters A, B with bootstrap servers and A->B enabled, plus *extra*."""
    props = {
        "clusters": "A, B",
        "A.bootstrap.servers": "a:9092",
        "B.bootstrap.servers": "b:9092",
        "A->B.enabled": "true",
    }
    props.update(extra)
    return props


def _connector(**extra: Any) -> dict[str, Any]:
    """Kafka's TestUtils.makeProps: a minimal connector config."""
    props: dict[str, Any] = {
        "name": "ConnectorName",
        "connector.class": "ConnectorClass",
        "source.cluster.alias": "source1",
        "target.cluster.alias": "target2",
    }
    props.update(extra)
    return props


# ---------------------------------------------------------------------------- definitions

_COMMON_DEFAULTS = [
    ("enabled", Type.BOOLEAN, True),
    ("target.cluster.alias", Type.STRING, "target"),
    ("admin.timeout.ms", Type.LONG, 60000),
    ("replication.policy.class", Type.STRING,
     "org.apache.kafka.connect.mirror.DefaultReplicationPolicy"),
    ("replication.policy.separator", Type.STRING, "."),
    ("replication.policy.internal.topic.separator.enabled", Type.BOOLEAN, True),
    ("forwarding.admin.class", Type.STRING, "org.apache.kafka.clients.admin.ForwardingAdmin"),
    ("metric.reporters", Type.LIST, ["org.apache.kafka.common.metrics.JmxReporter"]),
    ("security.protocol", Type.STRING, "PLAINTEXT"),
    ("tasks.max", Type.INT, 1),
]  # fmt: skip

_SOURCE_DEFAULTS = [
    ("topics", Type.LIST, [".*"]),
    ("topics.exclude", Type.LIST, [r".*[\-\.]internal", r".*\.replica", "__.*"]),
    ("config.properties.exclude", Type.LIST, [
        r"follower\.replication\.throttled\.replicas",
        r"leader\.replication\.throttled\.replicas",
        r"message\.timestamp\.difference\.max\.ms",
        r"message\.timestamp\.type",
        r"unclean\.leader\.election\.enable",
        r"min\.insync\.replicas",
    ]),
    ("topic.filter.class", Type.STRING, "org.apache.kafka.connect.mirror.DefaultTopicFilter"),
    ("config.property.filter.class", Type.STRING,
     "org.apache.kafka.connect.mirror.DefaultConfigPropertyFilter"),
    ("consumer.poll.timeout.ms", Type.LONG, 1000),
    ("refresh.topics.enabled", Type.BOOLEAN, True),
    ("refresh.topics.interval.seconds", Type.LONG, 600),
    ("sync.topic.configs.enabled", Type.BOOLEAN, True),
    ("sync.topic.configs.interval.seconds", Type.LONG, 600),
    ("sync.topic.acls.enabled", Type.BOOLEAN, True),
    ("sync.topic.acls.interval.seconds", Type.LONG, 600),
    ("replication.factor", Type.INT, 2),
    ("offset-syncs.topic.replication.factor", Type.SHORT, 3),
    ("offset.lag.max", Type.LONG, 100),
    ("offset-syncs.topic.location", Type.STRING, "source"),
    ("emit.offset-syncs.enabled", Type.BOOLEAN, True),
    ("heartbeats.replication.enabled", Type.BOOLEAN, True),
]  # fmt: skip

_CHECKPOINT_DEFAULTS = [
    ("consumer.poll.timeout.ms", Type.LONG, 1000),
    ("groups", Type.LIST, [".*"]),
    ("groups.exclude", Type.LIST, ["console-consumer-.*", "connect-.*", "__.*"]),
    ("group.filter.class", Type.STRING, "org.apache.kafka.connect.mirror.DefaultGroupFilter"),
    ("refresh.groups.enabled", Type.BOOLEAN, True),
    ("refresh.groups.interval.seconds", Type.LONG, 600),
    ("emit.checkpoints.enabled", Type.BOOLEAN, True),
    ("emit.checkpoints.interval.seconds", Type.LONG, 60),
    ("sync.group.offsets.enabled", Type.BOOLEAN, False),
    ("sync.group.offsets.interval.seconds", Type.LONG, 60),
    ("checkpoints.topic.replication.factor", Type.SHORT, 3),
    ("offset-syncs.topic.location", Type.STRING, "source"),
    ("topic.filter.class", Type.STRING, "org.apache.kafka.connect.mirror.DefaultTopicFilter"),
]  # fmt: skip

_HEARTBEAT_DEFAULTS = [
    ("emit.heartbeats.enabled", Type.BOOLEAN, True),
    ("emit.heartbeats.interval.seconds", Type.LONG, 1),
    ("heartbeats.topic.replication.factor", Type.SHORT, 3),
]


@pytest.mark.parametrize(
    ("definition", "name", "type_", "default"),
    [(MIRROR_SOURCE_CONFIG_DEF, *row) for row in _COMMON_DEFAULTS + _SOURCE_DEFAULTS]
    + [(MIRROR_CHECKPOINT_CONFIG_DEF, *row) for row in _COMMON_DEFAULTS + _CHECKPOINT_DEFAULTS]
    + [(MIRROR_HEARTBEAT_CONFIG_DEF, *row) for row in _COMMON_DEFAULTS + _HEARTBEAT_DEFAULTS],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_defaults(definition: Any, name: str, type_: Type, default: Any) -> None:
    key = definition.config_keys[name]
    assert key.type is type_
    assert key.default_value == default
    assert key.documentation


def test_connector_specific_keys_stay_in_their_connector() -> None:
    assert "groups" not in MIRROR_SOURCE_CONFIG_DEF
    assert "offset.lag.max" not in MIRROR_CHECKPOINT_CONFIG_DEF
    assert "emit.heartbeats.enabled" not in MIRROR_SOURCE_CONFIG_DEF
    assert "topics" not in MIRROR_HEARTBEAT_CONFIG_DEF
    # As in Kafka, use.defaults.from is only the filter's setting, not a connector setting.
    assert "use.defaults.from" not in MIRROR_SOURCE_CONFIG_DEF
    for definition in (MIRROR_SOURCE_CONFIG_DEF, MIRROR_CHECKPOINT_CONFIG_DEF):
        assert "ssl.truststore.location" in definition
        assert "sasl.jaas.config" in definition
        assert "errors.tolerance" in definition  # Connect's connector settings are included


def test_source_cluster_alias_is_required() -> None:
    props = _connector()
    del props["source.cluster.alias"]
    with pytest.raises(ConfigException, match=r'"source.cluster.alias"'):
        MirrorSourceConfig(props)
    props = _connector()
    del props["target.cluster.alias"]
    assert MirrorSourceConfig(props).target_cluster_alias == "target"


def test_security_protocol_is_case_insensitive_and_checked() -> None:
    assert MirrorSourceConfig(_connector(**{"security.protocol": "sasl_ssl"}))
    with pytest.raises(ConfigException, match=r"security.protocol"):
        MirrorSourceConfig(_connector(**{"security.protocol": "abc"}))


# ---------------------------------------------------------------------------- connector configs

SEED_SOURCE = {
    "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "source.cluster.alias": "A",
    "target.cluster.alias": "B",
    "source.cluster.bootstrap.servers": "A:9092",
    "target.cluster.bootstrap.servers": "B:9092",
    "topics": "mirror-test-.*",
    "replication.policy.separator": "_",
    "refresh.topics.interval.seconds": 60,
    "sync.topic.configs.enabled": "true",
    "sync.topic.acls.enabled": "false",
    "name": "public-test",
}


def test_seed_source_connector_json() -> None:
    config = MirrorSourceConfig(SEED_SOURCE)
    assert config.connector_name == "public-test"
    assert config.enabled
    assert (config.source_cluster_alias, config.target_cluster_alias) == ("A", "B")
    assert config.get_string("replication.policy.separator") == "_"
    assert config.refresh_topics_interval() == 60
    assert config.sync_topic_configs_interval() == 600
    assert config.sync_topic_acls_interval() is None
    assert config.get_list("topics") == ["mirror-test-.*"]
    topics = config.topic_filter()
    assert topics.should_replicate_topic("mirror-test-1")
    assert not topics.should_replicate_topic("orders")
    assert config.source_consumer_config()["bootstrap.servers"] == "A:9092"
    assert config.target_admin_config()["bootstrap.servers"] == "B:9092"
    assert config.offset_syncs_topic_alias() == "B"  # mm2-offset-syncs.B.internal on A


@pytest.mark.parametrize("cls", ["MirrorCheckpointConnector", "MirrorHeartbeatConnector"])
def test_seed_checkpoint_and_heartbeat_connector_json(cls: str) -> None:
    props = {
        "name": "public-test-x",
        "connector.class": f"org.apache.kafka.connect.mirror.{cls}",
        "source.cluster.alias": "A",
        "target.cluster.alias": "B",
        "source.cluster.bootstrap.servers": "A:9092",
        "target.cluster.bootstrap.servers": "B:9092",
    }
    if cls == "MirrorCheckpointConnector":
        config = MirrorCheckpointConfig(props)
        assert config.emit_checkpoints_interval() == 60
        assert config.refresh_groups_interval() == 600
        assert config.sync_group_offsets_interval() is None
        assert config.group_filter().should_replicate_group("app")
        assert not config.group_filter().should_replicate_group("console-consumer-1")
        assert config.topic_filter().should_replicate_topic("orders")
        assert MirrorCheckpointConfig.validate(props) == {}
    else:
        heartbeat = MirrorHeartbeatConfig(props)
        assert heartbeat.emit_heartbeats_interval() == 1
        assert heartbeat.get_short("heartbeats.topic.replication.factor") == 3


def test_offset_syncs_topic_alias_is_the_other_cluster() -> None:
    # MirrorSourceConfigTest.testOffsetSyncsTopic
    with pytest.raises(ConfigException, match=r"offset-syncs.topic.location"):
        MirrorSourceConfig(_connector(**{"offset-syncs.topic.location": "something"}))
    assert MirrorSourceConfig(_connector()).offset_syncs_topic_alias() == "target2"
    located = _connector(**{"offset-syncs.topic.location": "target"})
    assert MirrorSourceConfig(located).offset_syncs_topic_alias() == "source1"
    assert MirrorCheckpointConfig(located).offset_syncs_topic_alias() == "source1"


def test_source_consumer_precedence() -> None:
    config = MirrorSourceConfig(
        _connector(**{
            "source.cluster.bootstrap.servers": "cluster:9092",
            "source.cluster.security.protocol": "SSL",
            "source.cluster.replication.factor": "7",  # not a client setting: dropped
            "source.cluster.consumer.fetch.min.bytes": "9",  # not how overrides are spelled
            "consumer.security.protocol": "SASL_SSL",
            "consumer.max.poll.records": "10",
            "source.consumer.max.poll.records": "20",
            "source.consumer.enable.auto.commit": "true",
            "source.consumer.auto.offset.reset": "latest",
            "source.consumer.client.id": "mine",
        })
    )  # fmt: skip
    assert config.source_consumer_config("replication-consumer") == {
        "bootstrap.servers": "cluster:9092",
        "security.protocol": "SASL_SSL",
        "max.poll.records": "20",
        "enable.auto.commit": "false",
        "auto.offset.reset": "latest",
        "client.id": "mine|source1->target2|ConnectorName|replication-consumer",
    }
    # As in Kafka, "consumer.*" also catches the connector's own consumer.poll.timeout.ms.
    polled = MirrorSourceConfig(_connector(**{"consumer.poll.timeout.ms": "500"}))
    assert polled.source_consumer_config()["poll.timeout.ms"] == "500"
    defaults = MirrorSourceConfig(_connector()).source_consumer_config()
    assert defaults["auto.offset.reset"] == "earliest"
    assert defaults["enable.auto.commit"] == "false"
    assert defaults["client.id"] == "source1->target2|ConnectorName"


def test_producer_and_admin_configs() -> None:
    # MirrorSourceConfigTest.testProducerConfigsForOffsetSyncsTopic / testAdminConfigs...
    config = MirrorSourceConfig(
        _connector(**{
            "source.producer.batch.size": "1",
            "target.producer.acks": "1",
            "producer.linger.ms": "5",
            "source.admin.request.timeout.ms": "1",
            "target.admin.send.buffer.bytes": "1",
            "admin.reconnect.backoff.max.ms": "1",
            "fetch.min.bytes": "1",
        })
    )  # fmt: skip
    assert config.source_producer_config("test") == {
        "batch.size": "1",
        "linger.ms": "5",
        "client.id": "source1->target2|ConnectorName|test",
    }
    assert config.target_producer_config()["acks"] == "1"
    assert "batch.size" not in config.target_producer_config()
    assert config.source_admin_config() == {
        "request.timeout.ms": "1",
        "reconnect.backoff.max.ms": "1",
        "client.id": "source1->target2|ConnectorName",
    }
    assert config.target_admin_config()["send.buffer.bytes"] == "1"
    assert config.target_consumer_config()["enable.auto.commit"] == "false"


def test_connector_validate_rules() -> None:
    assert MirrorCheckpointConfig.validate({"emit.checkpoints.enabled": "false"}) == {
        "emit.checkpoints.enabled": [
            "MirrorCheckpointConnector can't run with emit.checkpoints.enabled set to false"
        ]
    }
    assert "emit.offset-syncs.enabled" in MirrorCheckpointConfig.validate(
        {"emit.offset-syncs.enabled": "false"}
    )
    assert (
        MirrorCheckpointConfig.validate({"enabled": "false", "emit.checkpoints.enabled": "false"})
        == {}
    )
    assert MirrorSourceConfig.validate({"emit.offset-syncs.enabled": "false"}) == {}
    assert "emit.offset-syncs.enabled" in MirrorSourceConfig.validate(
        {"emit.offset-syncs.enabled": "false", "offset-syncs.topic.location": "target"}
    )


# ---------------------------------------------------------------------------- driver: examples

KAFKA_SAMPLE = """
# config/connect-mirror-maker.properties from Kafka (comments removed)
clusters = A, B
A.bootstrap.servers = A_host1:9092, A_host2:9092, A_host3:9092
B.bootstrap.servers = B_host1:9092, B_host2:9092, B_host3:9092
A->B.enabled = true
A->B.topics = .*
B->A.enabled = true
B->A.topics = .*
replication.factor=1
checkpoints.topic.replication.factor=1
heartbeats.topic.replication.factor=1
offset-syncs.topic.replication.factor=1
offset.storage.replication.factor=1
status.storage.replication.factor=1
config.storage.replication.factor=1
"""


def test_kafka_sample_file_active_active(tmp_path: Path) -> None:
    path = tmp_path / "mm2.properties"
    path.write_text(KAFKA_SAMPLE)
    config = MirrorMakerConfig.from_file(path)
    assert config.clusters == ["A", "B"]
    assert config.cluster_pairs() == _pairs("A->B", "B->A")
    assert config.enabled_flows() == _pairs("A->B", "B->A")
    source = config.connector_base_config(AB, mc.MIRROR_SOURCE_CONNECTOR)
    assert source == {
        "replication.factor": "1",
        "checkpoints.topic.replication.factor": "1",
        "heartbeats.topic.replication.factor": "1",
        "offset-syncs.topic.replication.factor": "1",
        "source.cluster.bootstrap.servers": "A_host1:9092, A_host2:9092, A_host3:9092",
        "source.producer.bootstrap.servers": "A_host1:9092, A_host2:9092, A_host3:9092",
        "source.consumer.bootstrap.servers": "A_host1:9092, A_host2:9092, A_host3:9092",
        "source.admin.bootstrap.servers": "A_host1:9092, A_host2:9092, A_host3:9092",
        "target.cluster.bootstrap.servers": "B_host1:9092, B_host2:9092, B_host3:9092",
        "target.producer.bootstrap.servers": "B_host1:9092, B_host2:9092, B_host3:9092",
        "target.consumer.bootstrap.servers": "B_host1:9092, B_host2:9092, B_host3:9092",
        "target.admin.bootstrap.servers": "B_host1:9092, B_host2:9092, B_host3:9092",
        "name": "MirrorSourceConnector",
        "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
        "source.cluster.alias": "A",
        "target.cluster.alias": "B",
        "enabled": "true",
        "topics": ".*",
    }
    parsed = MirrorSourceConfig(source)
    assert parsed.get_int("replication.factor") == 1
    assert parsed.source_consumer_config()["bootstrap.servers"].startswith("A_host1")
    worker = config.worker_config(BA)
    assert worker["bootstrap.servers"].startswith("A_host1")
    assert worker["offset.storage.replication.factor"] == "1"
    assert worker["config.storage.replication.factor"] == "1"
    assert worker["offset.storage.topic"] == "mm2-offsets.B.internal"
    assert "replication.factor" not in worker


def test_active_passive_only_a_to_b_replicates() -> None:
    config = MirrorMakerConfig(_two(**{"B->A.enabled": "false", "A->B.topics": "foo.*"}))
    # B->A still gets a herder: it emits the heartbeats into A that A->B replicates.
    assert config.cluster_pairs() == _pairs("A->B", "B->A")
    assert config.enabled_flows() == [AB]
    assert config.is_enabled(AB)
    assert not config.is_enabled(BA)
    assert config.connector_base_config(BA)["enabled"] == "false"
    assert config.connector_base_config(AB)["topics"] == "foo.*"
    assert "topics" not in config.connector_base_config(BA)


def test_flows_are_off_unless_enabled() -> None:
    config = MirrorMakerConfig({"clusters": "A, B", "A.bootstrap.servers": "a:1"})
    assert config.enabled_flows() == []
    assert config.connector_base_config(AB)["enabled"] == "false"
    hb_off = MirrorMakerConfig(_two(**{"emit.heartbeats.enabled": "false"}))
    assert hb_off.cluster_pairs() == [AB]


def test_docs_active_active() -> None:
    config = MirrorMakerConfig(
        parse_properties(
            "clusters = us-west, us-east\n"
            "us-west.bootstrap.servers = broker1-west:9092,broker2-west:9092\n"
            "us-east.bootstrap.servers = broker3-east:9092,broker4-east:9092\n"
            "us-west->us-east.enabled = true\n"
            "us-east->us-west.enabled = true\n"
        )
    )
    assert [str(p) for p in config.enabled_flows()] == ["us-west->us-east", "us-east->us-west"]
    west_east = SourceAndTarget("us-west", "us-east")
    assert config.worker_config(west_east)["group.id"] == "us-west-mm2"
    assert config.worker_config(west_east)["bootstrap.servers"] == (
        "broker3-east:9092,broker4-east:9092"
    )


def test_hub_and_spoke() -> None:
    props = {
        "clusters": "hub, spoke1, spoke2, spoke3",
        "bootstrap.servers": "fallback:9092",
        "hub.bootstrap.servers": "hub:9092",
        "spoke1.bootstrap.servers": "s1:9092",
        "spoke2.bootstrap.servers": "s2:9092",
        "spoke3.bootstrap.servers": "s3:9092",
        "emit.heartbeats.enabled": "false",
        "topics": "orders.*",
        "spoke1->hub.enabled": "true",
        "spoke2->hub.enabled": "true",
        "spoke3->hub.enabled": "true",
        "spoke3->hub.topics": "legacy-orders",
        "hub->spoke1.enabled": "true",
    }
    config = MirrorMakerConfig(props)
    flows = _pairs("hub->spoke1", "spoke1->hub", "spoke2->hub", "spoke3->hub")
    assert config.cluster_pairs() == flows
    assert config.enabled_flows() == flows
    assert config.cluster_pairs(targets=["hub"]) == flows[1:]
    assert config.cluster_pairs(targets=["spoke2"]) == []
    assert config.connector_base_config(flows[1])["topics"] == "orders.*"
    assert config.connector_base_config(flows[3])["topics"] == "legacy-orders"
    assert config.worker_config(flows[3])["offset.storage.topic"] == "mm2-offsets.spoke3.internal"
    assert config.worker_config(flows[0])["bootstrap.servers"] == "s1:9092"


def test_docs_multi_cluster_example() -> None:
    text = "clusters: west-1, west-2, east-1, east-2, north-1, north-2\n"
    text += "".join(f"{c}.bootstrap.servers = {c}:9092\n" for c in
                    ("west-1", "west-2", "east-1", "east-2", "north-1", "north-2"))  # fmt: skip
    flows = [
        "west-1->west-2", "west-2->west-1", "east-1->east-2", "east-2->east-1",
        "north-1->north-2", "north-2->north-1", "west-1->east-1", "west-1->north-1",
        "east-1->west-1", "east-1->north-1", "north-1->west-1", "north-1->east-1",
    ]  # fmt: skip
    text += "".join(f"{flow}.enabled = true\n" for flow in flows)
    config = MirrorMakerConfig(parse_properties(text))
    assert sorted(map(str, config.enabled_flows())) == sorted(flows)
    assert len(config.cluster_pairs()) == 30  # heartbeats: every ordered pair gets a herder
    west = config.cluster_pairs(targets=["west-1", "west-2"])
    assert {p.target for p in west} == {"west-1", "west-2"}
    assert len(west) == 10


# ---------------------------------------------------------------------------- cluster pairs


def test_cluster_pairs_like_kafka() -> None:
    # MirrorMakerConfigTest.testClusterPairs*
    assert len(MirrorMakerConfig({"clusters": "a, b, c"}).cluster_pairs()) == 6
    assert (
        MirrorMakerConfig({"clusters": "a, b, c", "emit.heartbeats.enabled": "false"})
        .cluster_pairs() == []
    )  # fmt: skip
    two_off = MirrorMakerConfig({
        "clusters": "a, b, c",
        "a->b.emit.heartbeats.enabled": "false",
        "a->c.emit.heartbeats.enabled": "false",
    })  # fmt: skip
    assert len(two_off.cluster_pairs()) == 4
    props = {"clusters": "a, b, c, d, e, f", "emit.heartbeats.enabled": "false"}
    props |= {f"a->{t}.enabled": "true" for t in "bcd"}
    props |= {f"{c}.bootstrap.servers": f"{c}:1" for c in "abcd"}
    props |= {"a->e.enabled": "false", "a->f.enabled": "false"}
    assert MirrorMakerConfig(props).cluster_pairs() == _pairs("a->b", "a->c", "a->d")
    central = MirrorMakerConfig({
        "clusters": "central, local_one, local_two, beats_emitter",
        "central.bootstrap.servers": "c:1",
        "local_one.bootstrap.servers": "l1:1",
        "local_two.bootstrap.servers": "l2:1",
        "emit.heartbeats.enabled": "false",
        "central->local_one.enabled": "true",
        "central->local_two.enabled": "true",
        "beats_emitter->central.emit.heartbeats.enabled": "true",
    })  # fmt: skip
    assert central.cluster_pairs() == _pairs(
        "central->local_one", "central->local_two", "beats_emitter->central"
    )
    assert central.enabled_flows() == _pairs("central->local_one", "central->local_two")


def test_cluster_pairs_follow_the_clusters_order() -> None:
    config = MirrorMakerConfig({"clusters": "C, A, B, A"})
    assert config.clusters == ["C", "A", "B"]
    assert [str(p) for p in config.cluster_pairs()] == [
        "C->A", "C->B", "A->C", "A->B", "B->C", "B->A",
    ]  # fmt: skip


def test_targets_must_be_known() -> None:
    with pytest.raises(MirrorConfigError, match="Unknown cluster alias 'X'"):
        MirrorMakerConfig(_two()).cluster_pairs(targets=["X"])


def test_top_level_enabled_enables_every_herder() -> None:
    # Kafka passes a top-level "enabled" to every connector config, so with heartbeat herders
    # on every pair it turns on every flow; flow keys still win.
    config = MirrorMakerConfig(_two(**{"enabled": "true", "B->A.enabled": "false"}))
    assert config.enabled_flows() == [AB]
    everything = _two(enabled="true")
    del everything["A->B.enabled"]
    assert MirrorMakerConfig(everything).enabled_flows() == [AB, BA]


def test_source_and_target() -> None:
    pair = SourceAndTarget("us-west", "us-east")
    assert str(pair) == "us-west->us-east"
    assert pair == SourceAndTarget("us-west", "us-east")
    assert len({pair, SourceAndTarget("us-west", "us-east"), AB}) == 2
    assert sorted([BA, AB]) == [AB, BA]


# ---------------------------------------------------------------------------- precedence


def test_flow_settings_override_top_level() -> None:
    config = MirrorMakerConfig(_two(**{
        "B->A.enabled": "true",
        "tasks.max": "4",
        "topics": "shared.*",
        "A->B.tasks.max": "8",
        "A->B.topics": "a-only",
        "B->A.sync.group.offsets.enabled": "true",
    }))  # fmt: skip
    ab, ba = config.connector_base_config(AB), config.connector_base_config(BA)
    assert (ab["tasks.max"], ab["topics"]) == ("8", "a-only")
    assert (ba["tasks.max"], ba["topics"]) == ("4", "shared.*")
    assert "sync.group.offsets.enabled" not in ab
    checkpoint = MirrorCheckpointConfig(
        config.connector_base_config(BA, mc.MIRROR_CHECKPOINT_CONNECTOR)
    )
    assert checkpoint.sync_group_offsets_interval() == 60


def test_flow_over_cluster_over_top_level() -> None:
    base = {"clusters": "A, B", "A->B.enabled": "true", "bootstrap.servers": "top:9092"}

    def source_servers(**extra: str) -> str:
        config = MirrorMakerConfig({**base, **extra})
        props = config.connector_base_config(AB)
        return MirrorSourceConfig(props).source_consumer_config()["bootstrap.servers"]

    assert source_servers() == "top:9092"
    assert source_servers(**{"A.bootstrap.servers": "a:9092"}) == "a:9092"
    flow = {"A.bootstrap.servers": "a:9092", "A->B.source.consumer.bootstrap.servers": "f:9092"}
    assert source_servers(**flow) == "f:9092"
    # Kafka quirk kept: the cluster's bootstrap is already copied to source.consumer.*, which
    # beats source.cluster.*, so overriding only A->B.source.cluster.bootstrap.servers does not
    # reach the consumer.
    cluster_only = {"A.bootstrap.servers": "a:9092", "A->B.source.cluster.bootstrap.servers": "x"}
    assert source_servers(**cluster_only) == "a:9092"


def test_cluster_props_like_kafka() -> None:
    config = MirrorMakerConfig({
        "clusters": "A, B",
        "security.protocol": "SSL",
        "ssl.truststore.location": "/top/truststore.jks",
        "A.bootstrap.servers": "a:9092",
        "A.security.protocol": "PLAINTEXT",
        "A.producer.security.protocol": "SASL_SSL",
        "A.offset.storage.topic": "my-offsets",
        "A.xxx": "yyy",
        "xxx": "zzz",
    })  # fmt: skip
    assert config.cluster_props("A") == {
        "bootstrap.servers": "a:9092",
        "security.protocol": "PLAINTEXT",
        "producer.security.protocol": "SASL_SSL",
        "offset.storage.topic": "my-offsets",
        "xxx": "yyy",
        "producer.bootstrap.servers": "a:9092",
        "consumer.bootstrap.servers": "a:9092",
        "admin.bootstrap.servers": "a:9092",
        "consumer.security.protocol": "PLAINTEXT",
        "admin.security.protocol": "PLAINTEXT",
        "producer.ssl.truststore.location": "/top/truststore.jks",
        "consumer.ssl.truststore.location": "/top/truststore.jks",
        "admin.ssl.truststore.location": "/top/truststore.jks",
        "ssl.truststore.location": "/top/truststore.jks",
    }
    assert config.cluster_props("B")["security.protocol"] == "SSL"
    assert config.client_config("A")["security.protocol"] == "PLAINTEXT"
    assert config.client_config("A")["xxx"] == "yyy"
    with pytest.raises(MirrorConfigError, match="Unknown cluster alias 'C'"):
        config.cluster_props("C")


def test_client_prefixes_reach_the_right_side() -> None:
    config = MirrorMakerConfig(_two(**{
        "B->A.enabled": "true",
        "A.consumer.isolation.level": "read_committed",
        "A.admin.request.timeout.ms": "1234",
        "B.producer.compression.type": "gzip",
        "B.security.protocol": "SSL",
        "consumer.max.poll.records": "7",  # top-level client.* forms are not used by Kafka
    }))  # fmt: skip
    ab = config.connector_base_config(AB)
    assert ab["source.consumer.isolation.level"] == "read_committed"
    assert ab["source.admin.request.timeout.ms"] == "1234"
    assert ab["target.producer.compression.type"] == "gzip"
    assert ab["target.cluster.security.protocol"] == "SSL"
    assert ab["target.consumer.security.protocol"] == "SSL"
    assert "source.cluster.security.protocol" not in ab
    assert not any("max.poll.records" in key for key in ab)
    ba = config.connector_base_config(BA)
    assert ba["target.consumer.isolation.level"] == "read_committed"
    assert ba["source.producer.compression.type"] == "gzip"
    source = MirrorSourceConfig(ab)
    assert source.source_consumer_config()["isolation.level"] == "read_committed"
    assert source.target_producer_config()["compression.type"] == "gzip"
    assert source.target_producer_config()["security.protocol"] == "SSL"
    assert source.source_admin_config()["request.timeout.ms"] == "1234"
    assert "consumer.max.poll.records" in config.ignored_keys()


def test_top_level_settings_passed_to_connectors() -> None:
    # MirrorMakerConfigTest.testClusterConfigProperties / testIncludesConnectorConfigProperties
    config = MirrorMakerConfig({
        "clusters": "a, b",
        "a.bootstrap.servers": "servers-one",
        "b.bootstrap.servers": "servers-two",
        "security.protocol": "SSL",
        "tasks.max": "100",
        "topics": "topic-1",
        "groups": "group-2",
        "replication.policy.separator": "__",
        "config.properties.exclude": "property-3",
        "metric.reporters": "FakeMetricsReporter",
        "topic.filter.class": "org.apache.kafka.connect.mirror.DefaultTopicFilter",
        "config.providers": "file",
        "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
        "xxx": "yyy",
    })  # fmt: skip
    props = config.connector_base_config(SourceAndTarget("a", "b"))
    assert props["source.cluster.bootstrap.servers"] == "servers-one"
    assert props["target.cluster.bootstrap.servers"] == "servers-two"
    assert props["security.protocol"] == "SSL"
    assert props["config.providers.file.class"].endswith("FileConfigProvider")
    assert "xxx" not in props
    source = MirrorSourceConfig(props)
    assert source.get_int("tasks.max") == 100
    assert source.get_list("topics") == ["topic-1"]
    assert source.get_list("config.properties.exclude") == ["property-3"]
    assert source.get_list("metric.reporters") == ["FakeMetricsReporter"]
    assert source.get_string("replication.policy.separator") == "__"
    assert MirrorCheckpointConfig(props).get_list("groups") == ["group-2"]
    assert config.ignored_keys() == ["xxx"]


def test_values_are_not_resolved() -> None:
    # MirrorMakerConfigTest.testLazyConfigResolution
    config = MirrorMakerConfig({
        "clusters": "a, b",
        "ssl.key.password": "${fake:secret:password}",
        "b->a.topics": "${fake:secret:password}",
    })  # fmt: skip
    props = config.connector_base_config(SourceAndTarget("b", "a"))
    assert props["ssl.key.password"] == "${fake:secret:password}"
    assert props["topics"] == "${fake:secret:password}"


def test_connector_configs_for_the_three_connectors() -> None:
    configs = MirrorMakerConfig(_two()).connector_configs(AB)
    assert list(configs) == [
        "MirrorSourceConnector", "MirrorHeartbeatConnector", "MirrorCheckpointConnector",
    ]  # fmt: skip
    assert configs["MirrorCheckpointConnector"]["connector.class"] == (
        "org.apache.kafka.connect.mirror.MirrorCheckpointConnector"
    )
    MirrorHeartbeatConfig(configs["MirrorHeartbeatConnector"])
    MirrorCheckpointConfig(configs["MirrorCheckpointConnector"])

    class PythonMirrorSource:
        pass

    props = MirrorMakerConfig(_two()).connector_base_config(AB, PythonMirrorSource)
    assert props["name"] == "PythonMirrorSource"
    assert props["connector.class"].endswith(".PythonMirrorSource")
    assert MirrorMakerConfig(_two()).connector_base_config(AB, "pkg.mod:Cls")["name"] == "Cls"


def test_deprecated_blacklist_passes_to_connectors() -> None:
    config = MirrorMakerConfig(_two(**{"topics.blacklist": "secret.*"}))
    props = config.connector_base_config(AB)
    assert props["topics.blacklist"] == "secret.*"
    assert not DefaultTopicFilter(props).should_replicate_topic("secret-1")
    assert config.ignored_keys() == []


# ---------------------------------------------------------------------------- worker config


def test_worker_config() -> None:
    # MirrorMakerConfigTest.testWorkerConfigs, without config providers
    config = MirrorMakerConfig({
        "clusters": "a, b",
        "a.bootstrap.servers": "a:9092",
        "b.bootstrap.servers": "b:9092",
        "config.providers": "fake",
        "replication.policy.separator": "__",
        "offset.storage.replication.factor": "123",
        "b.status.storage.replication.factor": "456",
        "b.producer.client.id": "client-one",
        "b.security.protocol": "PLAINTEXT",
        "b.producer.security.protocol": "SASL",
        "ssl.truststore.password": "secret1",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "false",
        "b.xxx": "yyy",
        "topics": "not-for-workers",
    })  # fmt: skip
    to_a = config.worker_config(SourceAndTarget("b", "a"))
    assert to_a["client.id"] == "b->a"
    assert to_a["group.id"] == "b-mm2"
    assert to_a["bootstrap.servers"] == "a:9092"
    assert to_a["offset.storage.replication.factor"] == "123"
    assert to_a["replication.policy.separator"] == "__"
    assert to_a["config.providers"] == "fake"
    assert (to_a["offset.storage.topic"], to_a["status.storage.topic"],
            to_a["config.storage.topic"]) == ("mm2-offsets.b.internal", "mm2-status.b.internal",
                                              "mm2-configs.b.internal")  # fmt: skip
    to_b = config.worker_config(SourceAndTarget("a", "b"))
    assert to_b["client.id"] == "a->b"
    assert to_b["status.storage.replication.factor"] == "456"
    assert to_b["producer.client.id"] == "client-one"
    assert to_b["producer.security.protocol"] == "SASL"
    assert to_b["consumer.security.protocol"] == "PLAINTEXT"
    assert to_b["ssl.truststore.password"] == "secret1"
    assert to_b["producer.ssl.truststore.password"] == "secret1"
    assert to_b["xxx"] == "yyy"
    assert to_b["key.converter"] == "org.apache.kafka.connect.json.JsonConverter"
    assert to_b["key.converter.schemas.enable"] == "false"
    assert to_b["value.converter"] == BYTES
    assert to_b["header.converter"] == BYTES
    assert "topics" not in to_b


def test_worker_config_user_topics_win() -> None:
    # docs: "us-west.offset.storage.topic = my-mirrormaker-offsets"
    config = MirrorMakerConfig(_two(**{"B.offset.storage.topic": "my-mirrormaker-offsets",
                                       "A->B.group.id": "ignored-by-workers"}))  # fmt: skip
    worker = config.worker_config(AB)
    assert worker["offset.storage.topic"] == "my-mirrormaker-offsets"
    assert worker["group.id"] == "A-mm2"


def test_worker_config_needs_target_bootstrap() -> None:
    config = MirrorMakerConfig({"clusters": "A, B, C", "A.bootstrap.servers": "a:1"})
    assert config.worker_config(SourceAndTarget("C", "A"))["bootstrap.servers"] == "a:1"
    with pytest.raises(MirrorConfigError, match=r'"C.bootstrap.servers"'):
        config.worker_config(SourceAndTarget("A", "C"))


# ---------------------------------------------------------------------------- errors


def _error(props: dict[str, str]) -> str:
    with pytest.raises(MirrorConfigError) as info:
        MirrorMakerConfig(props)
    assert isinstance(info.value, ConfigException)
    return str(info.value)


@pytest.mark.parametrize(
    ("extra", "key", "fragment"),
    [
        ({"C->B.enabled": "true"}, "C->B.enabled", "Unknown source cluster alias 'C'"),
        ({"A->C.topics": "x"}, "A->C.topics", "Unknown target cluster alias 'C'"),
        ({"A->A.enabled": "true"}, "A->A.enabled", "two different clusters"),
        ({"A->B": "true"}, "A->B", "Expected A->B.<setting>"),
        ({"offset.lag.max": "abc"}, "offset.lag.max", "Not a number of type LONG"),
        ({"A->B.offset.lag.max": "abc"}, "A->B.offset.lag.max", "Not a number of type LONG"),
        ({"B->A.replication.factor": "x"}, "B->A.replication.factor", "INT"),
        ({"A->B.enabled": "yes"}, "A->B.enabled", "either true or false"),
        ({"emit.heartbeats.enabled": "maybe"}, "emit.heartbeats.enabled", "true or false"),
        ({"A->B.emit.heartbeats.enabled": "1"}, "A->B.emit.heartbeats.enabled", "true or false"),
        ({"tasks.max": "0"}, "tasks.max", "at least 1"),
        ({"offset-syncs.topic.location": "Target"}, "offset-syncs.topic.location", "source"),
        ({"topics": "ok, bad("}, "topics", "Invalid regex 'bad('"),
        ({"A->B.topics.exclude": "*x"}, "A->B.topics.exclude", "Invalid regex '*x'"),
        ({"groups": "[z-a]"}, "groups", "Invalid regex"),
        ({"B->A.groups.exclude": "("}, "B->A.groups.exclude", "Invalid regex"),
        ({"config.properties.exclude": "a)"}, "config.properties.exclude", "Invalid regex"),
        ({"topics.blacklist": "("}, "topics.blacklist", "Invalid regex"),
        ({"A->B.use.defaults.from": "both"}, "A->B.use.defaults.from", "source, target"),
        ({"security.protocol": "abc"}, "security.protocol", "PLAINTEXT"),
        ({"A.security.protocol": "abc"}, "A.security.protocol", "PLAINTEXT"),
        ({"A.sasl.login.refresh.buffer.seconds": "x"}, "A.sasl.login.refresh.buffer.seconds",
         "SHORT"),
        ({"clusters": "A B"}, "clusters", "Invalid cluster alias 'A B'"),
        ({"clusters": " "}, "clusters", "At least one cluster alias"),
    ],
)  # fmt: skip
def test_errors_name_the_key(extra: dict[str, str], key: str, fragment: str) -> None:
    message = _error(_two(**extra))
    assert f"configuration {key}:" in message or f"configuration {key} " in message, message
    assert fragment in message


def test_missing_clusters() -> None:
    assert 'Missing required configuration "clusters"' in _error({"A.bootstrap.servers": "a"})


@pytest.mark.parametrize("missing", ["A", "B"])
def test_enabled_flow_needs_bootstrap_servers(missing: str) -> None:
    props = _two()
    del props[f"{missing}.bootstrap.servers"]
    message = _error(props)
    assert f'"{missing}.bootstrap.servers"' in message
    assert "A->B" in message


def test_empty_bootstrap_servers_is_missing() -> None:
    assert '"B.bootstrap.servers"' in _error(_two(**{"B.bootstrap.servers": " "}))


def test_bootstrap_only_needed_for_enabled_flows() -> None:
    config = MirrorMakerConfig(_two(clusters="A, B, C"))  # C has none but replicates nothing
    assert config.enabled_flows() == [AB]
    top_level = {"clusters": "A, B", "bootstrap.servers": "shared:9092", "A->B.enabled": "true"}
    assert MirrorMakerConfig(top_level).cluster_props("B")["bootstrap.servers"] == "shared:9092"


def test_docs_typos_are_caught() -> None:
    # From Kafka's ops docs: "us-west->us.east.topics" and "Us-east.bootstrap.servers".
    docs = {
        "clusters": "us-west, us-east",
        "us-west.bootstrap.servers": "broker3-west:9092",
        "us-east.bootstrap.servers": "broker5-east:9092",
        "us-west->us-east.enabled": "true",
    }
    assert "us-west->us.east.topics" in _error({**docs, "us-west->us.east.topics": "foo.*"})
    typo = dict(docs)
    typo["Us-east.bootstrap.servers"] = typo.pop("us-east.bootstrap.servers")
    assert '"us-east.bootstrap.servers"' in _error(typo)


def test_custom_filter_class_skips_regex_checks() -> None:
    config = MirrorMakerConfig(_two(**{"topic.filter.class": "com.example.Filter", "topics": "("}))
    assert config.connector_base_config(AB)["topics"] == "("


def test_dotted_aliases() -> None:
    config = MirrorMakerConfig({
        "clusters": "eu, us.east",
        "eu.bootstrap.servers": "eu:1",
        "us.east.bootstrap.servers": "us:1",
        "eu->us.east.enabled": "true",
        "eu->us.east.topics": "t",
    })  # fmt: skip
    pair = SourceAndTarget("eu", "us.east")
    assert config.enabled_flows() == [pair]
    assert config.connector_base_config(pair)["topics"] == "t"


def test_connector_base_config_rejects_unknown_pairs() -> None:
    config = MirrorMakerConfig(_two())
    with pytest.raises(MirrorConfigError, match="'source'"):
        config.connector_base_config(SourceAndTarget("source", "target"))
    with pytest.raises(MirrorConfigError, match="same"):
        config.worker_config(SourceAndTarget("A", "A"))


def test_ignored_keys_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="seaway.mirror.config"):
        config = MirrorMakerConfig(_two(**{"use.defaults.from": "source", "xxx": "1",
                                           "listeners": "http://:8080"}))  # fmt: skip
    assert config.ignored_keys() == ["use.defaults.from", "xxx"]
    assert "use.defaults.from, xxx" in caplog.text
    assert "use.defaults.from" not in config.connector_base_config(AB)


def test_non_string_values_and_repr() -> None:
    props: dict[str, Any] = _two()
    props.update({"tasks.max": 3, "dedicated.mode.enable.internal.rest": True})
    config = MirrorMakerConfig(props)
    assert config.raw["tasks.max"] == "3"
    assert config.enable_internal_rest
    assert repr(config) == "MirrorMakerConfig(clusters=['A', 'B'], flows=['A->B'])"


def test_key_errors_do_not_echo_values() -> None:
    with pytest.raises(MirrorConfigError) as info:
        MirrorMakerConfig(_two(**{"C->B.sasl.jaas.config": "password=hunter2"}))
    assert info.value.name == "C->B.sasl.jaas.config"
    assert "hunter2" not in str(info.value)
    props = _two()
    del props["B.bootstrap.servers"]
    with pytest.raises(MirrorConfigError) as missing:
        MirrorMakerConfig(props)
    assert missing.value.name == "B.bootstrap.servers"


def test_config_providers_resolve_mm2_properties(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``${file:...}`` and ``${env:...}`` in mm2.properties, resolved with its providers."""
    secrets = tmp_path / "clusters.properties"
    secrets.write_text("a.servers=broker-a:9092\n", encoding="utf-8")
    monkeypatch.setenv("SEAWAY_MM2_JAAS", "secret-jaas")
    mm2 = tmp_path / "mm2.properties"
    mm2.write_text(
        "clusters=A, B\n"
        "config.providers=file,env\n"
        "config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider\n"
        "config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider\n"
        f"A.bootstrap.servers=${{file:{secrets}:a.servers}}\n"
        "B.bootstrap.servers=broker-b:9092\n"
        "B.sasl.password.note=${env:SEAWAY_MM2_JAAS}\n"
        "A->B.enabled=true\n",
        encoding="utf-8",
    )
    config = MirrorMakerConfig.from_file(mm2)
    assert config.cluster_props("A")["bootstrap.servers"] == "broker-a:9092"
    assert config.cluster_props("B")["sasl.password.note"] == "secret-jaas"
