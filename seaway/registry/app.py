"""Confluent Schema Registry's REST API over a :class:`~seaway.registry.store.SchemaStore`.

Paths, JSON fields, status codes and error codes follow Confluent's API reference:
``/subjects`` (versions, lookup, soft and permanent deletes), ``/schemas/ids/{id}``,
``/schemas/types``, ``/compatibility/subjects/{s}/versions[/{v}]``, ``/config`` and
``/config/{subject}``, ``/mode``. Errors are ``{"error_code": 40401, "message": ...}`` with
Confluent's codes (40401 subject, 40402 version, 40403 schema not found, 409 incompatible,
42201 invalid schema, 42202 invalid version, 42203 invalid compatibility level). Only Avro
schemas are held.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any, Final

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from seaway.errors import SeawayError
from seaway.registry.compatibility import LEVELS, incompatibilities
from seaway.registry.schemas import InvalidSchema, parse
from seaway.registry.store import SchemaStore, SchemaVersion

__all__ = ["RegistryError", "create_app"]

log = logging.getLogger(__name__)

MEDIA_TYPE: Final = "application/vnd.schemaregistry.v1+json"
_MAX_VERSION: Final = 2**31 - 1


class RegistryError(SeawayError):
    """An error answered with Confluent's body."""

    def __init__(self, status: int, error_code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.error_code, self.message = status, error_code, message


def _subject_not_found(subject: str) -> RegistryError:
    return RegistryError(404, 40401, f"Subject '{subject}' not found.")


def _json(entity: Any, status: int = 200) -> Response:
    return Response(json.dumps(entity, separators=(",", ":")), status, media_type=MEDIA_TYPE)


def _flag(request: Request, name: str) -> bool:
    return request.query_params.get(name, "false").strip().lower() == "true"


def _level(body: Any) -> str:
    level = str((body or {}).get("compatibility") or (body or {}).get("compatibilityLevel") or "")
    if level.upper() not in LEVELS:
        raise RegistryError(
            422, 42203,
            "Invalid compatibility level. Valid values are none, backward, forward, full, "
            "backward_transitive, forward_transitive, and full_transitive",
        )  # fmt: skip
    return level.upper()


class _Api:
    def __init__(self, store: SchemaStore) -> None:
        self.store = store

    # --- helpers ----------------------------------------------------------------------------

    def _version(self, subject: str, raw: str, deleted: bool = False) -> SchemaVersion:
        versions = self.store.versions(subject, deleted)
        if not self.store.versions(subject, True):
            raise _subject_not_found(subject)
        if raw in ("latest", "-1"):
            if not versions:
                raise RegistryError(404, 40402, "Version latest not found.")
            return versions[-1]
        try:
            number = int(raw)
        except ValueError:
            number = 0
        if not 1 <= number <= _MAX_VERSION:
            raise RegistryError(
                422, 42202,
                f"The specified version '{raw}' is not a valid version id. Allowed values are "
                'between [1, 2^31-1] and the string "latest"',
            )  # fmt: skip
        found = next((v for v in versions if v.version == number), None)
        if found is None:
            raise RegistryError(404, 40402, f"Version {number} not found.")
        return found

    @staticmethod
    async def _body(request: Request) -> Any:
        raw = await request.body()
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except ValueError:
            raise RegistryError(422, 42201, "Invalid schema: the request is not JSON") from None

    def _parsed(self, body: Any) -> Any:
        if not isinstance(body, dict) or not isinstance(body.get("schema"), str):
            raise RegistryError(422, 42201, "Invalid schema: the request has no 'schema' string")
        if body.get("references"):
            raise RegistryError(422, 42201, "Invalid schema: schema references are not supported")
        try:
            return parse(body["schema"], str(body.get("schemaType") or "AVRO"))
        except InvalidSchema as error:
            raise RegistryError(422, 42201, str(error)) from None

    def _problems(self, subject: str, parsed: Any, against: list[SchemaVersion]) -> list[str]:
        level = self.store.effective_compatibility(subject)
        problems = incompatibilities(level, parsed.json, [json.loads(v.schema) for v in against])
        return [*problems, f"{{compatibility: '{level}'}}"] if problems else []  # as Confluent

    # --- endpoints --------------------------------------------------------------------------

    async def root(self, request: Request) -> Any:
        return {}

    async def schema_types(self, request: Request) -> Any:
        return ["AVRO"]

    async def schema_by_id(self, request: Request) -> Any:
        found = self.store.by_id(int(request.path_params["id"]))
        if found is None:
            raise RegistryError(404, 40403, f"Schema {request.path_params['id']} not found")
        out: dict[str, Any] = {"schema": found.schema}
        if found.schema_type != "AVRO":
            out["schemaType"] = found.schema_type
        return out

    async def schema_id_versions(self, request: Request) -> Any:
        schema_id = int(request.path_params["id"])
        if self.store.by_id(schema_id) is None:
            raise RegistryError(404, 40403, f"Schema {schema_id} not found")
        return [{"subject": v.subject, "version": v.version} for v in self.store.ids_of(schema_id)]

    async def subjects(self, request: Request) -> Any:
        return self.store.subjects(_flag(request, "deleted"))

    async def versions(self, request: Request) -> Any:
        subject = request.path_params["subject"]
        versions = self.store.versions(subject, _flag(request, "deleted"))
        if not versions:
            raise _subject_not_found(subject)
        return [v.version for v in versions]

    async def version(self, request: Request) -> Any:
        subject = request.path_params["subject"]
        found = self._version(subject, request.path_params["version"], _flag(request, "deleted"))
        return found.to_rest()

    async def version_schema(self, request: Request) -> Response:
        subject = request.path_params["subject"]
        found = self._version(subject, request.path_params["version"])
        return Response(found.schema, 200, media_type=MEDIA_TYPE)

    async def register(self, request: Request) -> Any:
        subject = request.path_params["subject"]
        parsed = self._parsed(await self._body(request))
        existing = self.store.versions(subject)
        if any(v.canonical == parsed.canonical for v in existing):
            return {"id": next(v.id for v in existing if v.canonical == parsed.canonical)}
        problems = self._problems(subject, parsed, existing)
        if problems:
            raise RegistryError(
                409, 409,
                f'Schema being registered is incompatible with an earlier schema for subject '
                f'"{subject}", details: {problems}',
            )  # fmt: skip
        schema_type = "AVRO"
        schema_id = await run_in_threadpool(
            self.store.register, subject, parsed.text, parsed.canonical, schema_type
        )
        return {"id": schema_id}

    async def lookup(self, request: Request) -> Any:
        subject = request.path_params["subject"]
        parsed = self._parsed(await self._body(request))
        versions = self.store.versions(subject, _flag(request, "deleted"))
        if not versions:
            raise _subject_not_found(subject)
        found = next((v for v in versions if v.canonical == parsed.canonical), None)
        if found is None:
            raise RegistryError(404, 40403, "Schema not found")
        return found.to_rest()

    async def delete_subject(self, request: Request) -> Any:
        subject = request.path_params["subject"]
        permanent = _flag(request, "permanent")
        versions = self.store.versions(subject, deleted=permanent)
        if not versions:
            raise _subject_not_found(subject)
        for version in versions:
            await run_in_threadpool(self.store.delete_version, subject, version, permanent)
        return [v.version for v in versions]

    async def delete_version(self, request: Request) -> Any:
        subject = request.path_params["subject"]
        permanent = _flag(request, "permanent")
        found = self._version(subject, request.path_params["version"], deleted=permanent)
        await run_in_threadpool(self.store.delete_version, subject, found, permanent)
        return found.version

    async def compatibility(self, request: Request) -> Any:
        subject = request.path_params["subject"]
        parsed = self._parsed(await self._body(request))
        raw = request.path_params.get("version")
        if raw is None:
            against = self.store.versions(subject)
            problems = self._problems(subject, parsed, against)
        elif raw in ("latest", "-1") and not self.store.versions(subject):
            problems = []
        else:
            found = self._version(subject, raw)
            level = self.store.effective_compatibility(subject).replace("_TRANSITIVE", "")
            problems = incompatibilities(level, parsed.json, [json.loads(found.schema)])
        out: dict[str, Any] = {"is_compatible": not problems}
        if _flag(request, "verbose"):
            out["messages"] = problems
        return out

    async def get_config(self, request: Request) -> Any:
        subject = request.path_params.get("subject")
        level = self.store.compatibility(subject)
        if level is None and subject is not None:
            if not _flag(request, "defaultToGlobal"):
                raise RegistryError(
                    404, 40408,
                    f"Subject '{subject}' does not have subject-level compatibility configured",
                )  # fmt: skip
            level = self.store.compatibility(None)
        return {"compatibilityLevel": level}

    async def put_config(self, request: Request) -> Any:
        level = _level(await self._body(request))
        subject = request.path_params.get("subject")
        await run_in_threadpool(self.store.set_compatibility, subject, level)
        return {"compatibility": level}

    async def delete_config(self, request: Request) -> Any:
        subject = request.path_params["subject"]
        level = self.store.compatibility(subject)
        if level is None:
            raise _subject_not_found(subject)
        await run_in_threadpool(self.store.set_compatibility, subject, None)
        return {"compatibilityLevel": level}

    async def mode(self, request: Request) -> Any:
        return {"mode": "READWRITE"}


def _endpoint(call: Callable[[Request], Any]) -> Callable[[Request], Any]:
    async def handle(request: Request) -> Response:
        try:
            result = await call(request)
        except RegistryError as error:
            return _json({"error_code": error.error_code, "message": error.message}, error.status)
        except Exception as error:
            log.exception("Schema registry request %s failed", request.url.path)
            return _json({"error_code": 50001, "message": f"Error in the backend: {error}"}, 500)
        return result if isinstance(result, Response) else _json(result)

    return handle


def create_app(store: SchemaStore) -> Starlette:
    """The registry's REST API over *store*."""
    api = _Api(store)
    s, v = "/subjects/{subject:path}", "/versions/{version}"
    routes = [
        ("/", api.root, ["GET"]),
        ("/schemas/types", api.schema_types, ["GET"]),
        ("/schemas/ids/{id:int}", api.schema_by_id, ["GET"]),
        ("/schemas/ids/{id:int}/versions", api.schema_id_versions, ["GET"]),
        ("/subjects", api.subjects, ["GET"]),
        (f"{s}/versions", api.versions, ["GET"]),
        (f"{s}/versions", api.register, ["POST"]),
        (f"{s}{v}/schema", api.version_schema, ["GET"]),
        (f"{s}{v}", api.version, ["GET"]),
        (f"{s}{v}", api.delete_version, ["DELETE"]),
        (s, api.lookup, ["POST"]),
        (s, api.delete_subject, ["DELETE"]),
        (f"/compatibility{s}{v}", api.compatibility, ["POST"]),
        (f"/compatibility{s}/versions", api.compatibility, ["POST"]),
        ("/config", api.get_config, ["GET"]),
        ("/config", api.put_config, ["PUT"]),
        ("/config/{subject:path}", api.get_config, ["GET"]),
        ("/config/{subject:path}", api.put_config, ["PUT"]),
        ("/config/{subject:path}", api.delete_config, ["DELETE"]),
        ("/mode", api.mode, ["GET"]),
    ]
    return Starlette(routes=[Route(p, _endpoint(f), methods=m) for p, f, m in routes])
