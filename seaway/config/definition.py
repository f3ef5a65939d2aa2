"""ConfigDef: a declarative, ordered set of config definitions (Kafka's ConfigDef)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, KeysView, Mapping
from types import MappingProxyType
from typing import Any, Self

from seaway.config.docs import render_markdown, render_rst
from seaway.config.errors import ConfigException
from seaway.config.keys import ConfigKey, ConfigValue, Recommender
from seaway.config.types import NO_DEFAULT, Importance, Type, Width, parse_type
from seaway.config.validators import Validator

logger = logging.getLogger(__name__)


def missing_required_message(name: str) -> str:
    """Kafka's message for a required config that was not supplied."""
    return f'Missing required configuration "{name}" which has no default value.'


def _run_validator(key: ConfigKey, value: Any) -> None:
    """Run *key*'s validator, turning unexpected exceptions into ConfigException."""
    if key.validator is None:
        return
    try:
        key.validator.ensure_valid(key.name, value)
    except ConfigException:
        raise
    except Exception as exc:
        raise ConfigException(key.name, value, f"Validator failed: {exc}") from exc


class ConfigDef:
    """An ordered collection of :class:`ConfigKey` definitions.

    Build it fluently with :meth:`define`, then :meth:`parse` raw properties into
    typed values, or :meth:`validate` them to collect every error without raising.
    """

    def __init__(self, base: ConfigDef | None = None) -> None:
        self._keys: dict[str, ConfigKey] = dict(base._keys) if base is not None else {}
        self._groups: list[str] = list(base._groups) if base is not None else []

    # ----------------------------------------------------------------- defining

    def define(
        self,
        name: str,
        type: Type,
        default: Any = NO_DEFAULT,
        validator: Validator | None = None,
        importance: Importance = Importance.MEDIUM,
        doc: str = "",
        *,
        group: str | None = None,
        order_in_group: int = -1,
        width: Width = Width.NONE,
        display_name: str | None = None,
        dependents: Iterable[str] = (),
        recommender: Recommender | None = None,
        internal: bool = False,
    ) -> Self:
        """Add a config; returns ``self`` for chaining.

        Raises :class:`ConfigException` if *name* is already defined or the default
        does not parse or validate.
        """
        if isinstance(dependents, str):
            raise TypeError(f"dependents of config {name} must be a sequence of names")
        return self.define_key(
            ConfigKey(
                name=name,
                type=type,
                default_value=default,
                validator=validator,
                importance=importance,
                documentation=doc,
                group=group,
                order_in_group=order_in_group,
                width=width,
                display_name=display_name or name,
                dependents=tuple(dependents),
                recommender=recommender,
                internal=internal,
            )
        )

    def define_internal(
        self,
        name: str,
        type: Type,
        default: Any = NO_DEFAULT,
        validator: Validator | None = None,
        importance: Importance = Importance.LOW,
        doc: str = "",
    ) -> Self:
        """Add a config that is excluded from generated documentation."""
        return self.define(name, type, default, validator, importance, doc, internal=True)

    def define_key(self, key: ConfigKey) -> Self:
        """Add a prebuilt :class:`ConfigKey`; returns ``self``."""
        if key.name in self._keys:
            raise ConfigException(f"Configuration {key.name} is defined twice.")
        if key.group is not None and key.group not in self._groups:
            self._groups.append(key.group)
        self._keys[key.name] = key
        return self

    def embed(self, prefix: str, group: str, start_order: int, child: ConfigDef) -> Self:
        """Define every key of *child* under ``prefix + name`` (Kafka's ``embed``).

        Keys go into group ``group`` (or ``"group: childgroup"``), numbered from
        *start_order* in the child's documentation order. Validators, dependents and
        recommenders are adapted to the prefixed names.
        """
        embedded: list[ConfigKey] = []
        for order, key in enumerate(child.sorted_configs(), start=start_order):
            validator, recommender = key.validator, key.recommender
            embedded.append(
                ConfigKey(
                    name=prefix + key.name,
                    type=key.type,
                    default_value=key.default_value,
                    validator=None if validator is None else _EmbeddedValidator(prefix, validator),
                    importance=key.importance,
                    documentation=key.documentation,
                    group=group + (f": {key.group}" if key.group is not None else ""),
                    order_in_group=order,
                    width=key.width,
                    display_name=key.display_name,
                    dependents=tuple(prefix + d for d in key.dependents),
                    recommender=(
                        None if recommender is None else _EmbeddedRecommender(prefix, recommender)
                    ),
                    internal=key.internal,
                )
            )
        clashes = [k.name for k in embedded if k.name in self._keys]
        if clashes:
            raise ConfigException(f"Configuration {clashes[0]} is defined twice.")
        for key in embedded:
            self.define_key(key)
        return self

    # ------------------------------------------------------------- deriving

    def copy(self) -> ConfigDef:
        """A shallow copy that can be extended independently."""
        return ConfigDef(self)

    def merge(self, *others: ConfigDef) -> ConfigDef:
        """A new definition with this one's keys followed by each of *others*'.

        Raises :class:`ConfigException` on a name defined in more than one.
        """
        merged = self.copy()
        for other in others:
            for key in other._keys.values():
                merged.define_key(key)
        return merged

    def with_defaults(self, defaults: Mapping[str, Any]) -> ConfigDef:
        """A copy whose keys named in *defaults* get new (parsed, validated) defaults."""
        unknown = [name for name in defaults if name not in self._keys]
        if unknown:
            raise ConfigException(f"Cannot override defaults of undefined configs: {unknown}")
        result = self.copy()
        for name, default in defaults.items():
            result._keys[name] = dataclasses.replace(result._keys[name], default_value=default)
        return result

    # ------------------------------------------------------------- inspecting

    @property
    def config_keys(self) -> Mapping[str, ConfigKey]:
        """Read-only, definition-ordered mapping of name to :class:`ConfigKey`."""
        return MappingProxyType(self._keys)

    @property
    def groups(self) -> tuple[str, ...]:
        """Group names in order of first definition."""
        return tuple(self._groups)

    def names(self) -> KeysView[str]:
        """The defined names, in definition order (set-like)."""
        return self.config_keys.keys()

    def default_values(self) -> dict[str, Any]:
        """Defaults of every key that has one."""
        return {n: k.default_value for n, k in self._keys.items() if k.has_default}

    def __contains__(self, name: object) -> bool:
        return name in self._keys

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"ConfigDef({list(self._keys)})"

    def sorted_configs(self) -> list[ConfigKey]:
        """Keys in doc order: group, order in group, required first, importance, name."""
        group_ord = {g: i for i, g in enumerate(self._groups)}

        def sort_key(k: ConfigKey) -> tuple[int, int, int, int, str]:
            g = -1 if k.group is None else group_ord[k.group]
            return (g, k.order_in_group, int(k.has_default), k.importance.rank, k.name)

        return sorted(self._keys.values(), key=sort_key)

    def undefined_dependent_configs(self) -> list[str]:
        """Names listed as dependents that are not themselves defined."""
        missing: dict[str, None] = {}
        for key in self._keys.values():
            for dep in key.dependents:
                if dep not in self._keys:
                    missing[dep] = None
        return list(missing)

    # ------------------------------------------------------------- parsing

    def parse_value(self, key: ConfigKey, value: Any, is_set: bool) -> Any:
        """Parse and validate one value; the default is used when not *is_set*."""
        if is_set:
            parsed = parse_type(key.name, value, key.type)
        elif not key.has_default:
            raise ConfigException(missing_required_message(key.name))
        else:
            parsed = key.default_value
            if isinstance(parsed, list):
                parsed = list(parsed)  # never hand out the shared default list
        _run_validator(key, parsed)
        return parsed

    def parse(self, props: Mapping[str, Any]) -> dict[str, Any]:
        """Typed values for every defined key, in definition order.

        Applies defaults, converts types and runs validators; raises
        :class:`ConfigException` on the first problem. Unknown keys are ignored.
        """
        undefined = self.undefined_dependent_configs()
        if undefined:
            raise ConfigException(
                "Some configurations are referred to in the dependents, but not defined: "
                + ",".join(undefined)
            )
        return {
            name: self.parse_value(key, props.get(name), name in props)
            for name, key in self._keys.items()
        }

    def validate(self, props: Mapping[str, Any]) -> list[ConfigValue]:
        """Like :meth:`validate_all`, as a list in definition order."""
        return list(self.validate_all(props).values())

    def validate_all(self, props: Mapping[str, Any]) -> dict[str, ConfigValue]:
        """Validate every key without raising (Kafka's ``validateAll``).

        Each :class:`ConfigValue` collects its key's parse/validation errors and, for
        keys with a recommender, its recommended values and visibility. Dependents
        are processed after their parent. Undefined dependents get an error entry.
        """
        results = {name: ConfigValue(name) for name in self._keys}
        for name in self.undefined_dependent_configs():
            value = ConfigValue(name, visible=False)
            value.add_error_message(f"{name} is referred in the dependents, but not defined.")
            results[name] = value

        order = self._dependency_order()
        parsed: dict[str, Any] = {}
        for name in order:
            key = self._keys[name]
            result = results[name]
            value = self._parse_for_validate(key, props, result)
            result.value = value
            parsed[name] = value
        for name in order:
            self._recommend(self._keys[name], parsed, results[name])
        return results

    def _dependency_order(self) -> list[str]:
        """Names in depth-first order from parentless keys, parents before dependents.

        Keys only reachable through a dependency cycle are appended afterwards.
        """
        with_parent = {d for k in self._keys.values() for d in k.dependents}
        seen: dict[str, None] = {}

        def visit(name: str) -> None:
            if name in seen or name not in self._keys:
                return
            seen[name] = None
            for dep in self._keys[name].dependents:
                visit(dep)

        for name in self._keys:
            if name not in with_parent:
                visit(name)
        for name in self._keys:
            visit(name)
        return list(seen)

    @staticmethod
    def _parse_for_validate(key: ConfigKey, props: Mapping[str, Any], result: ConfigValue) -> Any:
        try:
            if key.name in props:
                value = parse_type(key.name, props[key.name], key.type)
            elif key.has_default:
                value = key.default_value
                if isinstance(value, list):
                    value = list(value)
            else:
                result.add_error_message(missing_required_message(key.name))
                return None
        except ConfigException as exc:
            result.add_error_message(str(exc))
            return None
        # Unlike Kafka, the validator is skipped when no value could be obtained,
        # so a bad value reports one error rather than an extra "must be non-null".
        try:
            _run_validator(key, value)
        except ConfigException as exc:
            result.add_error_message(str(exc))
        return value

    @staticmethod
    def _recommend(key: ConfigKey, parsed: Mapping[str, Any], result: ConfigValue) -> None:
        if key.recommender is None:
            return
        try:
            result.recommended_values = list(key.recommender.valid_values(key.name, parsed))
            result.visible = bool(key.recommender.visible(key.name, parsed))
        except ConfigException as exc:
            result.add_error_message(str(exc))
        except Exception as exc:
            logger.warning("Recommender for %s failed", key.name, exc_info=True)
            result.add_error_message(f"Recommender for {key.name} failed: {exc}")

    # ------------------------------------------------------------- docs

    def to_rst(self) -> str:
        """reStructuredText reference of the non-internal keys (Kafka's ``toRst``)."""
        return render_rst(self.sorted_configs())

    def to_markdown(self, heading_level: int = 3) -> str:
        """Markdown reference of the non-internal keys."""
        return render_markdown(self.sorted_configs(), heading_level)


class _EmbeddedValidator(Validator):
    """Calls the child validator with the unprefixed name; errors name the full key."""

    def __init__(self, prefix: str, base: Validator) -> None:
        self._prefix = prefix
        self._base = base

    def ensure_valid(self, name: str, value: Any) -> None:
        short = name.removeprefix(self._prefix)
        try:
            self._base.ensure_valid(short, value)
        except ConfigException as exc:
            if exc.name == short and short != name:
                raise ConfigException(name, exc.value, exc.reason) from exc
            raise

    def __str__(self) -> str:
        return str(self._base)

    def __repr__(self) -> str:
        return f"_EmbeddedValidator({self._prefix!r}, {self._base!r})"


class _EmbeddedRecommender:
    """Presents the child recommender with unprefixed names and values."""

    def __init__(self, prefix: str, base: Recommender) -> None:
        self._prefix = prefix
        self._base = base

    def _unprefixed(self, parsed: Mapping[str, Any]) -> dict[str, Any]:
        n = len(self._prefix)
        return {k[n:]: v for k, v in parsed.items() if k.startswith(self._prefix)}

    def valid_values(self, name: str, parsed_config: Mapping[str, Any]) -> list[Any]:
        return self._base.valid_values(
            name.removeprefix(self._prefix), self._unprefixed(parsed_config)
        )

    def visible(self, name: str, parsed_config: Mapping[str, Any]) -> bool:
        return self._base.visible(name.removeprefix(self._prefix), self._unprefixed(parsed_config))
