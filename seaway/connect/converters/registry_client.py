"""A small client of a schema registry with Confluent's REST API, for the AvroConverter.

Three calls cover a converter's needs: register a schema (or look up its id without
registering), fetch a schema by id, fetch a subject's latest version. Answers are cached for
the life of the converter, as Confluent's ``CachedSchemaRegistryClient`` does. Written on
the standard library's HTTP client: it runs inside Spark tasks, where a lighter import is
welcome, and confluent-kafka's client would pull in a dozen more packages for three calls.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Final
from urllib.parse import quote

from seaway.connect.api.errors import DataError

__all__ = ["RegistryClient"]

_MEDIA_TYPE: Final = "application/vnd.schemaregistry.v1+json"


class RegistryClient:
    """Schemas by id and ids by (subject, schema), cached."""

    def __init__(self, urls: str, timeout_s: float = 30.0) -> None:
        self.urls = [u.strip().rstrip("/") for u in urls.split(",") if u.strip()]
        if not self.urls:
            raise DataError("schema.registry.url is empty: give the registry's http://host:port")
        self.timeout_s = timeout_s
        self._ids: dict[tuple[str, str], int] = {}
        self._schemas: dict[int, Any] = {}

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        last: Exception | None = None
        for base in self.urls:
            request = urllib.request.Request(base + path, data=data, method=method)
            request.add_header("Content-Type", _MEDIA_TYPE)
            request.add_header("Accept", _MEDIA_TYPE)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return json.loads(response.read())
            except urllib.error.HTTPError as error:
                try:
                    detail = json.loads(error.read()).get("message", "")
                except ValueError:
                    detail = ""
                raise DataError(f"Schema registry {base} answered {error.code} to {method} "
                                f"{path}: {detail}") from None  # fmt: skip
            except OSError as error:
                last = error
        raise DataError(f"No schema registry of {self.urls} answered {method} {path}: {last}")

    def register(self, subject: str, schema: Any) -> int:
        """The id of *schema* under *subject*, registering it if needed."""
        text = json.dumps(schema, separators=(",", ":"))
        key = (subject, text)
        if key not in self._ids:
            answer = self._call("POST", f"/subjects/{quote(subject, safe='')}/versions",
                                {"schema": text})  # fmt: skip
            self._ids[key] = int(answer["id"])
            self._schemas.setdefault(self._ids[key], schema)
        return self._ids[key]

    def lookup(self, subject: str, schema: Any) -> int:
        """The id of *schema* already registered under *subject* (never registers)."""
        text = json.dumps(schema, separators=(",", ":"))
        key = (subject, text)
        if key not in self._ids:
            answer = self._call("POST", f"/subjects/{quote(subject, safe='')}", {"schema": text})
            self._ids[key] = int(answer["id"])
        return self._ids[key]

    def latest(self, subject: str) -> tuple[int, Any]:
        """The id and schema of *subject*'s latest version."""
        answer = self._call("GET", f"/subjects/{quote(subject, safe='')}/versions/latest")
        schema = json.loads(answer["schema"])
        self._schemas.setdefault(int(answer["id"]), schema)
        return int(answer["id"]), schema

    def schema(self, schema_id: int) -> Any:
        """The schema with *schema_id*."""
        if schema_id not in self._schemas:
            self._schemas[schema_id] = json.loads(self._call("GET", f"/schemas/ids/{schema_id}")
                                                  ["schema"])  # fmt: skip
        return self._schemas[schema_id]
