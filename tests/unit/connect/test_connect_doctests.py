"""The examples in seaway.connect's docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import seaway.connect.api
import seaway.connect.converters

PACKAGES = (seaway.connect.api, seaway.connect.converters)
MODULES = sorted(
    [package.__name__ for package in PACKAGES]
    + [
        info.name
        for package in PACKAGES
        for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + ".")
    ]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
