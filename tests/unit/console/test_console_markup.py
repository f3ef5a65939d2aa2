"""Every string the console puts into HTML is escaped: names, traces, attributes."""

from __future__ import annotations

from seaway.console.markup import Markup, escape, join, tag
from seaway.console.pages import connectors_body, groups_body, topics_body
from seaway.console.views import (
    ConnectorView,
    GroupLagView,
    PartitionLag,
    PartitionView,
    TaskView,
    TopicView,
)

EVIL = '<script>alert("x")</script>&'


def test_text_and_attributes_are_escaped_markup_is_not() -> None:
    assert escape(EVIL) == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;"
    assert tag("td", EVIL, title=EVIL) == (
        '<td title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;">'
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;</td>"
    )
    assert tag("p", tag("b", "x")) == "<p><b>x</b></p>"  # built markup stays markup
    assert join(["a<", Markup("<br>"), 3, None, ("b", ">")]) == "a&lt;<br>3b&gt;"
    assert (
        tag("input", type="hidden", disabled=True, value=None) == '<input type="hidden" disabled>'
    )
    assert tag("a", data_topic="t", class_="c") == '<a data-topic="t" class="c"></a>'


def test_connector_names_and_traces_show_as_text() -> None:
    trace = f"java.lang.RuntimeException: {EVIL}\n\tat Task.poll(Task.java:1)"
    page = connectors_body(
        "/ui",
        [
            ConnectorView(
                EVIL, "FAILED", "source", "w1", trace, (TaskView(0, "FAILED", "w1", trace),)
            )
        ],
    )
    assert "<script>" not in page
    assert page.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") >= 4  # name, trace...
    assert '<details class="trace"><summary>java.lang.RuntimeException:' in page
    assert 'name="connector" value="&lt;script&gt;' in page  # the forms carry the name escaped


def test_topic_and_group_names_show_as_text() -> None:
    topics = topics_body([TopicView(EVIL, (PartitionView(0, 5, 0, 10),))])
    groups = groups_body([GroupLagView(EVIL, "Stable", 1, (PartitionLag(EVIL, 0, 3, 5),))])
    for page in (topics, groups):
        assert "<script>" not in page and "&lt;script&gt;" in page
