"""The one class loader: entry-point names and aliases, Python paths, kinds, unknown names."""

from __future__ import annotations

import doctest
import logging
import tomllib
from pathlib import Path

import pytest

import seaway.config.plugins
from seaway.config.plugins import (
    CONFIG_PROVIDERS,
    CONNECTORS,
    CONVERTERS,
    HEADER_CONVERTERS,
    PREDICATES,
    TRANSFORMS,
    aliases,
    class_name,
    load_class,
    plugin_classes,
    plugin_names,
)
from seaway.config.providers import ConfigProvider, FileConfigProvider
from seaway.connect.api import Converter, HeaderConverter, SinkConnector, SourceConnector
from seaway.connect.converters import JsonConverter, SimpleHeaderConverter
from seaway.connect.transforms import InsertFieldValue
from seaway.connectors.file import FileStreamSourceConnector

PYPROJECT = Path(__file__).parents[3] / "pyproject.toml"
GROUPS = (CONNECTORS, CONVERTERS, HEADER_CONVERTERS, TRANSFORMS, PREDICATES, CONFIG_PROVIDERS)


def test_the_installed_entry_points_are_pyprojects() -> None:
    """Fails after editing pyproject.toml until ``pip install -e .`` regenerates them."""
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["entry-points"]
    for group in GROUPS:
        assert set(declared[group]) <= set(plugin_names(group)), group
        assert set(plugin_classes(group)) >= set(declared[group]), group


@pytest.mark.parametrize(
    ("name", "group", "cls"),
    [
        ("org.apache.kafka.connect.file.FileStreamSourceConnector", CONNECTORS,
         FileStreamSourceConnector),
        ("FileStreamSourceConnector", CONNECTORS, FileStreamSourceConnector),
        (" FileStreamSource ", CONNECTORS, FileStreamSourceConnector),
        ("org.apache.kafka.connect.json.JsonConverter", CONVERTERS, JsonConverter),
        ("Json", CONVERTERS, JsonConverter),
        ("Json", HEADER_CONVERTERS, JsonConverter),
        ("SimpleHeader", HEADER_CONVERTERS, SimpleHeaderConverter),
        ("InsertField$Value", TRANSFORMS, InsertFieldValue),
        ("FileConfigProvider", CONFIG_PROVIDERS, FileConfigProvider),
        ("File", CONFIG_PROVIDERS, FileConfigProvider),
    ],
)  # fmt: skip
def test_entry_point_names_and_aliases(name: str, group: str, cls: type) -> None:
    assert load_class(name, group) is cls


@pytest.mark.parametrize(
    "name",
    [
        "seaway.connect.transforms.insert_field.InsertFieldValue",
        "seaway.connect.transforms.insert_field:InsertFieldValue",
        "seaway.connect.transforms.insert_field:InsertField.Value",
    ],
)
def test_python_paths(name: str) -> None:
    assert load_class(name) is InsertFieldValue
    assert load_class(name, CONNECTORS) is InsertFieldValue  # any group falls back to them


def test_the_kind_is_checked() -> None:
    assert load_class("Json", CONVERTERS, HeaderConverter) is JsonConverter
    assert load_class("FileStreamSource", CONNECTORS, SourceConnector) is FileStreamSourceConnector
    with pytest.raises(LookupError, match="is not a SinkConnector"):
        load_class("FileStreamSource", CONNECTORS, SinkConnector)
    with pytest.raises(LookupError, match="is not a ConfigProvider"):
        load_class("seaway.connect.converters.JsonConverter", CONFIG_PROVIDERS, ConfigProvider)
    with pytest.raises(LookupError):
        load_class("SimpleHeader", CONVERTERS, Converter)  # a header converter only


@pytest.mark.parametrize(
    ("name", "group"),
    [
        ("Nope", CONNECTORS),
        ("", CONVERTERS),
        ("FileStreamSource", CONVERTERS),  # an alias of another kind
        ("no.such.module.Class", None),
        ("seaway.config.plugins.NoSuchClass", None),
        ("seaway.config.plugins.CONNECTORS", None),  # not a class
        ("json:nope", None),
    ],
)
def test_unknown_names(name: str, group: str | None) -> None:
    with pytest.raises(LookupError):
        load_class(name, group)


def test_names_aliases_and_class_names() -> None:
    assert plugin_names(PREDICATES) == [
        "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
        "org.apache.kafka.connect.transforms.predicates.RecordIsTombstone",
        "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
    ]
    assert {"Json", "JsonConverter", "org.apache.kafka.connect.json.JsonConverter"} <= set(
        aliases(CONVERTERS)
    )
    assert "SimpleHeader" not in aliases(CONVERTERS)
    kafka = "org.apache.kafka.connect.transforms.InsertField$Value"
    assert class_name(InsertFieldValue, PREDICATES, TRANSFORMS) == kafka
    assert class_name(InsertFieldValue, PREDICATES) == (
        "seaway.connect.transforms.insert_field.InsertFieldValue"
    )


def _distribution(root: Path, entry_points: str, **modules: str) -> None:
    """An installed distribution in *root* with *entry_points* and top-level *modules*."""
    info = root / "acme_plugins-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-plugins\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)
    for module, source in modules.items():
        (root / f"{module}.py").write_text(source)


def test_other_packages_plugins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _distribution(
        tmp_path,
        "[seaway.converters]\n"
        "com.acme.UpperConverter = acme_converters:UpperConverter\n"
        "com.acme.BrokenConverter = acme_broken:BrokenConverter\n",
        acme_converters="class UpperConverter:\n    pass\n",
        acme_broken="import acme_missing_dependency\n",
    )
    assert "com.acme.UpperConverter" not in plugin_names(CONVERTERS)
    monkeypatch.syspath_prepend(str(tmp_path))  # as plugin.path or an install would
    for name in ("com.acme.UpperConverter", "UpperConverter", "Upper"):
        assert load_class(name, CONVERTERS).__name__ == "UpperConverter"
    assert "com.acme.BrokenConverter" in plugin_names(CONVERTERS)
    with pytest.raises(ModuleNotFoundError):
        load_class("Broken", CONVERTERS)  # a plugin that cannot be imported says why
    with caplog.at_level(logging.WARNING):
        classes = plugin_classes(CONVERTERS)
    assert "com.acme.UpperConverter" in classes and "com.acme.BrokenConverter" not in classes
    assert "Could not load plugin com.acme.BrokenConverter" in caplog.text


def test_doctests() -> None:
    result = doctest.testmod(seaway.config.plugins)
    assert result.attempted and not result.failed
