"""A distributed worker's web console (``/ui`` on its REST listener) in headless Chromium:
connectors and tasks with their states, Pause and Resume clicked and the state seen to
change, a failed task's trace, the worker's cluster's topics and groups, a plot of records
per second once records flowed; one screenshot per page; the forms without JavaScript."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from tests.broker.clients import consume_all, produce, quiet
from tests.browser import chromium_browser, new_page, screenshot  # noqa: F401
from tests.connect.workers import Rest, wait_for
from tests.embedded import EmbeddedConnectCluster

pytestmark = [pytest.mark.slow, pytest.mark.timeout(400)]

STRING = "org.apache.kafka.connect.storage.StringConverter"
CONVERTERS = {"key.converter": STRING, "value.converter": STRING}
LINES = 40


def _status(rest: Rest, name: str) -> tuple[str, list[str]]:
    status, body = rest.get(f"/connectors/{name}/status")
    if status != 200:
        return "", []
    return body["connector"]["state"], [t["state"] for t in body["tasks"]]


def _commit_ends(bootstrap: str, group: str) -> None:
    """Commit the end of every partition of ``lines`` for *group*."""
    consumer = Consumer(quiet({"bootstrap.servers": bootstrap, "group.id": group}))
    try:
        ends = [
            TopicPartition("lines", p, consumer.get_watermark_offsets(
                TopicPartition("lines", p), 30)[1])
            for p in range(3)
        ]  # fmt: skip
        consumer.commit(offsets=ends, asynchronous=False)
    finally:
        consumer.close()


def _row(page: Any, name: str) -> Any:
    return page.locator(f"tr.connector[data-connector='{name}']")


def test_connect_console(
    connect_cluster: Callable[..., EmbeddedConnectCluster], browser: Any, tmp_path: Path
) -> None:
    cluster = connect_cluster(workers=1)
    rest = cluster.rest
    source_file = tmp_path / "lines.txt"
    source_file.write_text("".join(f"line {i}\n" for i in range(LINES)), encoding="utf-8")
    rest.ok("POST", "/connectors", {"name": "files", "config": {
        "connector.class": "FileStreamSource", "file": str(source_file), "topic": "lines",
        **CONVERTERS}})  # fmt: skip
    rest.ok("POST", "/connectors", {"name": "broken-sink", "config": {
        "connector.class": "FileStreamSink", "topics": "lines",
        "file": str(tmp_path / "missing" / "copy.txt"), **CONVERTERS}})  # fmt: skip
    wait_for("the source running", lambda: _status(rest, "files") == ("RUNNING", ["RUNNING"]))
    wait_for("the sink's task failed", lambda: _status(rest, "broken-sink")[1] == ["FAILED"])
    app = "console-app"
    assert len(consume_all(cluster.bootstrap, "lines", LINES, **{"group.id": app})) == LINES
    _commit_ends(cluster.bootstrap, app)  # caught up on every partition
    produce(cluster.bootstrap, "lines", [(None, b"late", 0)] * 5)  # the app lags behind
    url = rest.url + "/ui"
    page = new_page(browser)
    appended = 0

    # Connectors: states, tasks, a failed task's trace; Pause and Resume clicked.
    page.goto(url + "/connectors")
    assert _row(page, "files").get_attribute("data-state") == "RUNNING"
    failed = page.locator("tr.task", has=page.locator("span.state.failed"))
    failed.locator("details.trace summary").click()
    trace = failed.locator("details.trace pre").inner_text()
    assert "Couldn't find or create file" in trace, trace
    screenshot(page, tmp_path, "connect-connectors")
    _row(page, "files").locator("button", has_text="Pause").click()
    page.wait_for_selector("tr.connector[data-connector='files'][data-state='PAUSED']",
                           timeout=60_000)  # fmt: skip
    assert _status(rest, "files")[0] == "PAUSED"
    _row(page, "files").locator("button", has_text="Resume").click()
    page.wait_for_selector("tr.connector[data-connector='files'][data-state='RUNNING']",
                           timeout=60_000)  # fmt: skip
    assert _status(rest, "files")[0] == "RUNNING"

    # Overview: records per second plotted once the worker's history sampled the source
    # while lines were appended to its file.
    page.goto(url + "/")
    plotted = (
        "() => [...document.querySelectorAll('figure.plot')].some(f => f.textContent"
        ".startsWith('Records per second') && [...f.querySelectorAll('path.line')]"
        ".some(p => Number(p.dataset.points) >= 2 && Number(p.dataset.peak) > 0))"
    )
    deadline = time.monotonic() + 120
    while not page.evaluate(plotted):
        assert time.monotonic() < deadline, "records per second never plotted above 0"
        with source_file.open("a", encoding="utf-8") as f:
            f.write("".join(f"more {appended + i}\n" for i in range(10)))
        appended += 10
        page.wait_for_timeout(1000)
    legend = page.locator("figure.plot", has_text="Records per second").locator("ul.legend")
    assert "files" in legend.inner_text()
    history = rest.ok("GET", "/api/history?name=records_per_s")  # the plot's data as JSON
    assert {s["name"] for s in history["series"]} == {"records_per_s"}
    assert any(
        s["labels"] == {"connector": "files"} and any(v for v in s["values"] if v)
        for s in history["series"]
    ), history
    screenshot(page, tmp_path, "connect-overview")

    # The worker's cluster: its topics, and the app's lag.
    page.click("nav >> text=Topics")
    total = LINES + 5 + appended
    page.wait_for_function(
        "total => document.querySelector(\"details.topic[data-topic='lines']\")"
        "?.textContent.includes(`end offsets ${total}`)",
        arg=total,
        timeout=60_000,
    )
    screenshot(page, tmp_path, "connect-topics")
    page.click("nav >> text=Consumer groups")
    group = page.locator(f"details.group[data-group='{app}']")
    assert group.locator("b.total-lag").inner_text() == str(5 + appended)
    rows = group.locator("table.lag tbody tr").all_inner_texts()
    assert [r.split("\t")[:2] for r in rows] == [["lines", str(p)] for p in range(3)], rows
    screenshot(page, tmp_path, "connect-groups")
    page.context.close()

    # Without JavaScript the buttons are forms that POST and come back.
    context = browser.new_context(java_script_enabled=False)
    plain = context.new_page()
    plain.goto(url + "/connectors")
    _row(plain, "files").locator("button", has_text="Pause").click()
    plain.wait_for_url(url + "/connectors")
    wait_for("paused by the form", lambda: _status(rest, "files")[0] == "PAUSED")
    context.close()
