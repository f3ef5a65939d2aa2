"""SinkConnectorConfig's rules for topics, topics.regex and the dead letter queue."""

from __future__ import annotations

from seaway.connect.runtime.connector_config import sink_topic_errors

DLQ = "errors.deadletterqueue.topic.name"


def test_topics_regex_is_a_java_regex() -> None:
    assert sink_topic_errors({"topics.regex": r"(?<name>\p{Alpha}+)"}) == {}
    assert sink_topic_errors({"topics.regex": "(", DLQ: "x"})["topics.regex"][0].startswith(
        "Invalid regex: "
    )
    errors = sink_topic_errors({"topics.regex": r"\p{Lower}+", DLQ: "dlq"})
    assert errors["topics.regex"] == [
        "The DLQ topic 'dlq' may not be matched by the regex for the topics "
        "('topics.regex=\\p{Lower}+') consumed by the connector"
    ]


def test_topics_and_regex_are_exclusive() -> None:
    message = "topics and topics.regex are mutually exclusive options, but both are set."
    both = sink_topic_errors({"topics": "a", "topics.regex": "a.*"})
    assert both == {"topics": [message], "topics.regex": [message]}
    assert sink_topic_errors({"topics": "a, dlq", DLQ: "dlq"})["topics"][0].startswith(
        "The DLQ topic 'dlq' may not be included"
    )
