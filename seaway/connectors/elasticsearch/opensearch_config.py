"""Configuration of the OpenSearch sink with the keys, defaults, groups and checks of Aiven's
``OpenSearchSinkConnectorConfig`` (opensearch-connector-for-apache-kafka 4.x; up to 3.x the
class was ``OpensearchSinkConnector``), parsed into :class:`SinkSettings`.

Aiven checks its rules only when a connector starts; :func:`validate_opensearch` also reports
them on the keys they concern. Seaway defines the AWS SigV4 and routing keys so that configs
using them validate, but refuses them until it can sign requests and route documents.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Final

from seaway.config import NO_DEFAULT, ConfigDef, ConfigException, Importance, Type, Width
from seaway.config.validators import NonEmptyString, Range, Validator, ValidString
from seaway.connect.api.connector import ConfigValidation
from seaway.connectors.elasticsearch.config import (
    BATCH_SIZE,
    BEHAVIOR_ON_MALFORMED_DOCS,
    BEHAVIOR_ON_NULL_VALUES,
    COMPACT_MAP_ENTRIES,
    CONNECTION_PASSWORD,
    CONNECTION_TIMEOUT_MS,
    CONNECTION_URL,
    CONNECTION_USERNAME,
    CONNECTOR_GROUP,
    DATA_CONVERSION_GROUP,
    DATA_STREAM_TIMESTAMP,
    DROP_INVALID_MESSAGE,
    FLUSH_TIMEOUT_MS,
    KEY_IGNORE,
    LINGER_MS,
    MAX_BUFFERED_RECORDS,
    MAX_IN_FLIGHT_REQUESTS,
    MAX_RETRIES,
    NULL_VALUES,
    READ_TIMEOUT_MS,
    RETRY_BACKOFF_MS,
    SCHEMA_IGNORE,
    SSL_CIPHER_SUITES,
    SSL_ENABLED_PROTOCOLS,
    SSL_ENDPOINT_IDENTIFICATION_ALGORITHM,
    SSL_KEY_PASSWORD,
    SSL_KEYSTORE_LOCATION,
    SSL_KEYSTORE_PASSWORD,
    SSL_KEYSTORE_TYPE,
    SSL_PROTOCOL,
    SSL_TRUSTSTORE_LOCATION,
    SSL_TRUSTSTORE_PASSWORD,
    SSL_TRUSTSTORE_TYPE,
    TOPIC_KEY_IGNORE,
    TOPIC_SCHEMA_IGNORE,
    KeySpec,
    client_ssl_config_def,
    define_group,
    search_keys,
    urls_problem,
)
from seaway.connectors.elasticsearch.config_checks import (
    MappingMessages,
    Problem,
    check_props,
    password_value,
    shared_settings,
    tls_files,
    topic_resources,
    validate_props,
)
from seaway.connectors.elasticsearch.settings import (
    DataStream,
    IdStrategy,
    SinkSettings,
    TlsFiles,
    VersionConflictBehavior,
    WriteMethod,
)

__all__ = [
    "OPENSEARCH_CONFIG_DEF",
    "opensearch_settings",
    "validate_opensearch",
]

log = logging.getLogger(__name__)

INDEX_WRITE_METHOD: Final = "index.write.method"
KEY_IGNORE_ID_STRATEGY: Final = "key.ignore.id.strategy"
BEHAVIOR_ON_VERSION_CONFLICT: Final = "behavior.on.version.conflict"
ROUTING_TYPE: Final = "routing.type"
ROUTING_RECORD_VALUE_PATH: Final = "routing.type.record.value.path"
DATA_STREAM_ENABLED: Final = "data.stream.enabled"
DATA_STREAM_PREFIX: Final = "data.stream.prefix"
DATA_STREAM_INDEX_TEMPLATE_NAME: Final = "data.streams.existing.index.template.name"
EXISTING_RESOURCE_TYPE: Final = "existing.resource.type"
TOPIC_TO_EXISTING_RESOURCE_MAPPING: Final = "topic.to.existing.resource.mapping"
SSL_PREFIX: Final = "connection."
TRUST_ALL_CERTIFICATES: Final = "connection.trust.all.certificates"
AWS_ACCESS_KEY_ID: Final = "aws.access_key_id"
AWS_SECRET_ACCESS_KEY: Final = "aws.secret_access_key"
AWS_STS_ROLE_ARN: Final = "aws.sts.role.arn"
AWS_STS_ROLE_SESSION_NAME: Final = "aws.sts.role.session.name"
AWS_STS_ROLE_SESSION_DURATION: Final = "aws.sts.role.session.duration"
AWS_STS_ROLE_EXTERNAL_ID: Final = "aws.sts.role.external.id"
AWS_REGION: Final = "aws.region"
AWS_SERVICE_SIGNING_NAME: Final = "aws.service.signing.name"

MALFORMED_DOCS: Final = ("ignore", "warn", "fail", "report")
VERSION_CONFLICTS: Final = ("ignore", "warn", "fail", "report")
ID_STRATEGIES: Final = ("none", "record.key", "topic.partition.offset")
ROUTING_TYPES: Final = ("none", "key", "value")
EXISTING_RESOURCE_TYPES: Final = ("index", "data_stream", "index_alias", "none")
STS_SESSION_DURATION_DEFAULT: Final = 3600
MAX_EXISTING_RESOURCE_MAPPINGS: Final = 10

SSL_GROUP: Final = "TLS Configuration for HTTPS"
BASIC_AUTH_GROUP: Final = "Basic Authentication"
AWS_ACCESS_GROUP: Final = "AWS Access"
AWS_STS_GROUP: Final = "AWS STS Access"
AWS_SIG4_GROUP: Final = "AWS Sig4 Authentication"
DATA_STREAM_GROUP: Final = "Data Stream"
EXISTING_RESOURCES_GROUP: Final = "Topic to Existing Resource Mappings"

# --- validators --------------------------------------------------------------------------------


class _LowerCaseValidString(ValidString):
    """Aiven's case-insensitive enums: the value, in lower case, must be one of the names."""

    def ensure_valid(self, name: str, value: Any) -> None:
        super().ensure_valid(name, value.lower() if isinstance(value, str) else value)


class _WriteMethodValidator(Validator):
    """``index.write.method``: insert or upsert, in any case."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if not isinstance(value, str) or value.lower() not in ("insert", "upsert"):
            raise ConfigException(name, value, f"Index write method must be one of: {self}")

    def __str__(self) -> str:
        return "``insert``, ``upsert``"


class _JsonPointer(Validator):
    """An RFC 6901 JSON Pointer: empty, or starting with ``/``."""

    def ensure_valid(self, name: str, value: Any) -> None:
        if isinstance(value, str) and value and not value.startswith("/"):
            raise ConfigException(
                name, value, "Invalid input: JSON Pointer expression must start with '/'"
            )

    def __str__(self) -> str:
        return "A valid JSON Pointer value (https://datatracker.ietf.org/doc/html/rfc6901)"


def _one_of(names: tuple[str, ...]) -> _LowerCaseValidString:
    return _LowerCaseValidString(names)


# --- definitions -------------------------------------------------------------------------------

_H, _M, _L = Importance.HIGH, Importance.MEDIUM, Importance.LOW
_LONG, _NONE = Width.LONG, Width.NONE

# Aiven checks none of the numbers; Seaway needs them positive or at least 0.
_SHARED: Final = search_keys("OpenSearch", flush_timeout_ms=10000, confluent_ranges=False)

_CONNECTOR_KEYS: Final = (
    KeySpec(CONNECTION_URL, Type.LIST, NO_DEFAULT, _H, "Connection URLs",
            "List of OpenSearch HTTP connection URLs e.g. ``http://eshost1:9200,"
            "http://eshost2:9200`` or AWS OpenSearch endpoint", width=_LONG),
    *(_SHARED[key] for key in (BATCH_SIZE, MAX_IN_FLIGHT_REQUESTS, MAX_BUFFERED_RECORDS,
                               LINGER_MS, FLUSH_TIMEOUT_MS, MAX_RETRIES, RETRY_BACKOFF_MS,
                               CONNECTION_TIMEOUT_MS, READ_TIMEOUT_MS)),
)  # fmt: skip

_SSL_KEYS: Final = (
    SSL_PROTOCOL,
    SSL_CIPHER_SUITES,
    SSL_ENABLED_PROTOCOLS,
    SSL_KEYSTORE_TYPE,
    SSL_KEYSTORE_LOCATION,
    SSL_KEYSTORE_PASSWORD,
    SSL_KEY_PASSWORD,
    SSL_TRUSTSTORE_TYPE,
    SSL_TRUSTSTORE_LOCATION,
    SSL_TRUSTSTORE_PASSWORD,
    SSL_ENDPOINT_IDENTIFICATION_ALGORITHM,
)

_BASIC_AUTH_KEYS: Final = (_SHARED[CONNECTION_USERNAME], _SHARED[CONNECTION_PASSWORD])

_AWS_ACCESS_KEYS: Final = (
    KeySpec(AWS_ACCESS_KEY_ID, Type.STRING, None, _M, "Access Key Id", "AWS Access key id"),
    KeySpec(AWS_SECRET_ACCESS_KEY, Type.PASSWORD, None, _M, "Secret Access Key",
            "AWS secret access key"),
)  # fmt: skip

_AWS_STS_KEYS: Final = (
    KeySpec(AWS_STS_ROLE_ARN, Type.STRING, None, _M, AWS_STS_ROLE_ARN, "AWS STS Role",
            NonEmptyString(), _NONE),
    KeySpec(AWS_STS_ROLE_SESSION_NAME, Type.STRING, None, _M, AWS_STS_ROLE_SESSION_NAME,
            "AWS STS Session name", NonEmptyString(), _NONE),
    KeySpec(AWS_STS_ROLE_SESSION_DURATION, Type.INT, STS_SESSION_DURATION_DEFAULT, _M,
            AWS_STS_ROLE_SESSION_DURATION, "AWS STS Session duration", Range.between(900, 43200),
            _NONE),
    KeySpec(AWS_STS_ROLE_EXTERNAL_ID, Type.STRING, None, _M, AWS_STS_ROLE_EXTERNAL_ID,
            "AWS STS External Id", NonEmptyString(), _NONE),
)  # fmt: skip

# Aiven numbers both keys 0.
_AWS_SIG4_KEYS: Final = (
    (AWS_REGION, "AWS Region",
     "AWS Region, e.g. us-east-1. This field is required to enable AWS SigV4 request signing"),
    (AWS_SERVICE_SIGNING_NAME, "AWS Service Signing Name",
     "AWS Service Signing Name, eg es. This field is required to enable AWS SigV4 request "
     "signing"),
)  # fmt: skip

_CONVERSION_KEYS: Final = (
    KeySpec(INDEX_WRITE_METHOD, Type.STRING, "insert", _L, "Index write method",
            "The method used to write data into OpenSearch index.The default value is ``insert`` "
            "which means that the record with the same document id will be replaced. The "
            "``upsert`` will create a new document if one does not exist or will update the "
            "existing document.", _WriteMethodValidator()),
    _SHARED[KEY_IGNORE]._replace(
        doc="Whether to ignore the record key for the purpose of forming the OpenSearch "
            "document ID. When this is set to ``true``, document IDs will be generated according "
            "to the ``key.ignore.id.strategy`` strategy.\nNote that this is a global config that "
            "applies to all topics, use ``topic.key.ignore`` to apply "
            "``key.ignore.id.strategy`` strategy for specific topics only."),
    KeySpec(KEY_IGNORE_ID_STRATEGY, Type.STRING, "topic.partition.offset", _L,
            "Document ID generation strategy",
            "Specifies the strategy to generate the Document ID. Only applicable when "
            "``key.ignore`` is ``true`` or specific topics are configured using "
            "``topic.key.ignore``. Available strategies {none : No Doc ID is added, record.key : "
            "Generated from the record's key, topic.partition.offset : Generated as record's "
            "``topic+partition+offset``}. If not specified, the default generation strategy is "
            "``topic.partition.offset``.\n", _one_of(ID_STRATEGIES), _LONG),
    *(_SHARED[key] for key in (SCHEMA_IGNORE, COMPACT_MAP_ENTRIES, TOPIC_KEY_IGNORE,
                               TOPIC_SCHEMA_IGNORE, DROP_INVALID_MESSAGE)),
    KeySpec(BEHAVIOR_ON_NULL_VALUES, Type.STRING, "ignore", _L,
            "Behavior for null-valued records",
            "How to handle records with a non-null key and a null value (i.e. Kafka tombstone "
            "records). Valid options are ``ignore``, ``delete``, and ``fail``.",
            _one_of(NULL_VALUES)),
    KeySpec(BEHAVIOR_ON_MALFORMED_DOCS, Type.STRING, "fail", _L,
            "Behavior on malformed documents",
            "How to handle records that OpenSearch rejects due to some malformation of the "
            "document itself, such as an index mapping conflict or a field name containing "
            "illegal characters. \nValid options are:\n- ``ignore`` - do not index the record\n"
            "- ``warn`` - log a warning message and do not index the record\n- ``report`` - "
            "report to errant record reporter and do not index the record\n- ``fail`` - fail "
            "the task.\n\n", _one_of(MALFORMED_DOCS)),
    KeySpec(BEHAVIOR_ON_VERSION_CONFLICT, Type.STRING, "fail", _L,
            "Behavior on document's version conflict (optimistic locking)",
            "How to handle records that OpenSearch rejects due to document's version conflicts."
            "\nIt may happen when offsets were not committed or/and records have to be "
            "reprocessed.\nValid options are:\n- ``ignore`` - ignore and keep the existing "
            "record\n- ``warn`` - log a warning message and keep the existing record\n- "
            "``report`` - report to errant record reporter and keep the existing record\n- "
            "``fail`` - fail the task.\n\n", _one_of(VERSION_CONFLICTS)),
    KeySpec(ROUTING_TYPE, Type.STRING, "none", _L, "Routing type",
            "Specifies the routing type which connector uses when sending documents to "
            "OpenSearch. Available types: {none : No routing is added, key : The routing value "
            "is determined by the record's key, value : The routing value is determined by the "
            "record's value}. If not specified, the default is ``none``.",
            _one_of(ROUTING_TYPES), _LONG),
    KeySpec(ROUTING_RECORD_VALUE_PATH, Type.STRING, None, _L,
            "The routing value is determined by the record's value",
            "Specifies the routing value which is determined by the record's value as JSON "
            "Pointer", _JsonPointer(), _LONG),
)  # fmt: skip

_DATA_STREAM_KEYS: Final = (
    KeySpec(DATA_STREAM_ENABLED, Type.BOOLEAN, False, _M, "Data stream name",
            "Enable use of data streams. If set to true the connector will write to data "
            "streams instead of regular indices. Default is false.", width=_LONG),
    KeySpec(DATA_STREAM_PREFIX, Type.STRING, None, _M, "Data stream name",
            "Generic data stream name to write into. If set, it will be used to construct the "
            "final data stream name in the form of {data.stream.prefix}-{topic}.",
            NonEmptyString(), _LONG),
    KeySpec(DATA_STREAM_TIMESTAMP, Type.STRING, "@timestamp", _M,
            "Data stream timestamp field",
            "The Kafka record field to use as the timestamp for the @timestamp field in "
            "documents sent to a data stream. The default is @timestamp.",
            NonEmptyString(), _LONG),
    KeySpec(DATA_STREAM_INDEX_TEMPLATE_NAME, Type.STRING, None, _M, "Data stream name",
            "If data.streams.existing.index.template.name is provided, and if that index "
            "template does not exist, a template will be created with that name, else no "
            "template is created.", width=_LONG),
)  # fmt: skip

_EXISTING_RESOURCE_KEYS: Final = (
    KeySpec(EXISTING_RESOURCE_TYPE, Type.STRING, "none", _L, "Existing Resource Type",
            "Specifies the type of existing OpenSearch resource to write to",
            _one_of(EXISTING_RESOURCE_TYPES)),
    KeySpec(TOPIC_TO_EXISTING_RESOURCE_MAPPING, Type.LIST, None, _L,
            "Topic to resource mappings",
            "Specifies comma-separated topic_name:resource_name mappings (e.g. "
            "topic_1:index_1,topic_2:index_2)", width=_LONG),
)  # fmt: skip


def _ssl_config_def() -> ConfigDef:
    d = client_ssl_config_def(_SSL_KEYS)
    d.define("trust.all.certificates", Type.BOOLEAN, False, importance=_L,
             doc="Allow to trust all certificates. Default is false")  # fmt: skip
    return d


def _config_def() -> ConfigDef:
    d = ConfigDef()
    define_group(d, CONNECTOR_GROUP, _CONNECTOR_KEYS)
    d.embed(SSL_PREFIX, SSL_GROUP, len(d) + 1, _ssl_config_def())
    define_group(d, BASIC_AUTH_GROUP, _BASIC_AUTH_KEYS, first_order=0)
    define_group(d, AWS_ACCESS_GROUP, _AWS_ACCESS_KEYS, first_order=0)
    define_group(d, AWS_STS_GROUP, _AWS_STS_KEYS)
    for name, display, doc in _AWS_SIG4_KEYS:
        spec = KeySpec(name, Type.STRING, None, _M, display, doc)
        define_group(d, AWS_SIG4_GROUP, [spec], first_order=0)
    define_group(d, DATA_CONVERSION_GROUP, _CONVERSION_KEYS)
    define_group(d, DATA_STREAM_GROUP, _DATA_STREAM_KEYS)
    define_group(d, EXISTING_RESOURCES_GROUP, _EXISTING_RESOURCE_KEYS)
    return d


OPENSEARCH_CONFIG_DEF: Final = _config_def()

# --- rules across keys -------------------------------------------------------------------------

_AWS_KEYS: Final = (
    AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY,
    AWS_STS_ROLE_ARN,
    AWS_STS_ROLE_SESSION_NAME,
    AWS_STS_ROLE_SESSION_DURATION,
    AWS_STS_ROLE_EXTERNAL_ID,
    AWS_REGION,
    AWS_SERVICE_SIGNING_NAME,
)


def _uses_resources(v: Mapping[str, Any]) -> bool:
    return str(v[EXISTING_RESOURCE_TYPE]).lower() != "none"


def _data_stream_enabled(v: Mapping[str, Any]) -> bool:
    """Aiven's ``dataStreamEnabled()``: an existing data stream, or ``data.stream.enabled``."""
    if _uses_resources(v):
        return str(v[EXISTING_RESOURCE_TYPE]).lower() == "data_stream"
    return bool(v[DATA_STREAM_ENABLED])


_MAPPING_MESSAGES: Final = MappingMessages(
    "Wrong topic-to-resource mapping format, expected format is: topic_name:resource_name",
    "Topic `{topic}` is mapped to multiple resources. "
    "Each topic should be mapped to exactly one resource",
    "Resource `{resource}` is mapped from multiple topics. "
    "Each resource should be mapped to exactly one topic",
)


def _mappings(v: Mapping[str, Any]) -> tuple[dict[str, str], Problem | None]:
    """``topic_name:resource_name`` pairs, or the first wrong one (as Aiven checks them)."""
    key, mappings = TOPIC_TO_EXISTING_RESOURCE_MAPPING, v[TOPIC_TO_EXISTING_RESOURCE_MAPPING]
    if not mappings:
        message = f"Give topic_name:resource_name mappings to use {EXISTING_RESOURCE_TYPE}."
        return {}, Problem((key,), message, None)
    if len(mappings) > MAX_EXISTING_RESOURCE_MAPPINGS:
        message = "Too many topic-to-resource mappings, the maximum allowed is 10"
        return {}, Problem((key,), message, mappings)
    return topic_resources(key, mappings, _MAPPING_MESSAGES)


def _resources(v: Mapping[str, Any]) -> list[Problem]:
    if not _uses_resources(v):
        return []
    if v[DATA_STREAM_ENABLED] and str(v[EXISTING_RESOURCE_TYPE]).lower() == "data_stream":
        message = (
            "Existing datastream mappings and datastream configurations are mutually exclusive. "
            "Please configure only one of these options"
        )
        return [Problem((DATA_STREAM_ENABLED, EXISTING_RESOURCE_TYPE), message)]
    problem = _mappings(v)[1]
    return [] if problem is None else [problem]


def _writes(v: Mapping[str, Any]) -> list[Problem]:
    upsert = str(v[INDEX_WRITE_METHOD]).lower() == "upsert"
    if upsert and _data_stream_enabled(v):
        message = "Data streams do not support upsert index write method"
        return [Problem((INDEX_WRITE_METHOD,), message)]
    strategy = str(v[KEY_IGNORE_ID_STRATEGY]).lower()
    if upsert and v[KEY_IGNORE] and strategy != "record.key":
        message = f"{strategy} is not supported for index upsert. Supported is: record.key"
        return [Problem((KEY_IGNORE_ID_STRATEGY,), message, strategy)]
    return []


def _routing(v: Mapping[str, Any]) -> list[Problem]:
    problems = []
    if str(v[ROUTING_TYPE]).lower() == "value":
        path = v[ROUTING_RECORD_VALUE_PATH]
        if path is None:
            message = (
                f"The '{ROUTING_RECORD_VALUE_PATH}' setting must be configured when using the "
                "'value' routing type"
            )
            problems.append(Problem((ROUTING_RECORD_VALUE_PATH,), message))
        elif str(v[BEHAVIOR_ON_NULL_VALUES]).lower() == "delete":
            message = (
                f"The '{ROUTING_RECORD_VALUE_PATH}' can't be used together with "
                f"'{BEHAVIOR_ON_NULL_VALUES}' set to 'delete'"
            )
            problems.append(Problem((ROUTING_RECORD_VALUE_PATH, BEHAVIOR_ON_NULL_VALUES), message))
    for key, default in ((ROUTING_TYPE, "none"), (ROUTING_RECORD_VALUE_PATH, None)):
        value = v[key]
        if (value.lower() if isinstance(value, str) else value) != default:
            message = "Routing is not supported by Seaway yet: remove this setting."
            problems.append(Problem((key,), message))
    return problems


def _aws_set(v: Mapping[str, Any]) -> list[str]:
    """The AWS keys given a value other than their default."""
    defaults = {AWS_STS_ROLE_SESSION_DURATION: STS_SESSION_DURATION_DEFAULT}
    return [key for key in _AWS_KEYS if v[key] != defaults.get(key)]


def _aws(v: Mapping[str, Any]) -> list[Problem]:
    message = (
        "AWS SigV4 request signing is not supported by Seaway yet: remove this setting "
        f"(basic authentication with {CONNECTION_USERNAME} and {CONNECTION_PASSWORD} is)."
    )
    return [Problem((key,), message) for key in _aws_set(v)]


def _urls(v: Mapping[str, Any]) -> list[Problem]:
    """Each URL must be http(s); Aiven wants them scheme-less with SigV4, refused above."""
    if _aws_set(v):
        return []
    wrong = urls_problem(v[CONNECTION_URL])
    if wrong is None:
        return []
    url, message = wrong
    return [Problem((CONNECTION_URL,), message, url)]


def _opensearch_rules(v: Mapping[str, Any], props: Mapping[str, str]) -> list[Problem]:
    """Aiven's ``validate()`` checks, in its order, then what Seaway does not support."""
    return [*_resources(v), *_writes(v), *_routing(v), *_aws(v), *_urls(v)]


def validate_opensearch(props: Mapping[str, str]) -> ConfigValidation:
    """Aiven's ``config/validate`` answer for *props*, with the checks Aiven makes only when a
    connector starts reported on the keys they concern."""
    return validate_props(OPENSEARCH_CONFIG_DEF, props, _opensearch_rules)


# --- settings ----------------------------------------------------------------------------------


def _credentials(v: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """Basic authentication only with both a username and a password, as Aiven does."""
    username, password = v[CONNECTION_USERNAME], password_value(v[CONNECTION_PASSWORD])
    if (username is None) != (password is None):
        log.warning(
            "No basic authentication: %s and %s must both be set",
            CONNECTION_USERNAME,
            CONNECTION_PASSWORD,
        )
        return None, None
    return username, password


def _tls(v: Mapping[str, Any], props: Mapping[str, str]) -> TlsFiles | None:
    """TLS settings when any ``connection.ssl.*`` key or the trust-all flag is given."""
    given = any(k.startswith(SSL_PREFIX + "ssl.") or k == TRUST_ALL_CERTIFICATES for k in props)
    return tls_files(v, SSL_PREFIX, v[TRUST_ALL_CERTIFICATES]) if given else None


def _data_stream(v: Mapping[str, Any]) -> DataStream | None:
    if not _data_stream_enabled(v):
        if v[DATA_STREAM_PREFIX] is not None:
            log.warning("The property data.stream.prefix was set but data streams are not enabled")
        return None
    return DataStream(
        prefix=v[DATA_STREAM_PREFIX] or "",
        timestamp_field=v[DATA_STREAM_TIMESTAMP],
        keep_timestamp=True,
        index_template=v[DATA_STREAM_INDEX_TEMPLATE_NAME],
    )


_RESOURCE_TYPES: Final = {"index": "index", "data_stream": "data_stream", "index_alias": "alias"}


def opensearch_settings(props: Mapping[str, str]) -> SinkSettings:
    """The settings of a connector configured with Aiven's keys; raises ``ConfigException``
    naming the key and the fix on the first bad value or broken rule."""
    v = check_props(OPENSEARCH_CONFIG_DEF, props, _opensearch_rules)
    username, password = _credentials(v)
    resources = _mappings(v)[0] if _uses_resources(v) else {}
    return SinkSettings(
        **shared_settings(v),
        aiven_index_names=True,
        username=username,
        password=password,
        tls=_tls(v, props),
        bulk_size_bytes=-1,
        version_conflicts=VersionConflictBehavior(v[BEHAVIOR_ON_VERSION_CONFLICT].lower()),
        write_method=WriteMethod(v[INDEX_WRITE_METHOD].lower()),
        ignored_key_ids=IdStrategy(v[KEY_IGNORE_ID_STRATEGY].lower()),
        data_stream=_data_stream(v),
        resources=resources,
        resource_type=_RESOURCE_TYPES[v[EXISTING_RESOURCE_TYPE].lower()] if resources else "",
    )
