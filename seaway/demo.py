"""The demo behind ``make demo``: what Seaway does, end to end, on embedded defaults.

It starts an embedded broker, creates a topic, produces a few thousand keyed records,
consumes them with a two-member consumer group and commits; then Spark reads the topic
with ``format("kafka")`` and copies it to another topic exactly-once, and a read_committed
consumer counts the copy. Then a Kafka Connect worker runs the book's
FileStreamSource/FileStreamSink session over its REST API. Last, a second cluster B
mirrors the topic with MirrorMaker 2's driver and a stopped group fails over to B with
translated offsets (:mod:`seaway.mirror.demo`). Each server's web console is printed while
it runs; at the end, every console URL and the command that serves one.
"""

from __future__ import annotations

import gc
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from confluent_kafka import TopicPartition
from confluent_kafka.admin import NewTopic

from seaway.broker import BrokerThread
from seaway.kafka import clients
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S
from seaway.mirror.demo import STEPS as MIRROR_STEPS
from seaway.mirror.demo import run_mirror_demo

TOPIC = "demo-orders"
COPY = "demo-orders-copy"
GROUP = "demo-group"
PARTITIONS = 3

CONSOLE_LISTENER = "http://127.0.0.1:0"  # the broker's admin port: its web console
CONSOLES = {
    "broker": ("broker", "seaway broker --admin-port 9999", "http://127.0.0.1:9999/ui/"),
    "connect": ("Kafka Connect", "seaway connect-distributed worker.properties "
                "(listeners=http://127.0.0.1:8083)", "http://127.0.0.1:8083/ui/"),
    "mirror": ("MirrorMaker 2", "seaway mirror-maker mm2.properties (seaway.metrics.port=9404)",
               "http://127.0.0.1:9404/ui/"),
}  # fmt: skip
"""Each web console: its name, a command that serves it, and the URL that command serves."""

STEPS = (
    "broker and topics",
    "produce",
    "consumer group",
    "Spark exactly-once copy",
    "Kafka Connect file session",
    *MIRROR_STEPS,
)
"""The demo's steps, in order."""
Progress = Callable[[int, int, str], None]
"""Called with (steps done, steps in all, the step under way) as each step starts."""


def _say(message: str) -> None:
    print(f"[demo] {message}", flush=True)


def _produce(bootstrap: str, records: int) -> float:
    producer = clients.producer(
        {
            "bootstrap.servers": bootstrap,
            "linger.ms": 5,
            "enable.idempotence": True,
            "log.connection.close": False,
        }
    )
    delivered = 0
    errors: list[str] = []

    def on_delivery(err: object, _msg: object) -> None:
        nonlocal delivered
        if err is not None:
            errors.append(str(err))
        else:
            delivered += 1

    started = time.monotonic()
    for i in range(records):
        producer.produce(
            TOPIC,
            key=f"customer-{i % 100}".encode(),
            value=f'{{"order": {i}, "amount": {i % 997}}}'.encode(),
            headers={"source": b"seaway-demo"},
            on_delivery=on_delivery,
        )
        producer.poll(0)
    producer.flush(30)
    del producer
    gc.collect()  # close its connections now, not when the broker has gone
    if errors or delivered != records:
        raise SystemExit(f"[demo] delivery failed: {delivered}/{records} delivered, {errors[:3]}")
    return time.monotonic() - started


def _consume(bootstrap: str, records: int) -> dict[str, int]:
    consumers = [
        clients.consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": GROUP,
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
            },
            client_id=f"demo-consumer-{i}",
        )
        for i in range(2)
    ]
    for consumer in consumers:
        consumer.subscribe([TOPIC])
    seen: dict[str, int] = {}
    deadline = time.monotonic() + 60
    total = 0
    while total < records and time.monotonic() < deadline:
        for i, consumer in enumerate(consumers):
            for message in consumer.consume(500, timeout=0.2):
                if message.error():
                    raise SystemExit(f"[demo] consume error: {message.error()}")
                name = f"demo-consumer-{i}"
                seen[name] = seen.get(name, 0) + 1
                total += 1
    for consumer in consumers:
        consumer.commit(asynchronous=False)
    for consumer in consumers:
        consumer.close()
    if total != records:
        raise SystemExit(f"[demo] consumed {total} of {records} records")
    return seen


def _stepper(on_progress: Progress | None) -> Callable[[str], None]:
    """A callback for each step as it starts, by its name in :data:`STEPS`."""

    def step(name: str) -> None:
        done = STEPS.index(name)  # a step missing from STEPS fails here, shown or not
        if on_progress is not None:
            on_progress(done, len(STEPS), name)

    return step


def run_demo(
    records: int = 5000, data_dir: str | None = None, on_progress: Progress | None = None
) -> int:
    """Run the demo; return a process exit code. *on_progress* follows its :data:`STEPS`."""
    step = _stepper(on_progress)
    with tempfile.TemporaryDirectory(prefix="seaway-demo-") as tmp:
        directory = Path(data_dir or tmp)
        step(STEPS[0])
        _say(f"starting an embedded broker (data in {directory})")
        consoles: dict[str, str] = {}
        with BrokerThread(directory, config={"admin.listener": CONSOLE_LISTENER}) as broker:
            bootstrap = broker.bootstrap_servers
            _say(f"broker listening on {bootstrap}")
            if broker.broker.admin is not None:
                consoles["broker"] = f"{broker.broker.admin.url}/ui/"
                _say(f"the broker's web console at {consoles['broker']} while the demo runs")
            admin = clients.admin({"bootstrap.servers": bootstrap})
            for name in (TOPIC, COPY):
                admin.create_topics([NewTopic(name, PARTITIONS)])[name].result(REQUEST_TIMEOUT_S)
            _say(f"created topics {TOPIC} and {COPY} with {PARTITIONS} partitions each")
            del admin
            step(STEPS[1])
            elapsed = _produce(bootstrap, records)
            _say(f"produced {records} records (idempotent producer) in {elapsed:.2f}s")
            step(STEPS[2])
            seen = _consume(bootstrap, records)
            for name, count in sorted(seen.items()):
                _say(f"  {name} consumed {count} records")
            check = clients.consumer({"bootstrap.servers": bootstrap, "group.id": GROUP})
            committed = check.committed([TopicPartition(TOPIC, p) for p in range(PARTITIONS)], 10)
            lag = 0
            for tp in committed:
                _low, high = check.get_watermark_offsets(tp, timeout=10)
                lag += high - tp.offset
                _say(f"  {TOPIC}[{tp.partition}] committed offset {tp.offset}, end offset {high}")
            check.close()
            _say(f"group {GROUP} consumed everything: total lag {lag}")
            step(STEPS[3])
            copied = _spark_copy(bootstrap, directory / "spark-checkpoint", records)
            step(STEPS[4])
            identical = _connect_walkthrough(bootstrap, directory / "connect", consoles)
            mirrored = run_mirror_demo(
                _say, bootstrap, directory, TOPIC, PARTITIONS, step, consoles=consoles
            )
        _say("broker stopped cleanly")
        _print_consoles(consoles)
    if on_progress is not None:
        on_progress(len(STEPS), len(STEPS), "done")
    return 0 if lag == 0 and copied == records and identical and mirrored else 1


def _print_consoles(live: dict[str, str]) -> None:
    """The web consoles the demo served (stopped with it) and the commands that serve them."""
    _say("web consoles (served while the demo ran; the demo has stopped them):")
    for key, (name, command, url) in CONSOLES.items():
        _say(f"  {name}: {live.get(key, 'not started')}")
        _say(f"    serve it: {command}  ->  {url}")


def _spark_copy(bootstrap: str, checkpoint: Path, records: int) -> int:
    """Spark reads the topic with format("kafka") and copies it exactly-once."""
    from seaway.spark import spark_session

    _say("starting Spark (local[2]) with Seaway's Kafka source and sink")
    started = time.monotonic()
    spark = spark_session("local[2]", app_name="seaway-demo", config={"spark.ui.enabled": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    _say(f"Spark up in {time.monotonic() - started:.1f}s")
    try:
        per_partition = (
            spark.read.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", TOPIC)
            .load()
            .groupBy("partition")
            .count()
            .orderBy("partition")
            .collect()
        )
        for row in per_partition:
            _say(f"  spark.read: {TOPIC}[{row['partition']}] holds {row['count']} records")
        copy = COPY
        query = (
            spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("subscribe", TOPIC)
            .option("startingOffsets", "earliest")
            .option("maxOffsetsPerTrigger", max(records // 4, 1))
            .option("includeHeaders", "true")
            .load()
            .selectExpr("key", "value", "headers", "partition")
            .writeStream.format("kafka")
            .option("kafka.bootstrap.servers", bootstrap)
            .option("topic", copy)
            .option("exactlyOnce", "true")
            .option("checkpointLocation", str(checkpoint))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        batches = [p["numInputRows"] for p in query.recentProgress]
        _say(f"streaming copy {TOPIC} -> {copy}: micro-batches of {batches} records, exactly-once")
        reader = clients.consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": "demo-check",
                "isolation.level": "read_committed",
                "auto.offset.reset": "earliest",
            }
        )
        reader.subscribe([copy])
        seen = 0
        deadline = time.monotonic() + 30
        while seen < records and time.monotonic() < deadline:
            seen += sum(1 for m in reader.consume(1000, timeout=0.5) if m.error() is None)
        reader.close()
        _say(f"a read_committed consumer sees {seen} records in {copy} (expected {records})")
        return seen
    finally:
        spark.stop()


SERVER_PROPERTIES = """\
# Licensed to the Apache Software Foundation (ASF) under one or more
# contributor license agreements.  See the NOTICE file distributed with
# this work for additional information regarding copyright ownership.

############################# Server Basics #############################

# The id of the broker. This must be set to a unique integer for each broker.
broker.id=0

############################# Socket Server Settings #############################

# The number of threads that the server uses for receiving requests from the network
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400

############################# Log Basics #############################

log.dirs=/tmp/kafka-logs
num.partitions=1
"""


def _rest(url: str, method: str, path: str, body: object = None) -> tuple[int, object]:
    import json
    import urllib.error
    import urllib.request

    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url.rstrip("/") + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            payload = response.read()
            return response.status, json.loads(payload) if payload else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def _connect_walkthrough(bootstrap: str, directory: Path, consoles: dict[str, str]) -> bool:
    """The seed's Connect session (ch. 7) against a distributed worker on this broker."""
    import json

    from seaway.connect.assembly import distributed_worker

    config = directory / "config"
    config.mkdir(parents=True, exist_ok=True)
    source = config / "server.properties"
    source.write_text(SERVER_PROPERTIES, encoding="utf-8")
    copy = directory / "copy-of-server-properties"
    props = {
        "bootstrap.servers": bootstrap,
        "group.id": "connect-cluster",
        "config.storage.topic": "connect-configs",
        "offset.storage.topic": "connect-offsets",
        "status.storage.topic": "connect-status",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.flush.interval.ms": "10000",
        "listeners": "http://127.0.0.1:0",
        "spark.master": "local[2]",
        "spark.ui.enabled": "false",
    }
    _say("starting a distributed Kafka Connect worker (bin/connect-distributed.sh equivalent)")
    started = time.monotonic()
    connect = distributed_worker(props)
    connect.start()
    url = connect.rest.url
    try:
        _say(f"worker up in {time.monotonic() - started:.1f}s; REST API at {url}")
        consoles["connect"] = f"{url.rstrip('/')}/ui/"
        _say(f"the worker's web console at {consoles['connect']} while the worker runs")
        _say(f"$ curl {url}  ->  {json.dumps(_rest(url, 'GET', '/')[1])}")
        plugins = _rest(url, "GET", "/connector-plugins")[1]
        _say(f"$ curl {url}connector-plugins  ->  {json.dumps(plugins)}")
        request = {"name": "load-kafka-config", "config": {
            "connector.class": "FileStreamSource", "file": str(source),
            "topic": "kafka-config-topic"}}  # fmt: skip
        status, body = _rest(url, "POST", "/connectors", request)
        _say(f"$ curl -X POST {url}connectors ({request['name']})  ->  {status} {json.dumps(body)}")
        lines = source.read_text(encoding="utf-8").splitlines()
        topic = _read_topic(bootstrap, "kafka-config-topic", len(lines))
        _say(f"kafka-config-topic holds {len(topic)} records, e.g.:")
        for value in topic[:3]:
            _say(f"  {value}")
        request = {"name": "dump-kafka-config", "config": {
            "connector.class": "FileStreamSink", "file": str(copy),
            "topics": "kafka-config-topic"}}  # fmt: skip
        status, body = _rest(url, "POST", "/connectors", request)
        _say(f"$ curl -X POST {url}connectors ({request['name']})  ->  {status} {json.dumps(body)}")
        deadline = time.monotonic() + 120
        identical = False
        while time.monotonic() < deadline and not identical:
            time.sleep(0.5)
            identical = copy.exists() and copy.read_bytes() == source.read_bytes()
            done = copy.read_text(encoding="utf-8").count("\n") if copy.exists() else 0
            _say(f"  sink progress: {done}/{len(lines)} lines in {copy.name}")
        _say(f"copy-of-server-properties identical to server.properties: {identical}")
        status, _ = _rest(url, "DELETE", "/connectors/dump-kafka-config")
        _say(f"$ curl -X DELETE {url}connectors/dump-kafka-config  ->  {status}")
        _say(f"connectors now: {_rest(url, 'GET', '/connectors')[1]}")
        return identical
    finally:
        connect.stop()
        _say("Connect worker stopped")


def _read_topic(bootstrap: str, topic: str, count: int) -> list[str]:
    reader = clients.consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "demo-console-consumer",
            "auto.offset.reset": "earliest",
        }
    )
    reader.subscribe([topic])
    values: list[str] = []
    deadline = time.monotonic() + 120
    while len(values) < count and time.monotonic() < deadline:
        values += [
            (m.value() or b"").decode() for m in reader.consume(100, 0.5) if m.error() is None
        ]
    reader.close()
    return values
