"""The examples in the state stores' docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import seaway.connect.runtime.storage as storage

MODULES = sorted(
    [storage.__name__]
    + [info.name for info in pkgutil.walk_packages(storage.__path__, storage.__name__ + ".")]
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
