"""The broker's web console (``/ui`` on the admin port) in headless Chromium: topics with
their partitions, end offsets and sizes, a group's lag per partition, plots that fill up
as records flow; one screenshot per page."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from seaway.broker import BrokerProcess, BrokerThread
from tests.broker.clients import consume_all, create_topic, produce
from tests.browser import chromium_browser, new_page, plotted_points, screenshot  # noqa: F401

pytestmark = pytest.mark.timeout(180)

ADMIN = {"admin.listener": "http://127.0.0.1:0", "admin.history.interval.ms": 200}


def _figure_lines(page: Any, caption: str) -> list[tuple[int, float]]:
    """(points, peak) of each line of the plot captioned *caption*."""
    return [
        (int(n), float(peak))
        for n, peak in page.eval_on_selector_all(
            "figure.plot",
            """(figures, caption) => figures
                .filter(f => f.querySelector('figcaption').textContent.startsWith(caption))
                .flatMap(f => [...f.querySelectorAll('path.line')]
                    .map(p => [p.dataset.points, p.dataset.peak]))""",
            caption,
        )
    ]


def test_broker_console_pages(
    kafka_cluster: Callable[..., BrokerThread], topic_name: str, browser: Any, tmp_path: Path
) -> None:
    broker = kafka_cluster(ADMIN)
    bootstrap = broker.bootstrap_servers
    create_topic(bootstrap, topic_name, partitions=3)
    produce(bootstrap, topic_name, [(f"k{i}".encode(), b"v" * 100, i % 3) for i in range(300)])
    group = f"app-<i>{topic_name}</i>"  # markup in a name shows as text
    consumed = consume_all(bootstrap, topic_name, 300, **{"group.id": group,
                                                          "enable.auto.commit": True})  # fmt: skip
    assert len(consumed) == 300
    produce(bootstrap, topic_name, [(b"late", b"x", p) for p in range(3) for _ in range(10)])
    assert broker.broker.admin is not None
    url = broker.broker.admin.url + "/ui"
    page = new_page(browser)

    # Overview: the plots fill up while the page refreshes itself (JavaScript).
    page.goto(url)
    assert page.title().startswith("Overview · Seaway broker")
    page.wait_for_function(
        "() => [...document.querySelectorAll('figure.plot')].some(f => f.textContent"
        ".includes('Consumer group lag') && f.querySelector('path.line'))",
        timeout=30_000,
    )
    records = _figure_lines(page, "Records in per second")
    assert any(n >= 2 and peak > 0 for n, peak in records), records
    assert max(peak for _, peak in _figure_lines(page, "Consumer group lag")) == 30
    path = page.eval_on_selector("figure.plot path.line", "p => p.getAttribute('d')")
    assert path.startswith("M") and "L" in path, path
    assert all(n >= 1 for n in plotted_points(page))
    screenshot(page, tmp_path, "broker-overview")

    # Topics: partitions, end offsets, sizes.
    page.click("nav >> text=Topics")
    page.wait_for_url(url + "/topics")
    topic = page.locator(f"details.topic[data-topic='{topic_name}']")
    assert "3 partitions · end offsets 330" in topic.locator("summary").inner_text()
    rows = topic.locator("table.partitions tbody tr").all_inner_texts()
    assert [r.split("\t")[:3] for r in rows] == [[str(p), "0", "110"] for p in range(3)], rows
    sizes = [r.split("\t")[3] for r in rows]
    assert all(s.endswith("B") and s != "—" for s in sizes), sizes
    screenshot(page, tmp_path, "broker-topics")

    # Consumer groups: the lag per partition.
    page.click("nav >> text=Consumer groups")
    page.wait_for_url(url + "/groups")
    details = page.locator("details.group", has=page.locator(f"text={topic_name}"))
    assert details.locator("summary b.group").inner_text() == group
    assert details.locator("i").count() == 0, "a group's name was not escaped"
    assert details.locator("b.total-lag").inner_text() == "30"
    lag_rows = details.locator("table.lag tbody tr").all_inner_texts()
    assert [r.split("\t") for r in lag_rows] == [
        [topic_name, str(p), "100", "110", "10"] for p in range(3)
    ], lag_rows
    screenshot(page, tmp_path, "broker-groups")
    page.context.close()


def test_broker_console_pages_render_without_javascript(
    kafka_cluster: Callable[..., BrokerThread], topic_name: str, browser: Any
) -> None:
    broker = kafka_cluster(ADMIN)
    create_topic(broker.bootstrap_servers, topic_name, partitions=2)
    assert broker.broker.admin is not None
    url = broker.broker.admin.url + "/ui"
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    for path, heading in (("/", "Seaway broker"), ("/topics", "Topics"),
                          ("/groups", "Consumer groups")):  # fmt: skip
        page.goto(url + path)
        assert page.locator("h1").first.inner_text().startswith(heading)
    page.goto(url + "/topics")
    assert page.locator(f"details.topic[data-topic='{topic_name}']").count() == 1
    context.close()
    # No connectors on a broker: no such page, no actions.
    for path, method in (("/connectors", "GET"), ("/actions", "POST")):
        request = urllib.request.Request(url + path, data=b"" if method == "POST" else None,
                                         method=method)  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 404


def test_seaway_broker_prints_its_console(tmp_path: Path) -> None:
    with BrokerProcess(tmp_path / "data", config={"admin.listener": "http://127.0.0.1:0"}) as p:
        assert p.process is not None and p.process.stdout is not None
        lines = [p.process.stdout.readline().decode() for _ in range(2)]
        assert lines[1].startswith("Seaway broker web console at http://127.0.0.1:"), lines
        url = lines[1].rsplit(" ", 1)[1].strip()
        with urllib.request.urlopen(url + "topics", timeout=30) as reply:
            assert reply.status == 200 and "<h1>Topics</h1>" in reply.read().decode()
