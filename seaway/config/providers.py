"""Config providers (KIP-297, KIP-421): ``${provider:path:key}`` references in configs,
resolved when a connector or task starts and stored unresolved.

A worker names its providers in ``config.providers`` and configures each with
``config.providers.<name>.class`` (Kafka's class names below, their aliases, or the Python
path of another :class:`ConfigProvider`) and ``config.providers.<name>.param.<param>``:

* ``org.apache.kafka.common.config.provider.FileConfigProvider``: ``${file:<path>:<key>}``
  is *key* of the Java properties file at *path*;
* ``org.apache.kafka.common.config.provider.DirectoryConfigProvider``:
  ``${directory:<dir>:<file>}`` is the content of *file* in *dir*;
* ``org.apache.kafka.common.config.provider.EnvVarConfigProvider``: ``${env:<NAME>}`` is the
  environment variable (``allowlist.pattern`` limits which).

File and directory providers take ``allowed.paths`` (KIP-993): a comma list of folders
outside which nothing is read. A reference whose provider is not configured, or whose key
the provider lacks, stays as written (as in Kafka) and is logged by name, never by value.

>>> import os
>>> os.environ["SEAWAY_DOC_SECRET"] = "s3cret"
>>> transformer = ConfigTransformer.from_worker({"config.providers": "env",
...     "config.providers.env.class": ENV_PROVIDER})
>>> transformer.transform({"password": "${env:SEAWAY_DOC_SECRET}", "user": "me"})
{'password': 's3cret', 'user': 'me'}
"""

from __future__ import annotations

import logging
import os
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from seaway.config.errors import ConfigException
from seaway.config.plugins import CONFIG_PROVIDERS, load_class, plugin_names
from seaway.config.properties import parse_properties

__all__ = [
    "DIRECTORY_PROVIDER",
    "ENV_PROVIDER",
    "FILE_PROVIDER",
    "ConfigProvider",
    "ConfigTransformer",
    "reverse_transform",
]

log = logging.getLogger(__name__)

FILE_PROVIDER: Final = "org.apache.kafka.common.config.provider.FileConfigProvider"
DIRECTORY_PROVIDER: Final = "org.apache.kafka.common.config.provider.DirectoryConfigProvider"
ENV_PROVIDER: Final = "org.apache.kafka.common.config.provider.EnvVarConfigProvider"

#: Kafka's ConfigTransformer pattern: ``${provider:[path:]key}``.
VARIABLE: Final = re.compile(r"\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}")


class ConfigProvider(ABC):
    """Values for ``${<name>:<path>:<key>}`` references (Kafka's ``ConfigProvider``)."""

    @abstractmethod
    def configure(self, params: Mapping[str, str]) -> None:
        """Take the ``config.providers.<name>.param.*`` settings."""

    @abstractmethod
    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        """The values of *keys* at *path* that exist."""


class _PathProvider(ConfigProvider):
    """A provider reading files, within ``allowed.paths`` when that is set."""

    def __init__(self) -> None:
        self.allowed: list[Path] = []

    def configure(self, params: Mapping[str, str]) -> None:
        paths = [p.strip() for p in params.get("allowed.paths", "").split(",") if p.strip()]
        for path in paths:
            if not Path(path).is_absolute():
                raise ConfigException(f"allowed.paths must be absolute paths, {path} is not")
        self.allowed = [Path(p).resolve() for p in paths]

    def _checked(self, path: str) -> Path | None:
        resolved = Path(path).resolve()
        if self.allowed and not any(resolved.is_relative_to(a) for a in self.allowed):
            log.warning("The path %s is not in allowed.paths: its values are not read", path)
            return None
        return resolved


class FileConfigProvider(_PathProvider):
    """Keys of a Java properties file."""

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        file = self._checked(path)
        if file is None or not path:
            return {}
        try:
            values = parse_properties(file.read_text(encoding="utf-8"))
        except OSError as error:
            raise ConfigException(f"Could not read properties from file {path}: {error}") from None
        return {k: values[k] for k in keys if k in values}


class DirectoryConfigProvider(_PathProvider):
    """Files of a folder, one value per file (as Kubernetes mounts secrets)."""

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        folder = self._checked(path)
        if folder is None or not folder.is_dir():
            return {}
        out = {}
        for key in keys:
            file = folder / key
            if file.is_file() and file.parent == folder:
                out[key] = file.read_text(encoding="utf-8")
        return out


class EnvVarConfigProvider(ConfigProvider):
    """Environment variables (``allowlist.pattern``: the names that may be read)."""

    def __init__(self) -> None:
        self.allowlist = re.compile(".*")

    def configure(self, params: Mapping[str, str]) -> None:
        self.allowlist = re.compile(params.get("allowlist.pattern", ".*"))

    def get(self, path: str, keys: set[str]) -> dict[str, str]:
        if path:
            return {}  # env variables have no path: ${env:NAME}
        return {k: os.environ[k] for k in keys if k in os.environ and self.allowlist.fullmatch(k)}


class ConfigTransformer:
    """Resolves ``${provider:path:key}`` references with a worker's providers."""

    def __init__(self, providers: Mapping[str, ConfigProvider]) -> None:
        self.providers = dict(providers)

    @classmethod
    def from_worker(cls, worker_config: Mapping[str, object]) -> ConfigTransformer:
        """The providers a worker's ``config.providers*`` settings name."""
        names = [n.strip() for n in str(worker_config.get("config.providers") or "").split(",")]
        providers: dict[str, ConfigProvider] = {}
        for name in filter(None, names):
            class_key = f"config.providers.{name}.class"
            class_name = str(worker_config.get(class_key) or "")
            try:
                provider_class = load_class(class_name, CONFIG_PROVIDERS, ConfigProvider)
            except (LookupError, ImportError):
                raise ConfigException(
                    f"Invalid value {class_name!r} for configuration {class_key}: use one of "
                    f"{', '.join(plugin_names(CONFIG_PROVIDERS))}"
                ) from None
            prefix = f"config.providers.{name}.param."
            params = {k[len(prefix) :]: str(v) for k, v in worker_config.items()
                      if k.startswith(prefix)}  # fmt: skip
            provider = provider_class()
            provider.configure(params)
            providers[name] = provider
        return cls(providers)

    def transform(self, config: Mapping[str, str]) -> dict[str, str]:
        """*config* with every reference a provider can resolve replaced by its value."""
        wanted: dict[tuple[str, str], set[str]] = {}
        for value in config.values():
            for match in VARIABLE.finditer(value or ""):
                provider, path, key = match.group(1), match.group(3) or "", match.group(4)
                wanted.setdefault((provider, path), set()).add(key)
        if not wanted:
            return dict(config)
        found: dict[tuple[str, str, str], str] = {}
        for (provider, path), keys in wanted.items():
            if provider not in self.providers:
                continue
            for key, value in self.providers[provider].get(path, keys).items():
                found[(provider, path, key)] = value

        def replace(match: re.Match[str]) -> str:
            where = (match.group(1), match.group(3) or "", match.group(4))
            if where not in found:
                log.warning("Config reference %s could not be resolved: no provider %r, or "
                            "no such key", match.group(0), where[0])  # fmt: skip
                return match.group(0)
            return found[where]

        return {k: VARIABLE.sub(replace, v) if v else v for k, v in config.items()}


def reverse_transform(raw: Mapping[str, str], resolved: Mapping[str, str]) -> dict[str, str]:
    """*resolved* (e.g. task configs a connector made from its resolved config) with the
    values that came from a reference in *raw* put back as the reference, so no secret is
    stored (Kafka's ``AbstractHerder.reverseTransform``)."""
    out = dict(resolved)
    for key, value in raw.items():
        if key in out and value and VARIABLE.search(value):
            out[key] = value
    return out
