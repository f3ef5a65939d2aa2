"""Seaway's named API keys are Kafka's: each is the key of kio's request schemas of the same
name, and every API kio knows has one."""

from __future__ import annotations

import importlib
import pkgutil

import kio.schema

from seaway.protocol.api_keys import ApiKey


def _kio_api_keys() -> dict[str, int]:
    """The API key of each kio schema package (from its first version's request class)."""
    found: dict[str, int] = {}
    for package in pkgutil.iter_modules(kio.schema.__path__):
        if not package.ispkg:
            continue
        versions = importlib.import_module(f"kio.schema.{package.name}")
        for version in sorted(pkgutil.iter_modules(versions.__path__), key=lambda v: v.name):
            try:
                module = importlib.import_module(
                    f"kio.schema.{package.name}.{version.name}.request"
                )
            except ImportError:
                continue
            keys = {int(c.__api_key__) for c in vars(module).values() if hasattr(c, "__api_key__")}
            if keys:
                found[package.name.upper()] = keys.pop()
                break
    return found


def test_every_api_key_is_kios() -> None:
    assert {key.name: int(key) for key in ApiKey} == _kio_api_keys()
    assert ApiKey.PRODUCE == 0 and ApiKey.API_VERSIONS == 18 and ApiKey.SASL_AUTHENTICATE == 36
