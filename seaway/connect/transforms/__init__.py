"""Kafka Connect's built-in Single Message Transforms (KIP-66) and predicates (KIP-585).

Each built-in has Kafka's config keys, defaults and documentation (``CONFIG_DEF``) and
handles both schema-ful values (:class:`~seaway.connect.api.data.Struct`) and schemaless
ones (``dict``) as Kafka does. Transforms of the key or the value come as ``$Key`` and
``$Value`` variants: ``InsertField.Key`` is :class:`InsertFieldKey`.

Transformations: ``Cast``, ``DropHeaders``, ``ExtractField``, ``Filter``, ``Flatten``,
``HeaderFrom``, ``HoistField``, ``InsertField``, ``InsertHeader``, ``MaskField``,
``RegexRouter``, ``ReplaceField``, ``SetSchemaMetadata``, ``TimestampConverter``,
``TimestampRouter``, ``ValueToKey``. Predicates: ``HasHeaderKey``, ``RecordIsTombstone``,
``TopicNameMatches``.

* :func:`load_class` finds a class by Kafka class name, short alias such as
  ``InsertField$Value`` (the ``seaway.transforms`` and ``seaway.predicates`` entry points) or
  Python path.
* :class:`~seaway.connect.transforms.chain.TransformationChain` is what a connector config's
  ``transforms``/``predicates`` build; :func:`validate_transform_configs` reports their
  errors per config key, :func:`enrich` defines the per-alias keys (for ``ConfigInfos``)
  and :func:`validate_transform_config_values` gives their ConfigValues.

Nothing is skipped: these are all the built-ins of Kafka's ``connect/transforms`` (3.9),
including ExtractField's nested ``field.syntax.version=V2`` paths (KIP-821).

Differences from Kafka, all deliberate:

* Regexes and replacement strings are Java's, run on Python's :mod:`re` (see
  :mod:`~seaway.java.regex`): nested character classes are unsupported.
  A RegexRouter replacement naming a missing group fails on configure, not per record.
* Date patterns are Java ``SimpleDateFormat``'s common letters
  (:mod:`~seaway.java.dates`), always in UTC; Java's week fields
  (``w``, ``W``, ``F``) are not supported.
* MaskField masks a Decimal to zero at its schema's scale; Cast does not copy a logical
  type's name onto a whole-value cast's schema; Cast casts Struct defaults field by field.
* Python types stand for Java's: Date, Time and Timestamp values are ``datetime.date``,
  ``datetime.time`` and ``datetime.datetime``, and messages name Python classes.
"""

from seaway.connect.transforms.cast import Cast, CastKey, CastValue
from seaway.connect.transforms.chain import (
    TransformationChain,
    TransformationStage,
    enrich,
    validate_transform_config_values,
    validate_transform_configs,
)
from seaway.connect.transforms.extract_field import ExtractField, ExtractFieldKey, ExtractFieldValue
from seaway.connect.transforms.filter import Filter
from seaway.connect.transforms.flatten import Flatten, FlattenKey, FlattenValue
from seaway.connect.transforms.headers import (
    DropHeaders,
    HeaderFrom,
    HeaderFromKey,
    HeaderFromValue,
    InsertHeader,
)
from seaway.connect.transforms.hoist_field import HoistField, HoistFieldKey, HoistFieldValue
from seaway.connect.transforms.insert_field import InsertField, InsertFieldKey, InsertFieldValue
from seaway.connect.transforms.mask_field import MaskField, MaskFieldKey, MaskFieldValue
from seaway.connect.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches
from seaway.connect.transforms.registry import PluginKind, load_class
from seaway.connect.transforms.replace_field import (
    ReplaceField,
    ReplaceFieldKey,
    ReplaceFieldValue,
)
from seaway.connect.transforms.routers import RegexRouter, TimestampRouter
from seaway.connect.transforms.set_schema_metadata import (
    SetSchemaMetadata,
    SetSchemaMetadataKey,
    SetSchemaMetadataValue,
)
from seaway.connect.transforms.timestamp_converter import (
    TimestampConverter,
    TimestampConverterKey,
    TimestampConverterValue,
)
from seaway.connect.transforms.value_to_key import ValueToKey

__all__ = [
    "Cast",
    "CastKey",
    "CastValue",
    "DropHeaders",
    "ExtractField",
    "ExtractFieldKey",
    "ExtractFieldValue",
    "Filter",
    "Flatten",
    "FlattenKey",
    "FlattenValue",
    "HasHeaderKey",
    "HeaderFrom",
    "HeaderFromKey",
    "HeaderFromValue",
    "HoistField",
    "HoistFieldKey",
    "HoistFieldValue",
    "InsertField",
    "InsertFieldKey",
    "InsertFieldValue",
    "InsertHeader",
    "MaskField",
    "MaskFieldKey",
    "MaskFieldValue",
    "PluginKind",
    "RecordIsTombstone",
    "RegexRouter",
    "ReplaceField",
    "ReplaceFieldKey",
    "ReplaceFieldValue",
    "SetSchemaMetadata",
    "SetSchemaMetadataKey",
    "SetSchemaMetadataValue",
    "TimestampConverter",
    "TimestampConverterKey",
    "TimestampConverterValue",
    "TimestampRouter",
    "TopicNameMatches",
    "TransformationChain",
    "TransformationStage",
    "ValueToKey",
    "enrich",
    "load_class",
    "validate_transform_config_values",
    "validate_transform_configs",
]
