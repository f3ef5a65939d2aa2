"""The transformation chain a connector config asks for, and its validation.

A connector config lists transforms and predicates by alias::

    transforms=Filter,Extract
    transforms.Filter.type=org.apache.kafka.connect.transforms.Filter
    transforms.Filter.predicate=IsFoo
    transforms.Extract.type=org.apache.kafka.connect.transforms.ExtractField$Key
    transforms.Extract.field=other_field
    transforms.Extract.predicate=IsBar
    transforms.Extract.negate=true
    predicates=IsFoo,IsBar
    predicates.IsFoo.type=org.apache.kafka.connect.transforms.predicates.TopicNameMatches
    predicates.IsFoo.pattern=foo
    predicates.IsBar.type=org.apache.kafka.connect.transforms.predicates.TopicNameMatches
    predicates.IsBar.pattern=bar

:meth:`TransformationChain.from_config` builds the chain; each record goes through the
stages in order, a stage applying iff it has no predicate or ``negate XOR predicate(record)``,
and a stage returning None drops the record. :func:`validate_transform_configs` reports
what is wrong with such a config, per config key, in Kafka's words (Kafka's
``ConnectorConfig.enrich`` plus ``ConfigDef.validateAll``); :func:`enrich` gives the
definitions of the per-alias keys themselves, for ``ConfigInfos``.

Beyond Kafka's checks, validation also reports a predicate alias that ``predicates`` does
not list, and errors the transform or predicate raises when configured (e.g. InsertField's
``No field insertion configured``), which Kafka only finds when the connector starts.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final, Generic

from seaway.config import (
    CompositeValidator,
    ConfigDef,
    ConfigException,
    ConfigValue,
    Importance,
    LambdaValidator,
    NonNullValidator,
    Type,
    Width,
    parse_type,
)
from seaway.connect.api.errors import ConnectError
from seaway.connect.api.transforms import Predicate, Transformation
from seaway.connect.transforms._util import R
from seaway.connect.transforms.registry import (
    PluginKind,
    check_plugin_class,
    find_class,
    plugin_class_name,
    plugin_names,
)

logger = logging.getLogger(__name__)

TRANSFORMS_CONFIG: Final = "transforms"
PREDICATES_CONFIG: Final = "predicates"
PREDICATE_CONFIG: Final = "predicate"
NEGATE_CONFIG: Final = "negate"
TYPE_CONFIG: Final = "type"
TRANSFORMS_GROUP: Final = "Transforms"
PREDICATES_GROUP: Final = "Predicates"
_KINDS: Final[tuple[tuple[PluginKind, str], ...]] = (
    ("transformation", TRANSFORMS_CONFIG),
    ("predicate", PREDICATES_CONFIG),
)


# ---------------------------------------------------------------------- the chain


class TransformationStage(Generic[R]):
    """One transform, applied when its optional predicate (maybe negated) holds."""

    def __init__(
        self,
        transformation: Transformation[R],
        predicate: Predicate[R] | None = None,
        negate: bool = False,
        *,
        alias: str | None = None,
    ) -> None:
        self.transformation = transformation
        self.predicate = predicate
        self.negate = negate
        self.alias = alias

    def apply(self, record: R) -> R | None:
        """The transformed record (None to drop it), or *record* if the predicate says no."""
        if self.predicate is None or self.negate != self.predicate.test(record):
            return self.transformation.apply(record)
        return record

    def close(self) -> None:
        """Close the transform and predicate, logging (not raising) their failures."""
        for name, plugin in (
            ("transformation", self.transformation),
            ("predicate", self.predicate),
        ):
            if plugin is None:
                continue
            try:
                plugin.close()
            except Exception:
                logger.warning("Failed to close %s %r", name, plugin, exc_info=True)

    def __repr__(self) -> str:
        return (
            f"TransformationStage{{predicate={self.predicate!r}, "
            f"transformation={self.transformation!r}, negate={self.negate}}}"
        )


class TransformationChain(Generic[R]):
    """The stages of ``transforms=...``, applied in order; empty means "no transforms"."""

    def __init__(self, stages: Sequence[TransformationStage[R]] = ()) -> None:
        self._stages = tuple(stages)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> TransformationChain[R]:
        """The configured chain of a connector *config* (other keys are ignored).

        Raises ConfigException with the first problem :func:`validate_transform_configs`
        finds (or, for an alias without a ``type``, Kafka's ``Not a Transformation``).
        """
        for kind, aliases_key in _KINDS:
            for alias in _aliases(config, aliases_key):
                type_key = f"{aliases_key}.{alias}.{TYPE_CONFIG}"
                if config.get(type_key) is None:
                    raise ConfigException(type_key, None, f"Not a {kind.capitalize()}")
        errors = validate_transform_configs(config)
        if errors:
            raise ConfigException(next(iter(errors.values()))[0])
        stages: list[TransformationStage[R]] = []
        try:
            for alias in _aliases(config, TRANSFORMS_CONFIG):
                stages.append(_build_stage(config, alias))
        except BaseException:
            for stage in stages:
                stage.close()
            raise
        return cls(stages)

    @property
    def stages(self) -> tuple[TransformationStage[R], ...]:
        """The stages, in order."""
        return self._stages

    def apply(self, record: R) -> R | None:
        """*record* after every stage, or None as soon as a stage drops it."""
        for stage in self._stages:
            transformed = stage.apply(record)
            if transformed is None:
                logger.debug("Record dropped by transformation %s", stage.alias)
                return None
            record = transformed
        return record

    def close(self) -> None:
        """Close every stage."""
        for stage in self._stages:
            stage.close()

    def __iter__(self) -> Iterator[TransformationStage[R]]:
        return iter(self._stages)

    def __len__(self) -> int:
        return len(self._stages)

    def __repr__(self) -> str:
        return "TransformationChain{" + ", ".join(map(repr, self._stages)) + "}"


def _prefixed(config: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The keys under *prefix*, prefix removed (Kafka's ``originalsWithPrefix``)."""
    return {
        key[len(prefix) :]: value
        for key, value in config.items()
        if key.startswith(prefix) and len(key) > len(prefix)
    }


def _transform_configs(config: Mapping[str, Any], alias: str) -> dict[str, Any]:
    configs = _prefixed(config, f"{TRANSFORMS_CONFIG}.{alias}.")
    for implicit in (TYPE_CONFIG, PREDICATE_CONFIG, NEGATE_CONFIG):
        configs.pop(implicit, None)
    return configs


def _predicate_configs(config: Mapping[str, Any], alias: str) -> dict[str, Any]:
    configs = _prefixed(config, f"{PREDICATES_CONFIG}.{alias}.")
    configs.pop(TYPE_CONFIG, None)
    return configs


def _instantiate(name: Any, kind: PluginKind) -> Any:
    cls = name if isinstance(name, type) else find_class(str(name), kind)
    if cls is None:
        raise ConfigException(f"Class {name} could not be found.")
    check_plugin_class(cls, kind)
    return cls()


def _build_stage(config: Mapping[str, Any], alias: str) -> TransformationStage[Any]:
    prefix = f"{TRANSFORMS_CONFIG}.{alias}."
    transformation = _instantiate(config[prefix + TYPE_CONFIG], "transformation")
    try:
        transformation.configure(_transform_configs(config, alias))
    except ConfigException:
        raise
    except Exception as exc:
        raise ConnectError(f"Failed to configure transformation {alias}: {exc}") from exc
    predicate_alias = config.get(prefix + PREDICATE_CONFIG)
    if predicate_alias is None:
        return TransformationStage(transformation, alias=alias)
    predicate = _instantiate(
        config[f"{PREDICATES_CONFIG}.{predicate_alias}.{TYPE_CONFIG}"], "predicate"
    )
    try:
        predicate.configure(_predicate_configs(config, str(predicate_alias)))
    except ConfigException:
        raise
    except Exception as exc:
        raise ConnectError(f"Failed to configure predicate {predicate_alias}: {exc}") from exc
    negate = str(config.get(prefix + NEGATE_CONFIG, "false")).strip().lower() == "true"
    return TransformationStage(transformation, predicate, negate, alias=alias)


# ---------------------------------------------------------------------- definitions


def _unique_aliases(name: str, value: Any) -> None:
    if len(value) > len(set(value)):
        raise ConfigException(name, value, "Duplicate alias provided.")


def alias_config_def() -> ConfigDef:
    """The ``transforms`` and ``predicates`` keys of a connector config (Kafka's wording)."""
    definition = ConfigDef()
    for order, (name, kind, group, doc, display) in enumerate(
        (
            (TRANSFORMS_CONFIG, "transformation", TRANSFORMS_GROUP,
             "Aliases for the transformations to be applied to records.", "Transforms"),
            (PREDICATES_CONFIG, "predicate", PREDICATES_GROUP,
             "Aliases for the predicates used by transformations.", "Predicates"),
        ),
        start=1,
    ):  # fmt: skip
        definition.define(
            name,
            Type.LIST,
            [],
            CompositeValidator.of(
                NonNullValidator(), LambdaValidator(_unique_aliases, f"unique {kind} aliases")
            ),
            Importance.LOW,
            doc,
            group=group,
            order_in_group=order,
            width=Width.LONG,
            display_name=display,
        )
    return definition


def _aliases(config: Mapping[str, Any], key: str) -> list[str]:
    """The distinct aliases listed under *key*, in order ([] if it does not parse)."""
    try:
        aliases = parse_type(key, config.get(key), Type.LIST)
    except ConfigException:
        return []
    return list(dict.fromkeys(str(a) for a in aliases or ()))


class _ClassRecommender:
    """Recommends the built-in classes of one kind, by Kafka name."""

    def __init__(self, kind: PluginKind) -> None:
        self._kind = kind

    def valid_values(self, name: str, parsed_config: Mapping[str, Any]) -> list[Any]:
        return plugin_names(self._kind)

    def visible(self, name: str, parsed_config: Mapping[str, Any]) -> bool:
        return True


def _plugin_config_def(cls: type, kind: PluginKind, key: str) -> ConfigDef:
    try:
        definition = cls().config()
    except Exception as exc:
        raise ConfigException(
            key,
            plugin_class_name(cls),
            f"Error getting config definition from {kind.capitalize()}: {exc}",
        ) from exc
    if not isinstance(definition, ConfigDef):
        raise ConnectError(
            f"{plugin_class_name(cls)}.config() must return a ConfigDef that is not null."
        )
    return definition


def _implicit_transform_keys() -> ConfigDef:
    return (
        ConfigDef()
        .define(
            PREDICATE_CONFIG,
            Type.STRING,
            None,
            importance=Importance.MEDIUM,
            doc="The alias of a predicate used to determine whether to apply this transformation.",
        )
        .define(
            NEGATE_CONFIG,
            Type.BOOLEAN,
            False,
            importance=Importance.MEDIUM,
            doc="Whether the configured predicate should be negated.",
        )
    )


def _enrich_kind(
    definition: ConfigDef, config: Mapping[str, Any], kind: PluginKind, aliases_key: str
) -> None:
    group_name = TRANSFORMS_GROUP if kind == "transformation" else PREDICATES_GROUP
    base_name = "Transformation" if kind == "transformation" else "Predicate"
    for alias in _aliases(config, aliases_key):
        prefix = f"{aliases_key}.{alias}."
        type_key = prefix + TYPE_CONFIG
        group = f"{group_name}: {alias}"

        def check_type(name: str, value: Any, prefix: str = prefix) -> None:
            if kind == "transformation":
                negate_key, predicate_key = prefix + NEGATE_CONFIG, prefix + PREDICATE_CONFIG
                if negate_key in config and predicate_key not in config:
                    raise ConfigException(
                        f"Config '{negate_key}' was provided but there is no config "
                        f"'{predicate_key}' defining a predicate to be negated."
                    )
            if isinstance(value, type):
                check_plugin_class(value, kind)
                _plugin_config_def(value, kind, name)

        definition.define(
            type_key,
            Type.CLASS,
            validator=LambdaValidator(check_type, f"valid configs for {alias} {kind}"),
            importance=Importance.HIGH,
            doc=f"Class for the '{alias}' {kind}.",
            group=group,
            order_in_group=0,
            width=Width.LONG,
            display_name=f"{base_name} type for {alias}",
            recommender=_ClassRecommender(kind),
        )
        cls = _resolved_class(config.get(type_key), kind)
        if cls is None:
            continue
        try:
            check_plugin_class(cls, kind)
            plugin_def = _plugin_config_def(cls, kind, type_key)
        except ConfigException:
            continue  # reported on the type key
        child = _implicit_transform_keys() if kind == "transformation" else ConfigDef()
        for key in plugin_def.config_keys.values():
            if kind == "transformation" and key.name in (PREDICATE_CONFIG, NEGATE_CONFIG):
                logger.warning(
                    "Transformer config %s is masked by implicit config of that name", key.name
                )
                continue
            child.define_key(key)
        definition.embed(prefix, group, 1, child)


def _resolved_class(value: Any, kind: PluginKind) -> type | None:
    if isinstance(value, type):
        return value
    if isinstance(value, str) and value.strip():
        return find_class(value, kind)
    return None


def enrich(config: Mapping[str, Any], base: ConfigDef | None = None) -> ConfigDef:
    """*base* (default :func:`alias_config_def`) plus the keys of every transform and
    predicate alias in *config*: ``<prefix>type``, the implicit ``predicate`` and ``negate``
    of transforms, and the plugin's own keys under its prefix (Kafka's ``enrich``)."""
    definition = (base if base is not None else alias_config_def()).copy()
    for kind, aliases_key in _KINDS:
        _enrich_kind(definition, config, kind, aliases_key)
    return definition


# ---------------------------------------------------------------------- validation


def validate_transform_config_values(
    config: Mapping[str, Any], base: ConfigDef | None = None
) -> dict[str, ConfigValue]:
    """A :class:`ConfigValue` (value, errors, recommendations) for every key of
    ``enrich(config, base)``."""
    definition = enrich(config, base)
    props = dict(config)
    for kind, aliases_key in _KINDS:
        for alias in _aliases(config, aliases_key):
            type_key = f"{aliases_key}.{alias}.{TYPE_CONFIG}"
            cls = _resolved_class(props.get(type_key), kind)
            if cls is not None:
                props[type_key] = cls  # so the CLASS key accepts Kafka names and aliases
    values = definition.validate_all(props)
    _check_predicate_references(config, values)
    _check_configure(config, values)
    return values


def validate_transform_configs(
    config: Mapping[str, Any], base: ConfigDef | None = None
) -> dict[str, list[str]]:
    """The error messages of each config key that has any, e.g.
    ``{"transforms.a.type": ["Invalid value X for configuration transforms.a.type: ..."]}``.

    Covers ``transforms``, ``predicates`` and the keys under each alias (plus *base*'s keys,
    if given); an empty dict means the transforms and predicates are configured correctly.
    """
    return {
        name: list(value.errors)
        for name, value in validate_transform_config_values(config, base).items()
        if value.errors
    }


def _add_error(values: dict[str, ConfigValue], name: str, message: str) -> None:
    values.setdefault(name, ConfigValue(name)).add_error_message(message)


def _check_predicate_references(config: Mapping[str, Any], values: dict[str, ConfigValue]) -> None:
    predicates = set(_aliases(config, PREDICATES_CONFIG))
    for alias in _aliases(config, TRANSFORMS_CONFIG):
        key = f"{TRANSFORMS_CONFIG}.{alias}.{PREDICATE_CONFIG}"
        predicate = config.get(key)
        if predicate is not None and str(predicate).strip() not in predicates:
            _add_error(
                values,
                key,
                str(
                    ConfigException(
                        key,
                        predicate,
                        f"Predicate alias {str(predicate).strip()} is not listed in "
                        f"'{PREDICATES_CONFIG}'",
                    )
                ),
            )


def _has_errors(values: Mapping[str, ConfigValue], prefix: str) -> bool:
    return any(value.errors for name, value in values.items() if name.startswith(prefix))


def _check_configure(config: Mapping[str, Any], values: dict[str, ConfigValue]) -> None:
    """Configure each error-free plugin to catch what only ``configure`` checks."""
    for kind, aliases_key in _KINDS:
        for alias in _aliases(config, aliases_key):
            prefix = f"{aliases_key}.{alias}."
            type_key = prefix + TYPE_CONFIG
            cls = _resolved_class(config.get(type_key), kind)
            if cls is None or _has_errors(values, prefix):
                continue
            if kind == "transformation":
                configs = _transform_configs(config, alias)
            else:
                configs = _predicate_configs(config, alias)
            plugin: Any = None
            try:
                plugin = cls()
                plugin.configure(configs)
            except ConfigException as exc:
                key = prefix + exc.name if exc.name and prefix + exc.name in values else type_key
                message = (
                    str(ConfigException(prefix + exc.name, exc.value, exc.reason))
                    if exc.name and key != type_key
                    else str(exc)
                )
                _add_error(values, key, message)
            except Exception as exc:
                _add_error(values, type_key, f"Failed to configure {kind} {alias}: {exc}")
            finally:
                if plugin is not None:
                    try:
                        plugin.close()
                    except Exception:
                        logger.debug("Failed to close %s %s", kind, alias, exc_info=True)


__all__ = [
    "NEGATE_CONFIG",
    "PREDICATES_CONFIG",
    "PREDICATE_CONFIG",
    "TRANSFORMS_CONFIG",
    "TransformationChain",
    "TransformationStage",
    "alias_config_def",
    "enrich",
    "validate_transform_config_values",
    "validate_transform_configs",
]
