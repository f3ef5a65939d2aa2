"""The registry's state, kept in a compacted ``_schemas`` topic as Confluent's registry
keeps it (``KafkaStore``), so it is as durable as the Kafka cluster and survives restarts.

Records (JSON keys and values, Confluent's formats):

- key ``{"keytype":"SCHEMA","subject":"s","version":1,"magic":1}``, value
  ``{"subject":"s","version":1,"id":1,"schema":"...","deleted":false}``;
- key ``{"keytype":"CONFIG","subject":null,"magic":0}`` (or a subject), value
  ``{"compatibilityLevel":"BACKWARD"}``.

A soft delete rewrites a version with ``"deleted":true``; a permanent delete writes a
tombstone. One registry process writes the topic (Confluent elects one leader among
several; Seaway's registry is meant to run as one instance per cluster).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from seaway.connect.runtime.storage.topic_log import (
    DEFAULT_TIMEOUT_S,
    LogRecord,
    TopicBackedLog,
    TopicSpec,
)
from seaway.registry.schemas import canonical

__all__ = ["SchemaStore", "SchemaVersion"]

DEFAULT_TOPIC: Final = "_schemas"


@dataclass(frozen=True)
class SchemaVersion:
    """One version of a subject."""

    subject: str
    version: int
    id: int
    schema: str
    deleted: bool = False
    schema_type: str = "AVRO"
    canonical: str = ""  # Avro's Parsing Canonical Form, to find a schema however spelled

    def to_rest(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "subject": self.subject, "version": self.version, "id": self.id,
            "schema": self.schema,
        }  # fmt: skip
        if self.schema_type != "AVRO":
            out["schemaType"] = self.schema_type
        return out


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


class SchemaStore:
    """Subjects, versions, ids and compatibility settings, read from and written to Kafka."""

    def __init__(
        self,
        client_config: Mapping[str, Any],
        topic: str = DEFAULT_TOPIC,
        *,
        replication_factor: int = -1,
        default_compatibility: str = "BACKWARD",
    ) -> None:
        spec = TopicSpec(topic, 1, replication_factor, worker_config="kafkastore.topic",
                         purpose="schemas")  # fmt: skip
        self.log = TopicBackedLog(spec, client_config, self._on_record, client_id="schema-registry")
        self.default_compatibility = default_compatibility
        self._lock = threading.Lock()  # the state; never held while waiting for Kafka
        self._writes = threading.Lock()  # one write at a time, so ids and versions are unique
        self._versions: dict[str, dict[int, SchemaVersion]] = {}
        self._configs: dict[str | None, str] = {}

    def start(self) -> None:
        self.log.start()

    def stop(self) -> None:
        self.log.stop()

    # --- reading the topic ------------------------------------------------------------------

    def _on_record(self, record: LogRecord) -> None:
        try:
            key = json.loads(record.key or b"null")
            value = None if record.value is None else json.loads(record.value)
        except ValueError:
            return
        if not isinstance(key, dict):
            return
        with self._lock:
            if key.get("keytype") == "SCHEMA":
                subject, version = str(key.get("subject")), int(key.get("version", 0))
                if value is None:
                    self._versions.get(subject, {}).pop(version, None)
                else:
                    self._versions.setdefault(subject, {})[version] = SchemaVersion(
                        subject, version, int(value["id"]), value["schema"],
                        bool(value.get("deleted", False)), value.get("schemaType", "AVRO"),
                        canonical(value["schema"]),
                    )  # fmt: skip
            elif key.get("keytype") == "CONFIG":
                scope = key.get("subject")  # None: the global config
                if value is None:
                    self._configs.pop(scope, None)
                else:
                    self._configs[scope] = str(value.get("compatibilityLevel", "")).upper()

    def _write(self, key: Mapping[str, Any], value: Mapping[str, Any] | None) -> None:
        self.log.send(_dumps(key), None if value is None else _dumps(value)).result(
            DEFAULT_TIMEOUT_S
        )
        self.log.read_to_end(DEFAULT_TIMEOUT_S)

    # --- queries ----------------------------------------------------------------------------

    def subjects(self, deleted: bool = False) -> list[str]:
        with self._lock:
            return sorted(
                s for s, vs in self._versions.items()
                if any(deleted or not v.deleted for v in vs.values())
            )  # fmt: skip

    def versions(self, subject: str, deleted: bool = False) -> list[SchemaVersion]:
        """The subject's versions, oldest first (soft-deleted ones only with *deleted*)."""
        with self._lock:
            found = self._versions.get(subject, {})
            return [found[v] for v in sorted(found) if deleted or not found[v].deleted]

    def by_id(self, schema_id: int) -> SchemaVersion | None:
        with self._lock:
            for versions in self._versions.values():
                for version in versions.values():
                    if version.id == schema_id:
                        return version
        return None

    def ids_of(self, schema_id: int) -> list[SchemaVersion]:
        with self._lock:
            return sorted(
                (v for vs in self._versions.values() for v in vs.values()
                 if v.id == schema_id and not v.deleted),
                key=lambda v: (v.subject, v.version),
            )  # fmt: skip

    def compatibility(self, subject: str | None) -> str | None:
        """The subject's own level (None when it has none), or the global one."""
        with self._lock:
            if subject is not None:
                return self._configs.get(subject)
            return self._configs.get(None, self.default_compatibility)

    def effective_compatibility(self, subject: str) -> str:
        return self.compatibility(subject) or str(self.compatibility(None))

    # --- writes -----------------------------------------------------------------------------

    def register(self, subject: str, schema: str, form: str, schema_type: str) -> int:
        """Add *schema* as the subject's next version (or return the id of the version it
        already is, compared by canonical *form*); a schema registered under another subject
        keeps its id."""
        with self._writes:
            for found in self.versions(subject):
                if found.canonical == form:
                    return found.id
            with self._lock:
                everything = [v for vs in self._versions.values() for v in vs.values()]
                version = max(self._versions.get(subject, {}), default=0) + 1
            schema_id = next((v.id for v in everything if v.canonical == form), None)
            if schema_id is None:
                schema_id = max((v.id for v in everything), default=0) + 1
            self._write(
                {"keytype": "SCHEMA", "subject": subject, "version": version, "magic": 1},
                {"subject": subject, "version": version, "id": schema_id, "schema": schema,
                 "deleted": False, **({} if schema_type == "AVRO" else
                                      {"schemaType": schema_type})},
            )  # fmt: skip
            return schema_id

    def delete_version(self, subject: str, version: SchemaVersion, permanent: bool) -> None:
        key = {"keytype": "SCHEMA", "subject": subject, "version": version.version, "magic": 1}
        if permanent:
            with self._writes:
                self._write(key, None)
            return
        value = {"subject": subject, "version": version.version, "id": version.id,
                 "schema": version.schema, "deleted": True}  # fmt: skip
        if version.schema_type != "AVRO":
            value["schemaType"] = version.schema_type
        with self._writes:
            self._write(key, value)

    def set_compatibility(self, subject: str | None, level: str | None) -> None:
        key = {"keytype": "CONFIG", "subject": subject, "magic": 0}
        with self._writes:
            self._write(key, None if level is None else {"compatibilityLevel": level})
