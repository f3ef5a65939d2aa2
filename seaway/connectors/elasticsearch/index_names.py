"""The index or data stream a topic's records go to, named as the Java connectors name them.

Confluent's ``ElasticsearchSinkTask`` (``convertTopicToIndexName``,
``convertTopicToDataStreamName``) and Aiven's ``OpenSearchSinkConnectorConfig`` (its own
``convertTopicToIndexName``, which also replaces ``:`` and strips a leading ``+``). Lengths
count UTF-16 code units, as Java's ``String.length`` does.

>>> index_name("_Orders"), index_name(".."), opensearch_index_name("+a:b")
('orders', 'dotdot', 'a_b')
>>> data_stream_name("Orders", DataStream(type="LOGS", dataset="shop"))
'logs-shop-orders'
>>> data_stream_name("Orders", DataStream(prefix="events"))
'events-orders'
"""

from __future__ import annotations

from typing import Final

from seaway.connectors.elasticsearch.settings import DataStream

__all__ = ["data_stream_name", "index_name", "opensearch_index_name"]

MAX_INDEX_LENGTH: Final = 255
MAX_NAMESPACE_LENGTH: Final = 100
TOPIC_PLACEHOLDER: Final = "${topic}"


def _java_prefix(text: str, length: int) -> str:
    """``text.substring(0, length)`` when ``text.length() > length`` (UTF-16 code units).

    A surrogate pair cut in half leaves a lone surrogate in Java, which its UTF-8 encoder
    writes as ``?``; that is what is returned in its place.
    """
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) <= 2 * length:
        return text
    head = units[: 2 * length].decode("utf-16-le", "surrogatepass")
    if head and "\ud800" <= head[-1] <= "\udbff":
        head = head[:-1] + "?"
    return head


def _dots(name: str) -> str:
    """``.`` and ``..`` are not index names: they become ``dot`` and ``dotdot``."""
    return name.replace(".", "dot") if name in (".", "..") else name


def index_name(topic: str) -> str:
    """Confluent's index for *topic*: lowercased, cut to 255 characters, one leading ``-``
    or ``_`` removed, then ``.``/``..`` spelled ``dot``/``dotdot``."""
    name = _java_prefix(topic.lower(), MAX_INDEX_LENGTH)
    if name.startswith(("-", "_")):
        name = name[1:]
    return _dots(name)


def opensearch_index_name(topic: str) -> str:
    """Aiven's index for *topic*: lowercased, cut to 255 characters, every ``:`` made
    ``_``, one leading ``-``, ``_`` or ``+`` removed, then ``.``/``..`` as ``dot``/``dotdot``."""
    name = _java_prefix(topic.lower(), MAX_INDEX_LENGTH).replace(":", "_")
    if name.startswith(("-", "_", "+")):
        name = name[1:]
    return _dots(name)


def data_stream_name(topic: str, stream: DataStream) -> str:
    """The data stream for *topic*.

    Aiven (``stream.prefix`` set, or no ``type``): ``<prefix>-<index>`` with Aiven's index
    name of the topic, or that index name alone without a prefix. Confluent:
    ``<type lowercased>-<dataset>-<namespace>``, where ``${topic}`` in the namespace is the
    lowercased topic and the namespace is cut to 100 characters.
    """
    if stream.prefix or not stream.type:
        name = opensearch_index_name(topic)
        return f"{stream.prefix}-{name}" if stream.prefix else name
    namespace = stream.namespace.replace(TOPIC_PLACEHOLDER, topic.lower())
    namespace = _java_prefix(namespace, MAX_NAMESPACE_LENGTH)
    return f"{stream.type.lower()}-{stream.dataset}-{namespace}"
