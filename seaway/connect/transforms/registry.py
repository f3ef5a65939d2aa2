"""Find transformation and predicate classes by Kafka class name, alias or Python path.

Connector configs name transforms the Kafka way
(``transforms.a.type=org.apache.kafka.connect.transforms.InsertField$Value``). The Kafka name
without its package works too (``InsertField$Value``, ``RegexRouter``, ``TopicNameMatches``),
as does a Python path to any other :class:`Transformation` or :class:`Predicate`
(``package.module.Class`` or ``package.module:Class``).

>>> load_class("RegexRouter", "transformation").__name__
'RegexRouter'
>>> CLASS_NAMES[load_class("InsertField$Value", "transformation")]
'org.apache.kafka.connect.transforms.InsertField$Value'
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final, Literal

from seaway.config import ConfigException
from seaway.config import load_class as load_python_class
from seaway.connect.api.transforms import Predicate, Transformation
from seaway.connect.transforms.cast import Cast, CastKey, CastValue
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

PluginKind = Literal["transformation", "predicate"]

TRANSFORMS_PACKAGE: Final = "org.apache.kafka.connect.transforms."
PREDICATES_PACKAGE: Final = "org.apache.kafka.connect.transforms.predicates."

_TRANSFORMATIONS_BY_SHORT_NAME: Final[dict[str, type[Transformation[Any]]]] = {
    "Cast$Key": CastKey,
    "Cast$Value": CastValue,
    "DropHeaders": DropHeaders,
    "ExtractField$Key": ExtractFieldKey,
    "ExtractField$Value": ExtractFieldValue,
    "Filter": Filter,
    "Flatten$Key": FlattenKey,
    "Flatten$Value": FlattenValue,
    "HeaderFrom$Key": HeaderFromKey,
    "HeaderFrom$Value": HeaderFromValue,
    "HoistField$Key": HoistFieldKey,
    "HoistField$Value": HoistFieldValue,
    "InsertField$Key": InsertFieldKey,
    "InsertField$Value": InsertFieldValue,
    "InsertHeader": InsertHeader,
    "MaskField$Key": MaskFieldKey,
    "MaskField$Value": MaskFieldValue,
    "RegexRouter": RegexRouter,
    "ReplaceField$Key": ReplaceFieldKey,
    "ReplaceField$Value": ReplaceFieldValue,
    "SetSchemaMetadata$Key": SetSchemaMetadataKey,
    "SetSchemaMetadata$Value": SetSchemaMetadataValue,
    "TimestampConverter$Key": TimestampConverterKey,
    "TimestampConverter$Value": TimestampConverterValue,
    "TimestampRouter": TimestampRouter,
    "ValueToKey": ValueToKey,
}
_PREDICATES_BY_SHORT_NAME: Final[dict[str, type[Predicate[Any]]]] = {
    "HasHeaderKey": HasHeaderKey,
    "RecordIsTombstone": RecordIsTombstone,
    "TopicNameMatches": TopicNameMatches,
}

CLASS_NAMES: Mapping[type, str] = MappingProxyType(
    {cls: TRANSFORMS_PACKAGE + short for short, cls in _TRANSFORMATIONS_BY_SHORT_NAME.items()}
    | {cls: PREDICATES_PACKAGE + short for short, cls in _PREDICATES_BY_SHORT_NAME.items()}
)
"""Each built-in class and its canonical Kafka class name, for plugin listings."""

TRANSFORMATIONS: Mapping[str, type[Transformation[Any]]] = MappingProxyType(
    {TRANSFORMS_PACKAGE + short: cls for short, cls in _TRANSFORMATIONS_BY_SHORT_NAME.items()}
    | _TRANSFORMATIONS_BY_SHORT_NAME
)
"""Every accepted transformation name (Kafka class name or short alias) and its class."""

PREDICATES: Mapping[str, type[Predicate[Any]]] = MappingProxyType(
    {PREDICATES_PACKAGE + short: cls for short, cls in _PREDICATES_BY_SHORT_NAME.items()}
    | _PREDICATES_BY_SHORT_NAME
)
"""Every accepted predicate name (Kafka class name or short alias) and its class."""

# Kafka's abstract families: naming one gets "Did you mean ...$Key, ...$Value?".
_FAMILIES: Final[dict[str, type]] = {
    cls.__name__: cls
    for cls in (
        Cast, ExtractField, Flatten, HeaderFrom, HoistField, InsertField, MaskField,
        ReplaceField, SetSchemaMetadata, TimestampConverter,
    )
}  # fmt: skip

_BASES: Final[dict[str, type]] = {"transformation": Transformation, "predicate": Predicate}


def _registry(kind: PluginKind) -> Mapping[str, type]:
    return TRANSFORMATIONS if kind == "transformation" else PREDICATES


def available_names(kind: PluginKind) -> list[str]:
    """The short names of the built-in transformations or predicates, sorted."""
    shorts = (
        _TRANSFORMATIONS_BY_SHORT_NAME if kind == "transformation" else _PREDICATES_BY_SHORT_NAME
    )
    return sorted(shorts)


def find_class(name: str, kind: PluginKind) -> type | None:
    """The class called *name* (built-in name or Python path), or None if there is none.

    The class is not checked to be a (concrete) transformation or predicate; see
    :func:`check_plugin_class`.
    """
    name = name.strip()
    found = _registry(kind).get(name)
    if found is not None:
        return found
    if kind == "transformation" and name.startswith(TRANSFORMS_PACKAGE):
        family = _FAMILIES.get(name.removeprefix(TRANSFORMS_PACKAGE))
        if family is not None:
            return family
    if "." not in name and ":" not in name:
        return None
    try:
        return load_python_class(name)
    except Exception:  # not importable: as good as absent
        return None


def plugin_class_name(cls: type) -> str:
    """The Kafka name of a built-in class, else its Python path ``module.Qualname``."""
    return CLASS_NAMES.get(cls) or f"{cls.__module__}.{cls.__qualname__}"


def check_plugin_class(cls: type, kind: PluginKind) -> None:
    """Raise ConfigException, in Kafka's words, unless *cls* is a concrete *kind* class."""
    base = _BASES[kind]
    if not issubclass(cls, base):
        raise ConfigException(
            f"Class {plugin_class_name(cls)} does not implement the {base.__name__} interface"
        )
    if inspect.isabstract(cls):
        variants = [
            plugin_class_name(variant)
            for variant in (getattr(cls, "Key", None), getattr(cls, "Value", None))
            if isinstance(variant, type) and not inspect.isabstract(variant)
        ]
        message = "This class is abstract and cannot be created."
        if variants:
            message += " Did you mean " + ", ".join(variants) + "?"
        raise ConfigException(message)


def load_class(name: str, kind: PluginKind) -> type[Any]:
    """The concrete transformation or predicate class called *name*.

    *name* is a Kafka class name, a short alias or a Python path. Raises ConfigException when
    it names nothing (listing the built-in names) or a class of the wrong kind.
    """
    cls = find_class(name, kind)
    if cls is None:
        raise ConfigException(
            f"Class {name.strip()} could not be found. Available {kind}s: "
            + ", ".join(available_names(kind))
        )
    check_plugin_class(cls, kind)
    return cls


__all__ = [
    "CLASS_NAMES",
    "PREDICATES",
    "TRANSFORMATIONS",
    "PluginKind",
    "available_names",
    "check_plugin_class",
    "find_class",
    "load_class",
    "plugin_class_name",
]
