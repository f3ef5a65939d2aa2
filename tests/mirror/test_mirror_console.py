"""``seaway mirror-maker``'s web console (``/ui`` on its metrics port) in headless Chromium:
the flow with records copied, lag, replication latency and checkpoint age; the topics and
consumer groups of both clusters; plots of records copied per second once records flowed;
one screenshot per page. (The module is not named test_console.py: tests/connect has one,
and neither folder is a package.)"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from tests.broker.clients import quiet
from tests.browser import chromium_browser, new_page, screenshot  # noqa: F401
from tests.mirror.test_metrics_http import _free_port
from tests.mirror.test_mirror_maker import _mm2_properties, _produce, _start, _stop

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

RECORDS = 2_000


def _flow_cell(page: Any, column: int) -> str:
    return str(page.locator("tr.flow[data-flow='A->B'] td").nth(column).inner_text())


def test_mirror_console(tmp_path: Path, cluster_a: Any, cluster_b: Any, browser: Any) -> None:
    a, b = cluster_a.bootstrap_servers, cluster_b.bootstrap_servers
    topic = f"console-{uuid.uuid4().hex[:6]}"
    admin = AdminClient({"bootstrap.servers": a})  # referenced until its future resolves
    admin.create_topics([NewTopic(topic, 3, 1)])[topic].result(30)
    _produce(a, topic, 0, RECORDS)
    group = f"app-{uuid.uuid4().hex[:6]}"
    consumer = Consumer(quiet({"bootstrap.servers": a, "group.id": group}))
    consumer.commit(offsets=[TopicPartition(topic, p, 100) for p in range(3)], asynchronous=False)
    consumer.close()
    port = _free_port()
    config = _mm2_properties(
        tmp_path / "mm2.properties", a, b, topic,
        **{"emit.checkpoints.interval.seconds": "1", "seaway.metrics.port": str(port),
           "seaway.metrics.lag.interval.ms": "1000"},
    )  # fmt: skip
    proc = _start(config, tmp_path / "mm2.log")
    url = f"http://127.0.0.1:{port}/ui"
    try:
        page = new_page(browser)
        # Mirror flows: copied, caught up, checkpoints emitted (the page refreshes itself).
        page.goto(url + "/flows")
        deadline = time.monotonic() + 180
        while True:
            row = page.locator("tr.flow[data-flow='A->B'] td").all_inner_texts()
            # every record copied (heartbeats too), caught up, checkpoints emitted
            if len(row) == 7 and int(row[2]) >= RECORDS and row[3] in ("0", "1") and row[6] != "—":
                break
            assert time.monotonic() < deadline, (
                f"the flow never caught up: {row}\n"
                + ((tmp_path / "mm2.log").read_text(errors="replace")[-3000:])
            )
            page.wait_for_timeout(1000)
        assert _flow_cell(page, 0).startswith("RUNNING")
        assert int(_flow_cell(page, 1)) >= 1  # topics: the one here, heartbeats
        assert _flow_cell(page, 4).endswith(("ms", " s")), _flow_cell(page, 4)  # latency
        screenshot(page, tmp_path, "mirror-flows")

        # Overview: records copied per second, plotted while more records flow.
        page.goto(url + "/")
        plotted = (
            "() => [...document.querySelectorAll('figure.plot')].some(f => f.textContent"
            ".startsWith('Records copied per second') && [...f.querySelectorAll('path.line')]"
            ".some(p => Number(p.dataset.points) >= 2 && Number(p.dataset.peak) > 0))"
        )
        produced = RECORDS
        deadline = time.monotonic() + 180
        while not page.evaluate(plotted):
            assert time.monotonic() < deadline, "records copied per second never plotted"
            _produce(a, topic, produced, 200)
            produced += 200
            page.wait_for_timeout(2000)
        legend = page.locator("figure.plot", has_text="Records copied per second")
        assert "A->B" in legend.locator("ul.legend").inner_text()
        screenshot(page, tmp_path, "mirror-overview")

        # Topics of both clusters; the group's lag on A.
        page.goto(url + "/topics")
        assert page.locator("h2", has_text="Topics of cluster A").count() == 1
        assert page.locator(f"details.topic[data-topic='{topic}']").count() == 1
        assert page.locator(f"details.topic[data-topic='A.{topic}']").count() == 1
        screenshot(page, tmp_path, "mirror-topics")
        page.goto(url + "/groups")
        details = page.locator(f"details.group[data-group='{group}']")
        assert details.count() >= 1  # on A (and on B once its offsets are synced)
        lag = int(details.first.locator("b.total-lag").inner_text())
        assert lag >= RECORDS - 300, lag
        screenshot(page, tmp_path, "mirror-groups")
        page.context.close()
    finally:
        _stop(proc)
