"""Declarative configuration for Seaway, modelled on Kafka's ``ConfigDef``.

Define configs with :class:`ConfigDef`, parse properties into a typed
:class:`Config`, and read/write Java ``.properties`` files. This package is the
bottom of Seaway's dependency graph: it imports only the standard library and
``javaproperties``.
"""

from seaway.config.base import Config
from seaway.config.definition import ConfigDef
from seaway.config.docs import nice_memory_units, nice_time_units
from seaway.config.errors import ConfigException
from seaway.config.keys import ConfigKey, ConfigValue, Recommender
from seaway.config.plugins import load_class
from seaway.config.properties import dump_properties, load_properties, parse_properties
from seaway.config.types import (
    HIDDEN,
    NO_DEFAULT,
    Importance,
    Password,
    Type,
    Width,
    convert_to_string,
    parse_type,
)
from seaway.config.validators import (
    CaseInsensitiveValidString,
    CompositeValidator,
    LambdaValidator,
    NonEmptyString,
    NonEmptyStringWithoutControlChars,
    NonNullValidator,
    Range,
    Validator,
    ValidList,
    ValidString,
)

__all__ = [
    "HIDDEN",
    "NO_DEFAULT",
    "CaseInsensitiveValidString",
    "CompositeValidator",
    "Config",
    "ConfigDef",
    "ConfigException",
    "ConfigKey",
    "ConfigValue",
    "Importance",
    "LambdaValidator",
    "NonEmptyString",
    "NonEmptyStringWithoutControlChars",
    "NonNullValidator",
    "Password",
    "Range",
    "Recommender",
    "Type",
    "ValidList",
    "ValidString",
    "Validator",
    "Width",
    "convert_to_string",
    "dump_properties",
    "load_class",
    "load_properties",
    "nice_memory_units",
    "nice_time_units",
    "parse_properties",
    "parse_type",
]
