"""The console's app over HTTP (a real server, providers over a small in-memory state):
pages, forms that POST and come back, JSON for script calls, refusals that name the field,
actions from another site refused, a failing provider shown as an error, static files."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount

from seaway.asgi import AsgiServer
from seaway.console import Action, ActionError, ConnectorView, Console, TaskView, console_routes
from tests.browser import chromium_browser, new_page  # noqa: F401


class Connectors:
    """A few connectors' states, changed by the console's actions."""

    def __init__(self) -> None:
        self.states = {"files": "RUNNING", "a/b <c>": "RUNNING"}
        self.calls: list[tuple[str, str, int | None, dict[str, str]]] = []

    def views(self) -> list[ConnectorView]:
        return [
            ConnectorView(n, s, "source", "w1", tasks=(TaskView(0, s, "w1"),))
            for n, s in sorted(self.states.items())
        ]

    def act(self, action: Action, name: str, task: int | None, headers: Mapping[str, str]) -> str:
        if name not in self.states:
            raise ActionError(404, f"Connector {name} not found")
        self.calls.append((action, name, task, dict(headers)))
        self.states[name] = {"pause": "PAUSED", "resume": "RUNNING"}.get(action, "RUNNING")
        return f"{action} {name}"


def _failing() -> list[Any]:
    raise RuntimeError("cluster <down>")


@pytest.fixture
def served() -> Iterator[tuple[str, Connectors]]:
    state = Connectors()
    console = Console("Test <worker>", connectors=state.views, act=state.act, topics=_failing)
    catch_all = PlainTextResponse("the server's own API")
    app = Starlette(routes=[*console_routes(console), Mount("", app=catch_all)])
    with AsgiServer(app, ("127.0.0.1", 0)) as server:
        yield server.url, state


def _call(
    url: str, data: bytes | None = None, headers: Mapping[str, str] | None = None
) -> tuple[int, str, Any, str]:
    request = urllib.request.Request(url, data=data, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            return reply.status, reply.url, reply.headers, reply.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, url, error.headers, error.read().decode()


def test_pages_and_the_ui_path(served: tuple[str, Connectors]) -> None:
    url, _ = served
    status, final, headers, body = _call(url + "/ui")
    assert status == 200 and final == url + "/ui/"  # before the server's catch-all
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert "<title>Overview · Test &lt;worker&gt; · Seaway console</title>" in body
    assert 'href="/ui/connectors"' in body and 'href="/ui/topics"' in body
    assert 'href="/ui/groups"' not in body  # no provider, no page
    assert _call(url + "/ui/groups")[0] == 404
    status, _, _, body = _call(url + "/ui/connectors")
    assert status == 200 and 'data-connector="a/b &lt;c&gt;"' in body
    assert _call(url + "/other")[3] == "the server's own API"


def test_a_form_posts_and_comes_back(served: tuple[str, Connectors]) -> None:
    url, state = served
    form = b"connector=a%2Fb+%3Cc%3E&action=pause"
    status, final, _, body = _call(url + "/ui/actions", form)  # 303, then GET
    assert status == 200 and final == url + "/ui/connectors"
    assert state.states["a/b <c>"] == "PAUSED"
    assert 'data-connector="a/b &lt;c&gt;" data-state="PAUSED"' in body
    assert 'value="resume"' in body  # a paused connector offers Resume


def test_script_calls_get_json_and_pass_the_authorization(
    served: tuple[str, Connectors],
) -> None:
    url, state = served
    headers = {"Accept": "application/json", "Authorization": "Basic dTpw"}
    status, _, _, body = _call(url + "/ui/actions", b"connector=files&action=restart-task&task=0",
                               headers)  # fmt: skip
    assert status == 202 and json.loads(body) == {"message": "restart-task files"}
    assert state.calls == [("restart-task", "files", 0, {"Authorization": "Basic dTpw"})]


@pytest.mark.parametrize(
    ("form", "status", "message"),
    [
        (b"connector=files&action=delete", 400, "action must be one of pause, resume, restart"),
        (b"action=pause", 400, "connector must name a connector"),
        (b"connector=files&action=restart-task&task=x", 400, "task must be a task number"),
        (b"connector=nope&action=pause", 404, "Connector nope not found"),
    ],
)
def test_refusals_name_the_field(
    served: tuple[str, Connectors], form: bytes, status: int, message: str
) -> None:
    url, state = served
    got, _, _, body = _call(url + "/ui/actions", form, {"Accept": "application/json"})
    assert (got, json.loads(body)["error"][: len(message)]) == (status, message)
    got, _, _, page = _call(url + "/ui/actions", form)  # a form: an HTML page
    assert got == status and "Action refused" in page and "Back to the connectors" in page
    assert state.calls == []


@pytest.mark.parametrize(
    "headers", [{"Origin": "http://elsewhere.example"}, {"Sec-Fetch-Site": "cross-site"}]
)
def test_actions_from_another_site_are_refused(
    served: tuple[str, Connectors], headers: dict[str, str]
) -> None:
    url, state = served
    status, _, _, _ = _call(url + "/ui/actions", b"connector=files&action=pause", headers)
    assert status == 403 and state.states["files"] == "RUNNING"


def test_a_failing_provider_is_shown_escaped(served: tuple[str, Connectors]) -> None:
    url, _ = served
    status, _, _, body = _call(url + "/ui/topics")
    assert status == 503
    assert "Could not read the topics: cluster &lt;down&gt;" in body


def test_static_files(served: tuple[str, Connectors]) -> None:
    url, _ = served
    status, _, headers, css = _call(url + "/ui/static/console.css")
    assert status == 200 and headers["Content-Type"].startswith("text/css") and "svg.plot" in css
    status, _, headers, js = _call(url + "/ui/static/console.js")
    assert status == 200 and headers["Content-Type"].startswith("text/javascript")
    assert "fetch(" in js
    assert _call(url + "/ui/static/../app.py")[0] == 404
    assert _call(url + "/ui/static/nothing.js")[0] == 404


def test_buttons_in_chromium_with_and_without_javascript(
    served: tuple[str, Connectors], browser: Any
) -> None:
    url, state = served
    page = new_page(browser)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error"
            else None)  # fmt: skip
    page.goto(url + "/ui/connectors")
    row = page.locator("tr.connector[data-connector='files']")
    row.locator("button", has_text="Pause").click()  # fetch, then <main> refreshed
    page.wait_for_selector("tr.connector[data-connector='files'][data-state='PAUSED']")
    assert state.calls[-1][:2] == ("pause", "files") and page.url == url + "/ui/connectors"
    row.locator("button", has_text="Resume").click()
    page.wait_for_selector("tr.connector[data-connector='files'][data-state='RUNNING']")
    assert errors == []
    page.context.close()
    context = browser.new_context(java_script_enabled=False)
    plain = context.new_page()
    plain.goto(url + "/ui/connectors")
    plain.locator("tr.connector[data-connector='a/b <c>'] button", has_text="Pause").click()
    plain.wait_for_url(url + "/ui/connectors")
    assert plain.locator("tr.connector[data-connector='a/b <c>']").get_attribute(
        "data-state") == "PAUSED"  # fmt: skip
    context.close()
