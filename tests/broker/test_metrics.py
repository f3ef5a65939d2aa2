"""The broker's admin API: Prometheus metrics named as the JMX exporter names Kafka's mbeans,
counted from real clients' traffic, and the history of their rates."""

from __future__ import annotations

import argparse
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient
from prometheus_client.parser import text_string_to_metric_families

from seaway.broker import Broker, BrokerProcess, BrokerThread
from seaway.cli import broker as broker_cli
from seaway.config import ConfigException
from tests.broker.clients import consume_all, create_topic, produce, quiet

pytestmark = pytest.mark.timeout(90)

ADMIN = {"admin.listener": "http://127.0.0.1:0"}
TOPIC = "kafka_server_brokertopicmetrics_"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def get(url: str) -> tuple[str, bytes]:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.headers["Content-Type"], response.read()


def scrape(broker: BrokerThread) -> Samples:
    assert broker.broker.admin is not None
    return scrape_url(broker.broker.admin.url)


def scrape_url(url: str) -> Samples:
    """``GET /metrics`` read with prometheus_client's own parser."""
    content_type, body = get(url + "/metrics")
    assert content_type.startswith("text/plain; version=0.0.4")
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    key = (name, frozenset(labels.items()))
    assert key in samples, f"no sample {name}{labels}"
    return samples[key]


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of *name*'s samples that carry *labels* (whatever their other labels)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


def test_counts_match_what_real_clients_produced_and_fetched(
    kafka_cluster: Callable[..., BrokerThread], topic_name: str
) -> None:
    broker = kafka_cluster(ADMIN)
    bootstrap = broker.bootstrap_servers
    create_topic(bootstrap, topic_name, partitions=3)
    records = [(f"k{i}".encode(), b"v" * (i % 40)) for i in range(300)]
    produce(bootstrap, topic_name, records)
    assert len(consume_all(bootstrap, topic_name, 300)) == 300
    client = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    client.list_topics(timeout=10)  # an open connection while scraping
    samples = scrape(broker)

    topic = {"topic": topic_name}
    assert value(samples, TOPIC + "messagesin_total", **topic) == 300
    # all topics: this one and the group records of consume_all's group (Kafka counts both)
    internal = {"topic": "__consumer_offsets"}
    internal_in = value(samples, TOPIC + "messagesin_total", **internal)
    assert value(samples, TOPIC + "messagesin_total") == 300 + internal_in
    size = total(samples, "kafka_log_log_size", **topic)
    assert size > 300 * 20
    assert value(samples, TOPIC + "bytesin_total", **topic) == size  # batches stored as sent
    internal_bytes = value(samples, TOPIC + "bytesin_total", **internal)
    assert value(samples, TOPIC + "bytesin_total") == size + internal_bytes
    assert value(samples, TOPIC + "bytesout_total", **topic) >= size  # each batch fetched
    assert value(samples, TOPIC + "totalproducerequests_total", **topic) >= 3
    assert value(samples, TOPIC + "failedproducerequests_total", **topic) == 0
    assert value(samples, TOPIC + "totalfetchrequests_total", **topic) >= 3
    assert value(samples, TOPIC + "failedfetchrequests_total") == 0
    for partition in ("0", "1", "2"):
        labels = {**topic, "partition": partition}
        assert value(samples, "kafka_log_log_logstartoffset", **labels) == 0
        assert value(samples, "kafka_log_log_numlogsegments", **labels) == 1
    assert total(samples, "kafka_log_log_logendoffset", **topic) == 300

    requests = "kafka_network_requestmetrics_requests_total"
    for api in ("ApiVersions", "Metadata", "CreateTopics", "Produce", "Fetch", "JoinGroup"):
        assert total(samples, requests, request=api) > 0, api
    assert total(samples, requests, request="FetchConsumer") == total(
        samples, requests, request="Fetch"
    )
    assert total(samples, requests, request="FetchFollower") == 0
    latency = "kafka_network_requestmetrics_totaltimems"
    produced = total(samples, requests, request="Produce")
    assert value(samples, latency + "_count", request="Produce") == produced
    assert value(samples, latency + "_sum", request="Produce") > 0
    median = value(samples, latency, request="Produce", quantile="0.50")
    assert 0 < median <= value(samples, latency, request="Produce", quantile="0.999")

    partitions = 3 + 50  # the topic's and __consumer_offsets' (offsets.topic.num.partitions)
    assert value(samples, "kafka_server_replicamanager_partitioncount") == partitions
    assert value(samples, "kafka_server_replicamanager_leadercount") == partitions
    assert value(samples, "kafka_server_replicamanager_underreplicatedpartitions") == 0
    assert value(samples, "kafka_controller_kafkacontroller_activecontrollercount") == 1
    assert value(samples, "kafka_controller_kafkacontroller_globaltopiccount") == 2
    connections = "kafka_server_socket_server_metrics_connection_count"
    assert value(samples, connections, listener="PLAINTEXT", networkProcessor="0") >= 1
    groups = "kafka_coordinator_group_groupmetadatamanager_numgroups"
    assert value(samples, groups) == 1  # consume_all's group
    states = ("preparingrebalance", "completingrebalance", "stable", "dead", "empty")
    assert sum(value(samples, groups + s) for s in states) == 1


def test_failed_produce_requests_as_kafka_counts_them(
    kafka_cluster: Callable[..., BrokerThread], topic_name: str
) -> None:
    broker = kafka_cluster(ADMIN)
    bootstrap = broker.bootstrap_servers
    create_topic(bootstrap, topic_name, partitions=1, config={"cleanup.policy": "compact"})
    with pytest.raises(KafkaException, match="INVALID_RECORD"):
        produce(bootstrap, topic_name, [(None, b"no key on a compacted topic")])
    samples = scrape(broker)
    topic = {"topic": topic_name}
    assert value(samples, TOPIC + "failedproducerequests_total", **topic) == 1
    assert value(samples, TOPIC + "totalproducerequests_total", **topic) == 1
    assert value(samples, TOPIC + "failedproducerequests_total") == 1
    assert value(samples, TOPIC + "messagesin_total", **topic) == 0
    assert value(samples, TOPIC + "bytesin_total", **topic) == 0


def test_deleted_topics_stay_counted_in_all_topics(
    kafka_cluster: Callable[..., BrokerThread], topic_name: str
) -> None:
    broker = kafka_cluster(ADMIN)
    bootstrap = broker.bootstrap_servers
    gone, kept = topic_name + "-gone", topic_name + "-kept"
    for name in (gone, kept):
        create_topic(bootstrap, name, partitions=1)
    produce(bootstrap, gone, [(b"k", b"x")] * 5)
    produce(bootstrap, kept, [(b"k", b"y")] * 7)
    before = scrape(broker)
    client = AdminClient(quiet({"bootstrap.servers": bootstrap}))
    client.delete_topics([gone])[gone].result(30)
    after = scrape(broker)
    assert value(after, TOPIC + "messagesin_total") == 12
    assert value(after, TOPIC + "bytesin_total") == value(before, TOPIC + "bytesin_total")
    assert value(after, TOPIC + "messagesin_total", topic=kept) == 7
    assert total(after, TOPIC + "messagesin_total", topic=gone) == 0
    assert total(after, "kafka_log_log_size", topic=gone) == 0


def test_history_rates_add_up_to_the_counters(
    kafka_cluster: Callable[..., BrokerThread], topic_name: str
) -> None:
    broker = kafka_cluster({**ADMIN, "admin.history.interval.ms": 100})
    admin = broker.broker.admin
    assert admin is not None
    bootstrap = broker.bootstrap_servers
    create_topic(bootstrap, topic_name, partitions=2)
    produce(bootstrap, topic_name, [(f"k{i}".encode(), b"value") for i in range(50)])
    bytes_in = value(scrape(broker), TOPIC + "bytesin_total")

    def integral(history: dict[str, Any], name: str, **labels: str) -> float:
        """What the series' rates add up to over the sampled intervals."""
        series = next(s for s in history["series"] if s["name"] == name and s["labels"] == labels)
        times = history["times"]
        return sum(
            rate * (times[i] - times[i - 1])
            for i, rate in enumerate(series["values"])
            if i > 0 and rate is not None
        )

    deadline = time.monotonic() + 30
    while True:
        content_type, body = get(admin.url + "/api/history")
        history = json.loads(body)
        if abs(integral(history, "bytes_in_per_s") - bytes_in) < 1e-6:
            break
        assert time.monotonic() < deadline, f"rates never added up to {bytes_in}: {history}"
        time.sleep(0.1)
    assert content_type == "application/json"
    assert history["interval_s"] == 0.1 and history["window_s"] == 3600
    assert integral(history, "messages_in_per_s") == pytest.approx(50)
    names = {(s["name"], tuple(s["labels"].items())) for s in history["series"]}
    assert ("messages_in_per_s", (("topic", topic_name),)) in names
    assert ("requests_per_s", (("request", "Produce"),)) in names
    _, body = get(admin.url + f"/api/history?name=bytes_out_per_s&since={history['times'][-1]}")
    later = json.loads(body)
    assert {s["name"] for s in later["series"]} == {"bytes_out_per_s"}
    assert all(t > history["times"][-1] for t in later["times"])
    with pytest.raises(urllib.error.HTTPError, match="400"):
        get(admin.url + "/api/history?since=yesterday")


def test_admin_listener_is_off_unless_set_and_checked(broker: BrokerThread) -> None:
    assert broker.broker.admin is None
    with pytest.raises(ConfigException, match=r"configuration admin\.listener: expected http://"):
        Broker({"admin.listener": "https://127.0.0.1:9999"})
    parser = argparse.ArgumentParser()
    broker_cli.add_parser(parser.add_subparsers(), "broker")
    args = parser.parse_args(["broker", "--host", "0.0.0.0", "--admin-port", "9999"])
    assert broker_cli.broker_config(args)["admin.listener"] == "http://0.0.0.0:9999"


def test_seaway_broker_prints_and_serves_its_admin_api(tmp_path: Any) -> None:
    with BrokerProcess(tmp_path / "data", config=ADMIN) as process:
        assert process.process is not None and process.process.stdout is not None
        line = process.process.stdout.readline().decode()
        assert line.startswith("Seaway broker admin API at http://127.0.0.1:"), line
        url = line.rsplit(" ", 1)[1].strip()
        create_topic(process.bootstrap_servers, "t", partitions=1)
        samples = scrape_url(url)
        assert value(samples, "kafka_log_log_size", topic="t", partition="0") == 0
        assert total(samples, "kafka_network_requestmetrics_requests_total") > 0
