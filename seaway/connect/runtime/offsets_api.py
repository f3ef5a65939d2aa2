"""The offsets endpoints (KIP-875): read, alter and reset a connector's offsets.

Source connectors' offsets are whatever partition/offset maps they wrote, in the offset
store. Sink connectors' offsets are their consumer group's, shown as
``{"partition": {"kafka_topic": t, "kafka_partition": p}, "offset": {"kafka_offset": o}}``.
Offsets may only change while the connector is STOPPED; the messages are Kafka's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, cast

from seaway.connect.api import Connector, SinkConnector, SourceConnector
from seaway.connect.api.errors import ConnectError, NotFoundError
from seaway.connect.api.offsets import partition_from_key, partition_key
from seaway.connect.api.structs import TopicPartition
from seaway.connect.runtime import connector_config as cc
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder_state import HerderState
from seaway.connect.runtime.storage import TargetState
from seaway.connect.runtime.storage.offsets import validate_offset_map
from seaway.kafka import clients
from seaway.kafka.timeouts import REQUEST_TIMEOUT_S

KAFKA_TOPIC: Final = "kafka_topic"
KAFKA_PARTITION: Final = "kafka_partition"
KAFKA_OFFSET: Final = "kafka_offset"

ALTERED: Final = "The offsets for this connector have been altered successfully"
RESET: Final = "The offsets for this connector have been reset successfully"


def _framework_only(action: str) -> str:
    return (
        f"The Connect framework-managed offsets for this connector have been {action} "
        "successfully. However, if this connector manages offsets externally, they will need "
        f"to be manually {action} in the system that the connector uses."
    )


def _not_stopped(name: str) -> BadRequestError:
    return BadRequestError(
        "Connectors must be in the STOPPED state before their offsets can be modified. This "
        "can be done for the specified connector by issuing a 'PUT' request to the "
        f"'/connectors/{name}/stop' endpoint"
    )


def _int(value: Any, message: str) -> int:
    if isinstance(value, bool):
        raise BadRequestError(message)
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise BadRequestError(message)


def parse_sink_offsets(offsets: Sequence[Mapping[str, Any]]) -> dict[TopicPartition, int | None]:
    """Validate sink offsets the way Kafka's ``SinkUtils`` does."""
    out: dict[TopicPartition, int | None] = {}
    for entry in offsets:
        partition = entry.get("partition")
        if partition is None:
            raise BadRequestError(
                "The partition for a sink connector offset cannot be null or missing"
            )
        if KAFKA_TOPIC not in partition or KAFKA_PARTITION not in partition:
            raise BadRequestError(
                "The partition for a sink connector offset must contain the keys "
                f"'{KAFKA_TOPIC}' and '{KAFKA_PARTITION}'"
            )
        topic = partition[KAFKA_TOPIC]
        if not isinstance(topic, str):
            raise BadRequestError("Kafka topic names must be valid strings and may not be null")
        if partition[KAFKA_PARTITION] is None:
            raise BadRequestError("Kafka partitions must be valid numbers and may not be null")
        number = _int(
            partition[KAFKA_PARTITION],
            "Failed to parse the following Kafka partition value in the provided offsets: "
            f"'{partition[KAFKA_PARTITION]}'. Partition values for sink connectors need to be "
            "integers.",
        )
        offset = entry.get("offset")
        if offset is None:
            out[TopicPartition(topic, number)] = None
            continue
        if not isinstance(offset, Mapping) or KAFKA_OFFSET not in offset:
            raise BadRequestError(
                "The offset for a sink connector should either be null or contain the key "
                f"'{KAFKA_OFFSET}'"
            )
        out[TopicPartition(topic, number)] = _int(
            offset[KAFKA_OFFSET],
            "Failed to parse the following Kafka offset value in the provided offsets: "
            f"'{offset[KAFKA_OFFSET]}'. Offset values for sink connectors need to be integers.",
        )
    return out


def parse_source_offsets(offsets: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``{partition_key: offset or None}``, keys strings and values primitives."""
    out: dict[str, Any] = {}
    for entry in offsets:
        partition = entry.get("partition")
        if not partition:
            raise BadRequestError("Source partitions may not be null")
        offset = entry.get("offset")
        try:
            validate_offset_map(partition, "Partitions")
            validate_offset_map(offset, "Offsets")
        except Exception as error:
            raise BadRequestError(str(error)) from error
        out[partition_key(partition)] = offset
    return out


class ConnectorOffsetsApi:
    """The REST offsets semantics of a herder, over its state's stores."""

    def __init__(self, state: HerderState) -> None:
        self._state = state

    def _context(self, name: str) -> tuple[dict[str, str], Connector, bool]:
        """(config, a connector instance, whether it is STOPPED)."""
        snapshot = self._state.configs.snapshot()
        config = snapshot.connector_config(name)
        if config is None:
            raise NotFoundError(f"Connector {name} not found")
        stopped = snapshot.target_state(name) is TargetState.STOPPED
        with self._state.lock:
            run = self._state.running.get(name)
            stopped = stopped and (run is None or run.query is None)
        connector = self._state.plugins.new_connector(config[cc.CONNECTOR_CLASS])
        return dict(config), connector, stopped

    def _source_offsets(self, name: str) -> dict[str, Any]:
        return self._state.offsets.connector_offsets(name)

    def _write_source_offsets(self, name: str, offsets: Mapping[str, Any]) -> None:
        self._state.offsets.set(name, dict(offsets))
        self._state.offsets.flush()

    def connector_offsets(self, name: str) -> dict[str, Any]:
        """``{"offsets": [{"partition": {...}, "offset": {...}}]}``."""
        config, connector, _ = self._context(name)
        if isinstance(connector, SinkConnector):
            group, client = self._state.sink_client_config(config)
            entries = [
                {
                    "partition": {KAFKA_TOPIC: tp.topic, KAFKA_PARTITION: tp.partition},
                    "offset": {KAFKA_OFFSET: tp.offset},
                }
                for tp in _group_offsets(client, group)
            ]
        else:
            entries = [
                {"partition": partition_from_key(key), "offset": offset}
                for key, offset in sorted(self._source_offsets(name).items())
            ]
        return {"offsets": entries}

    def alter_connector_offsets(self, name: str, offsets: list[dict[str, Any]]) -> str:
        """Apply *offsets* to a STOPPED connector; the success message."""
        config, connector, stopped = self._context(name)
        if not stopped:
            raise _not_stopped(name)
        if isinstance(connector, SinkConnector):
            parsed = parse_sink_offsets(offsets)
            acknowledged = _hook(lambda: connector.alter_offsets(config, parsed))
            group, client = self._state.sink_client_config(config)
            _alter_group(client, group, parsed)
        else:
            source = parse_source_offsets(offsets)
            source_connector = cast(SourceConnector, connector)  # not a sink: a source
            acknowledged = _hook(lambda: source_connector.alter_offsets(config, source))
            self._write_source_offsets(name, source)
        return ALTERED if acknowledged else _framework_only("altered")

    def reset_connector_offsets(self, name: str) -> str:
        """Delete every offset of a STOPPED connector; the success message."""
        config, connector, stopped = self._context(name)
        if not stopped:
            raise _not_stopped(name)
        if isinstance(connector, SinkConnector):
            group, client = self._state.sink_client_config(config)
            current = {TopicPartition(tp.topic, tp.partition): None
                       for tp in _group_offsets(client, group)}  # fmt: skip
            acknowledged = _hook(lambda: connector.alter_offsets(config, current))
            _delete_group(client, group)
        else:
            current_source = dict.fromkeys(self._source_offsets(name))
            source_connector = cast(SourceConnector, connector)  # not a sink: a source
            acknowledged = _hook(lambda: source_connector.alter_offsets(config, current_source))
            self._write_source_offsets(name, current_source)
        return RESET if acknowledged else _framework_only("reset")


def _hook(call: Any) -> bool:
    try:
        return bool(call())
    except ConnectError as error:
        raise BadRequestError(str(error)) from error


def _group_offsets(client: Mapping[str, str], group: str) -> list[Any]:
    from confluent_kafka import ConsumerGroupTopicPartitions

    admin = clients.admin(client)
    request = ConsumerGroupTopicPartitions(group)
    result = admin.list_consumer_group_offsets([request])[group].result(REQUEST_TIMEOUT_S)
    return sorted(
        (tp for tp in result.topic_partitions or [] if tp.offset >= 0),
        key=lambda tp: (tp.topic, tp.partition),
    )


def _alter_group(
    client: Mapping[str, str], group: str, offsets: Mapping[TopicPartition, int | None]
) -> None:
    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka import TopicPartition as KafkaTopicPartition

    keep = {tp: o for tp, o in offsets.items() if o is not None}
    if len(keep) < len(offsets):  # a null offset removes that partition's commit
        remaining = {
            TopicPartition(tp.topic, tp.partition): tp.offset
            for tp in _group_offsets(client, group)
            if TopicPartition(tp.topic, tp.partition) not in offsets
        }
        _delete_group(client, group)
        keep = {**remaining, **keep}
    if not keep:
        return
    admin = clients.admin(client)
    request = ConsumerGroupTopicPartitions(
        group, [KafkaTopicPartition(tp.topic, tp.partition, o) for tp, o in keep.items()]
    )
    admin.alter_consumer_group_offsets([request])[group].result(REQUEST_TIMEOUT_S)


def _delete_group(client: Mapping[str, str], group: str) -> None:
    from confluent_kafka import KafkaError, KafkaException

    admin = clients.admin(
        client
    )  # kept referenced until the reply: a collected client never answers
    try:
        admin.delete_consumer_groups([group])[group].result(REQUEST_TIMEOUT_S)
    except KafkaException as error:
        if error.args[0].code() != KafkaError.GROUP_ID_NOT_FOUND:
            raise


__all__ = ["ConnectorOffsetsApi", "parse_sink_offsets", "parse_source_offsets"]
