"""Poison records in a sink connector (Kafka's ErrorHandlingIntegrationTest): with
``errors.tolerance=none`` the task fails with the error in its trace; with ``all`` and a
dead letter queue every bad record lands in the queue once, as consumed, with Kafka's
``__connect.errors.*`` context headers, every good record reaches the sink, the error is
logged with the record (``errors.log.include.messages``), and the worker's ``/metrics``
count it all."""

from __future__ import annotations

import time
from pathlib import Path

from confluent_kafka import Consumer, Producer, TopicPartition

from tests.broker.clients import create_topic, quiet
from tests.connect.workers import (
    WorkerProcess,
    distributed_props,
    line_count,
    sample,
    scrape,
    wait_for,
)

JSON = "org.apache.kafka.connect.json.JsonConverter"
BAD = {7, 23, 41}
# Record timestamps: recent, or the broker's retention (7 days) may delete the records before
# the connectors read them (timestamps of 1970 did, once, in a full run).
T0 = int(time.time() * 1000) - 60_000


def _fill(bootstrap: str, topic: str) -> None:
    producer = Producer(quiet({"bootstrap.servers": bootstrap}))
    for i in range(50):
        value = b"not json {" if i in BAD else b'{"n": %d}' % i
        producer.produce(
            topic, key=b"k%d" % i, value=value, headers=[("origin", b"test")], timestamp=T0 + i
        )
    assert producer.flush(30) == 0


def _dead_letters(bootstrap: str, topic: str, expected: int) -> list[object]:
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": "dlq-check"}))
    consumer.assign([TopicPartition(topic, 0, 0)])
    messages: list[object] = []
    try:
        wait_for(
            "the dead letters",
            lambda: (
                messages.extend(m for m in consumer.consume(100, 1.0) if not m.error())
                or len(messages) >= expected
            ),
        )
        messages.extend(m for m in consumer.consume(100, 2.0) if not m.error())  # no more
    finally:
        consumer.close()
    return messages


def test_poison_records_fail_the_task_or_go_to_the_dead_letter_queue(
    tmp_path: Path, bootstrap: str, topic_name: str
) -> None:
    create_topic(bootstrap, topic_name, partitions=1)
    _fill(bootstrap, topic_name)
    dlq = f"{topic_name}-dlq"
    common = {
        "connector.class": "FileStreamSink",
        "topics": topic_name,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": JSON,
        "value.converter.schemas.enable": "false",
    }
    props = distributed_props(bootstrap, topic_name)
    with WorkerProcess(props, tmp_path / "worker") as worker:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "strict", "config": {
            **common, "file": str(tmp_path / "strict.txt")}})  # fmt: skip
        rest.ok("POST", "/connectors", {"name": "tolerant", "config": {
            **common, "file": str(tmp_path / "tolerant.txt"),
            "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
            "errors.log.enable": "true",
            "errors.log.include.messages": "true",
        }})  # fmt: skip

        def strict_failed() -> str | None:
            _, status = rest.get("/connectors/strict/status")
            tasks = status.get("tasks") or []
            return tasks[0].get("trace") if tasks and tasks[0]["state"] == "FAILED" else None

        trace = wait_for("the strict task to fail", strict_failed)
        assert "not json" in trace or "JSON" in trace or "Json" in trace, trace
        out = tmp_path / "tolerant.txt"
        wait_for("every good record in the sink", lambda: line_count(out) >= 50 - len(BAD))
        letters = _dead_letters(bootstrap, dlq, len(BAD))
        tolerant = {"connector": "tolerant", "task": "0"}

        def counted() -> dict | None:
            m = scrape(rest)
            read = sample(m, "kafka_connect_sink_task_sink_record_read_total", **tolerant)
            return m if read == 50 else None

        metrics = wait_for("the tolerant task's counts in /metrics", counted)
    errors = {
        name: sample(metrics, f"kafka_connect_task_error_{name}", **tolerant)
        for name in ("total_record_errors", "total_records_skipped", "total_errors_logged",
                     "deadletterqueue_produce_requests", "deadletterqueue_produce_failures")
    }  # fmt: skip
    assert errors == {
        "total_record_errors": 3, "total_records_skipped": 3, "total_errors_logged": 3,
        "deadletterqueue_produce_requests": 3, "deadletterqueue_produce_failures": 0,
    }  # fmt: skip
    assert sample(metrics, "kafka_connect_sink_task_sink_record_send_total", **tolerant) == 47
    assert sample(metrics, "kafka_connect_sink_task_partition_count", **tolerant) == 1
    strict_task = {"connector": "strict", "task": "0", "status": "failed"}
    assert sample(metrics, "kafka_connect_connector_task_status", **strict_task) == 1
    assert sample(metrics, "kafka_connect_connector_status", connector="tolerant",
                  status="running") == 1  # fmt: skip
    assert sample(metrics, "kafka_connect_worker_connector_count") == 2
    assert sample(metrics, "kafka_connect_worker_connector_startup_success_total") == 2
    assert sample(metrics, "kafka_connect_worker_rebalance_connect_protocol",
                  connect_protocol="SESSIONED") == 1  # fmt: skip
    assert (sample(metrics, "kafka_connect_worker_rebalance_completed_rebalances_total") or 0) >= 1
    log = (tmp_path / "worker" / "worker.log").read_text()
    assert "Executing stage 'VALUE_CONVERTER'" in log and "value=b'not json {'" in log
    assert sorted(out.read_text().splitlines()) == sorted(
        f"{{n={i}}}" for i in range(50) if i not in BAD
    )
    assert len(letters) == len(BAD)  # each bad record once
    for message in letters:
        offset = int(message.key()[1:])  # type: ignore[attr-defined]
        assert offset in BAD and message.value() == b"not json {"  # type: ignore[attr-defined]
        assert message.timestamp()[1] == T0 + offset  # type: ignore[attr-defined]
        headers = dict(message.headers())  # type: ignore[attr-defined]
        assert headers["origin"] == b"test"
        assert headers["__connect.errors.topic"] == topic_name.encode()
        assert headers["__connect.errors.partition"] == b"0"
        assert headers["__connect.errors.offset"] == str(offset).encode()
        assert headers["__connect.errors.connector.name"] == b"tolerant"
        assert headers["__connect.errors.task.id"] == b"0"
        assert headers["__connect.errors.stage"] == b"VALUE_CONVERTER"
        assert headers["__connect.errors.class.name"] == JSON.encode()
        assert headers["__connect.errors.exception.class.name"]
        assert headers["__connect.errors.exception.message"]
        assert b"Traceback" in headers["__connect.errors.exception.stacktrace"]


def _with_plugin(
    tmp_path: Path, bootstrap: str, topic: str, module: str, source: str
) -> dict[str, object]:
    """A one-partition *topic* and worker properties whose plugin.path holds *module*."""
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / f"{module}.py").write_text(source)
    create_topic(bootstrap, topic, partitions=1)
    return distributed_props(bootstrap, topic, **{"plugin.path": str(plugins)})


FLAKY_SINK = '''
"""A sink whose put() fails twice with a retriable error, then writes every value."""
from pathlib import Path

from seaway.connect.api import SinkTask
from seaway.connect.api.errors import RetriableError
from seaway.connectors.file.sink import FileStreamSinkConnector


class FlakySinkTask(SinkTask):
    def version(self):
        return "1"

    def start(self, props):
        self.out = Path(props["file"])
        self.attempts = Path(props["file"] + ".attempts")

    def put(self, records):
        if not records:
            return
        failed = int(self.attempts.read_text()) if self.attempts.exists() else 0
        if failed < 2:
            self.attempts.write_text(str(failed + 1))
            raise RetriableError(f"not yet ({failed + 1})")
        with self.out.open("a") as f:
            f.writelines(f"{r.value}\\n" for r in records)

    def stop(self):
        pass


class FlakySinkConnector(FileStreamSinkConnector):
    def task_class(self):
        return FlakySinkTask
'''


def test_a_put_that_fails_twice_with_a_retriable_error_is_retried(
    tmp_path: Path, bootstrap: str, topic_name: str
) -> None:
    props = _with_plugin(tmp_path, bootstrap, topic_name, "flaky_sink", FLAKY_SINK)
    producer = Producer(quiet({"bootstrap.servers": bootstrap}))
    for i in range(20):
        producer.produce(topic_name, value=b"v%d" % i)
    assert producer.flush(30) == 0
    out = tmp_path / "out.txt"
    with WorkerProcess(props, tmp_path / "worker") as worker:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "flaky", "config": {
            "connector.class": "flaky_sink.FlakySinkConnector", "topics": topic_name,
            "file": str(out), "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "errors.retry.timeout": "30000", "errors.retry.delay.max.ms": "1000",
        }})  # fmt: skip
        wait_for("every record in the sink", lambda: line_count(out) >= 20)
        _, status = rest.get("/connectors/flaky/status")
        assert status["tasks"][0]["state"] == "RUNNING", status
        task = {"connector": "flaky", "task": "0"}
        sent = "kafka_connect_sink_task_sink_record_send_total"

        def sent_20() -> dict | None:
            m = scrape(rest)
            return m if sample(m, sent, **task) == 20 else None

        first = wait_for("20 records sent in /metrics", sent_20)
        assert sample(first, "kafka_connect_task_error_total_retries", **task) == 2
        for i in range(20, 30):
            producer.produce(topic_name, value=b"v%d" % i)
        assert producer.flush(30) == 0
        wait_for(
            "the counter moving with 10 more", lambda: sample(scrape(rest), sent, **task) == 30
        )
    assert out.read_text().splitlines() == [f"v{i}" for i in range(30)]
    assert (tmp_path / "out.txt.attempts").read_text() == "2"
    assert (
        "put() failed (attempt 2), retrying: not yet (2)"
        in (tmp_path / "worker" / "worker.log").read_text()
    )


REPORTING_SINK = '''
"""A sink that reports the values starting with "bad" through the errant record reporter."""
from pathlib import Path

from seaway.connect.api import SinkTask
from seaway.connectors.file.sink import FileStreamSinkConnector


class ReportingSinkTask(SinkTask):
    def version(self):
        return "1"

    def start(self, props):
        self.out = Path(props["file"])
        self.reporter = self.context.errant_record_reporter()

    def put(self, records):
        good = []
        for record in records:
            if record.value.startswith("bad"):
                self.reporter.report(record, ValueError(f"cannot take {record.value}")).result(30)
            else:
                good.append(record.value)
        with self.out.open("a") as f:
            f.writelines(v + "\\n" for v in good)

    def stop(self):
        pass


class ReportingSinkConnector(FileStreamSinkConnector):
    def task_class(self):
        return ReportingSinkTask
'''


def test_records_a_task_reports_from_put_go_to_the_dead_letter_queue(
    tmp_path: Path, bootstrap: str, topic_name: str
) -> None:
    """KIP-610: the errant record reporter, with a queue and without tolerance."""
    props = _with_plugin(tmp_path, bootstrap, topic_name, "reporting_sink", REPORTING_SINK)
    producer = Producer(quiet({"bootstrap.servers": bootstrap}))
    values = [f"bad{i}" if i % 5 == 0 else f"ok{i}" for i in range(20)]
    for value in values:
        producer.produce(topic_name, key=b"k", value=value.encode())
    assert producer.flush(30) == 0
    dlq = f"{topic_name}-dlq"
    common = {
        "connector.class": "reporting_sink.ReportingSinkConnector",
        "topics": topic_name,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "errors.log.enable": "true",
    }
    out, strict_out = tmp_path / "out.txt", tmp_path / "strict.txt"
    with WorkerProcess(props, tmp_path / "worker") as worker:
        rest = worker.rest
        assert rest is not None
        rest.ok("POST", "/connectors", {"name": "reporting", "config": {
            **common, "file": str(out), "errors.tolerance": "all",
            "errors.deadletterqueue.topic.name": dlq,
            "errors.deadletterqueue.topic.replication.factor": "1",
            "errors.deadletterqueue.context.headers.enable": "true",
        }})  # fmt: skip
        rest.ok("POST", "/connectors", {"name": "reporting-strict", "config": {
            **common, "file": str(strict_out)}})  # fmt: skip
        wait_for("the good records", lambda: line_count(out) >= 16)
        letters = _dead_letters(bootstrap, dlq, 4)

        def strict_failed() -> str | None:
            _, status = rest.get("/connectors/reporting-strict/status")
            tasks = status.get("tasks") or []
            return tasks[0].get("trace") if tasks and tasks[0]["state"] == "FAILED" else None

        assert "Tolerance exceeded in error handler" in wait_for("the strict task", strict_failed)
        task = {"connector": "reporting", "task": "0"}
        requests = "kafka_connect_task_error_deadletterqueue_produce_requests"
        wait_for("the reports counted", lambda: sample(scrape(rest), requests, **task) == 4)
    assert out.read_text().splitlines() == [v for v in values if not v.startswith("bad")]
    assert sorted(m.value() for m in letters) == sorted(  # type: ignore[attr-defined]
        v.encode() for v in values if v.startswith("bad")
    )
    for message in letters:
        headers = dict(message.headers())  # type: ignore[attr-defined]
        assert headers["__connect.errors.stage"] == b"TASK_PUT"
        assert headers["__connect.errors.class.name"] == b"reporting_sink.ReportingSinkTask"
        assert headers["__connect.errors.exception.message"].startswith(b"cannot take bad")
