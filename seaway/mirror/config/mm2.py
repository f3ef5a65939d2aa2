"""A driver-mode ``mm2.properties`` (Kafka's ``MirrorMakerConfig``): clusters, flows, the
per-cluster and per-flow settings, and the worker and connector configs derived from them.

Unlike Kafka, it checks the file when it is built and raises :class:`MirrorConfigError`
naming the offending key: unknown or identical aliases in ``<src>-><tgt>.*`` keys, a missing
``<alias>.bootstrap.servers`` for a cluster in an enabled flow, values of the wrong type and
malformed topic/group regexes.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Iterable, Mapping
from typing import Any, Final

from seaway.config import ConfigException, Type, convert_to_string, load_properties, parse_type
from seaway.config.providers import ConfigTransformer
from seaway.connect.runtime.connector_config import CONNECTOR_CLASS, NAME
from seaway.mirror import filters
from seaway.mirror.config.connectors import with_prefix
from seaway.mirror.config.defs import (
    BOOTSTRAP_SERVERS,
    BYTE_ARRAY_CONVERTER,
    CLIENT_CONFIG_DEF,
    CLIENT_CONFIG_NAMES,
    CLIENT_PREFIXES,
    CLUSTERS,
    CONFIG_PROVIDERS,
    CONNECTOR_CLASSES,
    CONNECTOR_CONFIG_DEFS,
    CONNECTOR_CONFIG_NAMES,
    EMIT_HEARTBEATS_ENABLED,
    ENABLE_INTERNAL_REST,
    ENABLED,
    MIRROR_MAKER_CONFIG_DEF,
    MIRROR_SOURCE_CONNECTOR,
    SEAWAY_KEY_PREFIXES,
    SOURCE_CLUSTER_ALIAS,
    SOURCE_CLUSTER_PREFIX,
    SOURCE_PREFIX,
    TARGET_CLUSTER_ALIAS,
    TARGET_CLUSTER_PREFIX,
    TARGET_PREFIX,
    WORKER_CONFIG_PREFIXES,
)
from seaway.mirror.config.errors import MirrorConfigError, key_error, mirror_error
from seaway.mirror.filters import (
    CONFIG_PROPERTY_FILTER_CLASS,
    DEFAULT_CONFIG_PROPERTY_FILTER_CLASS,
    DEFAULT_GROUP_FILTER_CLASS,
    DEFAULT_TOPIC_FILTER_CLASS,
    GROUP_FILTER_CLASS,
    TOPIC_FILTER_CLASS,
)

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, order=True)
class SourceAndTarget:
    """A directed replication flow between two cluster aliases; ``str()`` is ``"A->B"``."""

    source: str
    target: str

    def __str__(self) -> str:
        return f"{self.source}->{self.target}"


def _as_string(value: Any) -> str:
    if isinstance(value, str):
        return value
    secret = getattr(value, "value", None)  # Password
    if isinstance(secret, str):
        return secret
    return convert_to_string(value) or ""


def _is_client_key(key: str) -> bool:
    """Kafka's ``(^consumer.*|^producer.*|^admin.*)``: a cluster setting for one client type."""
    return key.startswith(("consumer", "producer", "admin"))


def _connector_names(connector_class: str | type) -> tuple[str, str]:
    """(default connector name, class name): Kafka's simple and full class names."""
    if isinstance(connector_class, type):
        cls = connector_class
        return cls.__name__, f"{cls.__module__}.{cls.__qualname__}"
    text = str(connector_class)
    return text.rpartition(":")[2].rpartition(".")[2], text


_Entries = dict[str, tuple[str, str]]  # key -> (value, the mm2.properties key it came from)

_DEFAULT_FILTERS: Final = (
    (TOPIC_FILTER_CLASS, DEFAULT_TOPIC_FILTER_CLASS, filters.DefaultTopicFilter),
    (GROUP_FILTER_CLASS, DEFAULT_GROUP_FILTER_CLASS, filters.DefaultGroupFilter),
    (CONFIG_PROPERTY_FILTER_CLASS, DEFAULT_CONFIG_PROPERTY_FILTER_CLASS,
     filters.DefaultConfigPropertyFilter),
)  # fmt: skip


class MirrorMakerConfig:
    """A driver-mode ``mm2.properties`` (Kafka's ``MirrorMakerConfig``).

    * ``clusters`` lists the aliases; ``<alias>.<setting>`` configures one cluster (its
      ``bootstrap.servers``, security, ``<alias>.consumer.*``/``producer.*``/``admin.*``
      client overrides and Connect worker settings for herders targeting it);
    * top-level connector settings (``topics``, ``tasks.max``, ...) apply to every flow and
      ``<src>-><tgt>.<setting>`` overrides them for one flow;
    * flows are off unless ``<src>-><tgt>.enabled = true``.

    Raises :class:`MirrorConfigError` (a :class:`ConfigException`) naming the bad key.
    """

    def __init__(self, props: Mapping[str, Any]) -> None:
        self._raw: dict[str, str] = {str(k): _as_string(v) for k, v in props.items()}
        try:
            self._values = MIRROR_MAKER_CONFIG_DEF.parse(self._raw)
        except ConfigException as exc:
            raise mirror_error(exc) from None
        self._clusters = self._parse_clusters(self._values[CLUSTERS])
        for key in self._raw:
            if "->" in key:
                self._check_flow_key(key)
        self._validate_cluster_settings()
        for pair in self.all_pairs():
            self._validate_connector_settings(pair)
        for pair in self.enabled_flows():
            for alias in (pair.source, pair.target):
                self._require_bootstrap(alias, f"the enabled replication flow {pair}")
        ignored = self.ignored_keys()
        if ignored:
            logger.warning("These MirrorMaker settings are not used by any cluster, flow or "
                           "connector: %s", ", ".join(ignored))  # fmt: skip

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> MirrorMakerConfig:
        """Load an ``mm2.properties`` file, its ``${provider:path:key}`` references resolved
        with the providers its ``config.providers*`` settings name (as Kafka's driver does;
        the driver keeps its configuration in memory only)."""
        props = load_properties(path)
        return cls(ConfigTransformer.from_worker(props).transform(props))

    # ------------------------------------------------------------------ parsing and checks

    @staticmethod
    def _parse_clusters(aliases: list[str]) -> list[str]:
        clusters = list(dict.fromkeys(aliases))
        if not clusters:
            raise MirrorConfigError(CLUSTERS, "", "At least one cluster alias is required")
        for alias in clusters:
            if not alias or "->" in alias or any(c.isspace() for c in alias):
                raise MirrorConfigError(
                    CLUSTERS, ", ".join(aliases),
                    f"Invalid cluster alias '{alias}': aliases are comma-separated and may "
                    "contain neither whitespace nor '->'",
                )  # fmt: skip
        return clusters

    def _check_flow_key(self, key: str) -> None:
        """Check both aliases of a ``<src>-><tgt>.<setting>`` key."""
        known = ", ".join(self._clusters)
        source, _, rest = key.partition("->")
        targets = [a for a in self._clusters if rest.startswith(a + ".") and len(rest) > len(a) + 1]
        if source not in self._clusters:
            reason = f"Unknown source cluster alias '{source}' (clusters: {known})"
        elif not targets and rest in self._clusters:
            reason = f"Expected {source}->{rest}.<setting>"
        elif not targets:
            reason = f"Unknown target cluster alias '{rest.split('.', 1)[0]}' (clusters: {known})"
        elif max(targets, key=len) == source:
            reason = f"A replication flow needs two different clusters, not {source}->{source}"
        else:
            return
        raise key_error(key, f"Invalid configuration {key}: {reason}")

    def _validate_cluster_settings(self) -> None:
        """Type-check ``<alias>.<client setting>`` (bootstrap, security, SSL, SASL)."""
        for alias in self._clusters:
            for name, config_key in CLIENT_CONFIG_DEF.config_keys.items():
                key = f"{alias}.{name}"
                if key in self._raw:
                    try:
                        CLIENT_CONFIG_DEF.parse_value(config_key, self._raw[key], True)
                    except ConfigException as exc:
                        raise mirror_error(exc, key) from None

    def _validate_connector_settings(self, pair: SourceAndTarget) -> None:
        """Parse the connector configs of *pair* and build its default filters; errors name
        the mm2.properties key that supplied the bad value."""
        entries = self._connector_entries(pair, MIRROR_SOURCE_CONNECTOR)
        values = {k: v for k, (v, _) in entries.items()}

        def renamed(exc: ConfigException) -> MirrorConfigError:
            entry = entries.get(exc.name or "")
            return mirror_error(exc, entry[1] if entry else None)

        for definition in CONNECTOR_CONFIG_DEFS.values():
            try:
                definition.parse(values)
            except ConfigException as exc:
                raise renamed(exc) from None
        for key, default, filter_class in _DEFAULT_FILTERS:
            if filters.is_default_filter_class(values.get(key), default):
                try:
                    filter_class(values)
                except ConfigException as exc:
                    raise renamed(exc) from None

    def _require_bootstrap(self, alias: str, user: str) -> None:
        if not self.cluster_props(alias).get(BOOTSTRAP_SERVERS, "").strip():
            key = f"{alias}.{BOOTSTRAP_SERVERS}"
            raise key_error(
                key,
                f'Missing required configuration "{key}" which has no default value: '
                f"cluster {alias} is used by {user}.",
            )

    def _check_alias(self, alias: str) -> None:
        if alias not in self._clusters:
            raise MirrorConfigError(
                f"Unknown cluster alias '{alias}' (clusters: {', '.join(self._clusters)})"
            )

    def _check_pair(self, pair: SourceAndTarget) -> None:
        self._check_alias(pair.source)
        self._check_alias(pair.target)
        if pair.source == pair.target:
            raise MirrorConfigError(f"{pair} is not a replication flow: the clusters are the same")

    # ------------------------------------------------------------------ clusters and flows

    @property
    def raw(self) -> dict[str, str]:
        """A copy of the properties as given (values as strings)."""
        return dict(self._raw)

    @property
    def clusters(self) -> list[str]:
        """The cluster aliases, in the order of ``clusters`` (duplicates dropped)."""
        return list(self._clusters)

    @property
    def enable_internal_rest(self) -> bool:
        """``dedicated.mode.enable.internal.rest``."""
        return bool(self._values[ENABLE_INTERNAL_REST])

    def all_pairs(self) -> list[SourceAndTarget]:
        """Every ordered pair of different clusters, in ``clusters`` order."""
        return [SourceAndTarget(s, t) for s in self._clusters for t in self._clusters if s != t]

    def _flag(self, key: str, default: bool) -> bool:
        value = self._raw.get(key)
        return default if value is None else bool(parse_type(key, value, Type.BOOLEAN))

    def cluster_pairs(self, targets: Iterable[str] | None = None) -> list[SourceAndTarget]:
        """The pairs that get a herder (Kafka's ``clusterPairs``), in ``clusters`` order.

        A pair gets one if ``<src>-><tgt>.enabled`` is true **or** heartbeats are enabled
        for it (``<src>-><tgt>.emit.heartbeats.enabled``, else the top-level
        ``emit.heartbeats.enabled``, default true): with ``A->B`` enabled, herder ``B->A``
        emits the heartbeats that ``A->B`` replicates. So by default every ordered pair is
        listed; :meth:`enabled_flows` gives the ones that replicate data. *targets* (the
        driver's ``--clusters``) keeps only pairs whose target is listed.
        """
        wanted: set[str] | None = None
        if targets is not None:
            wanted = set(targets)
            for alias in wanted:
                self._check_alias(alias)
        beats = self._flag(EMIT_HEARTBEATS_ENABLED, True)
        return [
            pair for pair in self.all_pairs()
            if (wanted is None or pair.target in wanted)
            and (self._flag(f"{pair}.{ENABLED}", False)
                 or self._flag(f"{pair}.{EMIT_HEARTBEATS_ENABLED}", beats))
        ]  # fmt: skip

    def is_enabled(self, pair: SourceAndTarget) -> bool:
        """The ``enabled`` its connectors get: ``<src>-><tgt>.enabled``, else the top-level
        ``enabled``, else false."""
        self._check_pair(pair)
        value = self._flow_props(pair).get(ENABLED, self._raw.get(ENABLED, "false"))
        return bool(parse_type(ENABLED, value, Type.BOOLEAN))

    def enabled_flows(self) -> list[SourceAndTarget]:
        """The herder pairs whose connectors are enabled, i.e. that replicate data."""
        return [pair for pair in self.cluster_pairs() if self.is_enabled(pair)]

    def _flow_props(self, pair: SourceAndTarget) -> dict[str, str]:
        return with_prefix(self._raw, f"{pair}.")

    # ------------------------------------------------------------------ derived configs

    def _cluster_entries(self, alias: str) -> _Entries:
        prefix = alias + "."
        entries: _Entries = {
            key[len(prefix) :]: (value, key)
            for key, value in self._raw.items()
            if key.startswith(prefix) and len(key) > len(prefix)
        }
        for name in CLIENT_CONFIG_DEF.names():
            if name in entries:
                for client in CLIENT_PREFIXES:
                    entries.setdefault(client + name, entries[name])
        for name in CLIENT_CONFIG_DEF.names():
            if name in self._raw:
                entry = (self._raw[name], name)
                for client in CLIENT_PREFIXES:
                    entries.setdefault(client + name, entry)
                entries.setdefault(name, entry)
        return entries

    def cluster_props(self, alias: str) -> dict[str, str]:
        """One cluster's settings (Kafka's ``clusterProps``): its ``<alias>.*`` entries with
        the prefix removed; its client settings (bootstrap, security, SSL, SASL) also copied
        to ``producer.``/``consumer.``/``admin.`` unless set there; then top-level client
        settings for whatever is still unset, both plain and with those three prefixes."""
        self._check_alias(alias)
        return {key: value for key, (value, _) in self._cluster_entries(alias).items()}

    def client_config(self, alias: str) -> dict[str, str]:
        """Properties for a ``MirrorClient`` on *alias*: everything, overridden by its
        :meth:`cluster_props` (Kafka's ``clientConfig``, without config providers)."""
        return {**self._raw, **self.cluster_props(alias)}

    def _connector_entries(self, pair: SourceAndTarget, connector_class: str | type) -> _Entries:
        raw = self._raw
        entries: _Entries = {k: (v, k) for k, v in raw.items() if k in CONNECTOR_CONFIG_NAMES}
        for prefix in (CONFIG_PROVIDERS, "replication.policy"):
            matching = with_prefix(raw, prefix, strip=False, allow_equal=True)
            entries.update((k, (v, k)) for k, v in matching.items())
        for alias, cluster_prefix, client_prefix in (
            (pair.source, SOURCE_CLUSTER_PREFIX, SOURCE_PREFIX),
            (pair.target, TARGET_CLUSTER_PREFIX, TARGET_PREFIX),
        ):
            for key, entry in self._cluster_entries(alias).items():
                entries[(client_prefix if _is_client_key(key) else cluster_prefix) + key] = entry
        name, class_name = _connector_names(connector_class)
        for key, value in (
            (NAME, name),
            (CONNECTOR_CLASS, class_name),
            (SOURCE_CLUSTER_ALIAS, pair.source),
            (TARGET_CLUSTER_ALIAS, pair.target),
        ):
            entries.setdefault(key, (value, key))
        entries.update((k, (v, f"{pair}.{k}")) for k, v in self._flow_props(pair).items())
        entries.setdefault(ENABLED, ("false", ENABLED))
        return entries

    def connector_base_config(
        self, pair: SourceAndTarget, connector_class: str | type = MIRROR_SOURCE_CONNECTOR
    ) -> dict[str, str]:
        """The config the driver gives one connector of *pair* (Kafka's ``connectorBaseConfig``).

        In order, later steps winning: top-level connector settings; ``config.providers*``
        and ``replication.policy*``; the source cluster's settings as ``source.cluster.*``
        (``source.consumer.*``, ``source.producer.*``, ``source.admin.*`` for client ones)
        and the target's as ``target.cluster.*``/``target.*``; ``name`` (the class's simple
        name), ``connector.class``, ``source.cluster.alias`` and ``target.cluster.alias``
        unless already set; the ``<src>-><tgt>.*`` overrides; ``enabled=false`` if unset.
        Values are not resolved through config providers.
        """
        self._check_pair(pair)
        return {k: v for k, (v, _) in self._connector_entries(pair, connector_class).items()}

    def connector_configs(self, pair: SourceAndTarget) -> dict[str, dict[str, str]]:
        """The three connectors' configs for *pair*, by connector name, in Kafka's order
        (source, heartbeat, checkpoint)."""
        configs = (self.connector_base_config(pair, cls) for cls in CONNECTOR_CLASSES)
        return {config[NAME]: config for config in configs}

    def worker_config(self, pair: SourceAndTarget) -> dict[str, str]:
        """The Connect worker config of the herder for *pair* (Kafka's ``workerConfig``).

        The target cluster's :meth:`cluster_props`, plus top-level ``offset.storage*``,
        ``config.storage*``, ``status.storage*``, ``key|value|header.converter*``, ``task*``,
        ``worker*``, ``replication.policy*`` and ``config.providers*``; then, unless set:
        ``client.id=<src>-><tgt>``, ``group.id=<src>-mm2``, the internal topics
        ``mm2-offsets.<src>.internal``, ``mm2-status.<src>.internal`` and
        ``mm2-configs.<src>.internal`` (on the target), and ByteArrayConverter for keys,
        values and headers. Raises :class:`MirrorConfigError` if the target has no
        ``bootstrap.servers``.
        """
        self._check_pair(pair)
        self._require_bootstrap(pair.target, f"the herder for {pair}")
        props = self.cluster_props(pair.target)
        for prefix in (*WORKER_CONFIG_PREFIXES, CONFIG_PROVIDERS):
            props.update(with_prefix(self._raw, prefix, strip=False, allow_equal=True))
        source = pair.source
        for key, value in (
            ("client.id", str(pair)),
            ("group.id", f"{source}-mm2"),
            ("offset.storage.topic", f"mm2-offsets.{source}.internal"),
            ("status.storage.topic", f"mm2-status.{source}.internal"),
            ("config.storage.topic", f"mm2-configs.{source}.internal"),
            ("key.converter", BYTE_ARRAY_CONVERTER),
            ("value.converter", BYTE_ARRAY_CONVERTER),
            ("header.converter", BYTE_ARRAY_CONVERTER),
        ):
            props.setdefault(key, value)
        return props

    def ignored_keys(self) -> list[str]:
        """Top-level keys that no cluster, flow, worker or connector uses (logged as a
        warning). Note that, as in Kafka, top-level ``use.defaults.from`` is among them: it is
        not a connector setting, so only ``<src>-><tgt>.use.defaults.from`` reaches the filter."""
        prefixes = (*WORKER_CONFIG_PREFIXES, CONFIG_PROVIDERS, *(a + "." for a in self._clusters))
        return sorted(
            key for key in self._raw
            if "->" not in key and not key.startswith(prefixes)
            and key not in MIRROR_MAKER_CONFIG_DEF and key not in CONNECTOR_CONFIG_NAMES
            and key not in CLIENT_CONFIG_NAMES
            and not key.startswith(SEAWAY_KEY_PREFIXES)
        )  # fmt: skip

    def __repr__(self) -> str:
        flows = [str(p) for p in self.enabled_flows()]
        return f"MirrorMakerConfig(clusters={self._clusters}, flows={flows})"
