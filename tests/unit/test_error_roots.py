"""Every exception class Seaway defines has ``SeawayError`` at its root (and one root per layer
for the layers users call: Connect, the Kafka client, Spark's Kafka source and sink, the
mirror), so ``except SeawayError`` catches what Seaway raises on purpose."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import seaway
from seaway.connect.api.errors import ConnectError
from seaway.errors import SeawayError
from seaway.kafka.errors import KafkaClientError
from seaway.mirror.errors import MirrorError
from seaway.spark.errors import SparkKafkaError

LAYER_ROOTS = {
    "seaway.connect.": ConnectError,
    "seaway.connectors.": ConnectError,
    "seaway.kafka.": KafkaClientError,
    "seaway.spark.": SparkKafkaError,
    "seaway.mirror.": MirrorError,
}


def _seaway_exceptions() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module in pkgutil.walk_packages(seaway.__path__, "seaway."):
        if module.name.endswith("__main__"):
            continue
        imported = importlib.import_module(module.name)
        for name, value in vars(imported).items():
            if (inspect.isclass(value) and issubclass(value, BaseException)
                    and value.__module__ == module.name and not name.startswith("_")):  # fmt: skip
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def test_every_public_exception_has_seaways_root_and_its_layers() -> None:
    exceptions = _seaway_exceptions()
    assert len(exceptions) > 40
    assert [e.__qualname__ for e in exceptions if not issubclass(e, SeawayError)] == []
    for error in exceptions:
        for prefix, root in LAYER_ROOTS.items():
            if f"{error.__module__}.".startswith(prefix):
                assert issubclass(error, root), f"{error.__module__}.{error.__name__}: {root}"
