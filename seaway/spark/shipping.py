"""Ship Seaway and its libraries to a cluster's Python workers.

On a cluster (``spark://``, YARN, Kubernetes) the Python workers that run Seaway's tasks,
and the planners Spark starts for its data sources, run on hosts that may have no Seaway
installed. Seaway packs itself and its runtime dependencies (kio, pyarrow, confluent-kafka,
crc32c, cramjam ... as installed here, compiled parts included; not PySpark, which every
Spark node has) into one archive, ``spark.archives`` unpacks it into each executor's
working directory, and ``PYTHONPATH`` points there. The workers then need only a Python of
the same version (``python3.<minor>``, or what ``spark.pyspark.python`` names).

A context the user's own code starts after ``import seaway.spark`` (``SparkSession.builder
...getOrCreate()``) is given the same settings (:func:`install_context_hook`); a cluster
session without them whose executors cannot import Seaway fails its first
``format("kafka")`` on the driver, naming the fix (:func:`check_shipped`).

Turn it off with ``spark.seaway.shipLibraries=false`` when the workers already have
Seaway (a Docker image, a packed environment of your own in ``spark.archives``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata as metadata
import importlib.util
import logging
import os
import re
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pyspark import SparkConf, SparkContext
from pyspark.sql import SparkSession

from seaway.spark.errors import SparkKafkaError
from seaway.spark.startup import cache_dir

log = logging.getLogger(__name__)

__all__ = [
    "ALIAS",
    "SHIP_OPTION",
    "NotShipped",
    "check_shipped",
    "install_context_hook",
    "is_local_master",
    "prepare_context",
    "shipping_settings",
]

SHIP_OPTION = "spark.seaway.shipLibraries"
ALIAS = "seaway-libs"
"""The directory the archive unpacks to in an executor's working directory."""

# Spark nodes bring their own PySpark and Py4J; a second copy would shadow theirs.
_NOT_SHIPPED = {"pyspark", "py4j"}
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
_EXTRA = re.compile(r"\bextra\s*==")


def is_local_master(master: str | None) -> bool:
    """Whether tasks run on the driver's own host, with its Python (``local``,
    ``local[n]``, ``local-cluster[...]``): nothing to ship, no other host's files."""
    return not master or master.startswith("local")


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _runtime_distributions() -> list[metadata.Distribution]:
    """Seaway's distribution and its runtime requirements, transitively (no extras)."""
    seen: dict[str, metadata.Distribution] = {}
    pending = ["seaway"]
    while pending:
        name = _normalize(pending.pop())
        if name in seen or name in _NOT_SHIPPED:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a requirement for another platform (uvloop on Windows ...)
        seen[name] = dist
        for requirement in dist.requires or ():
            if _EXTRA.search(requirement):  # an optional extra's requirement
                continue
            match = _NAME.match(requirement)
            if match:
                pending.append(match.group(1))
    return list(seen.values())


def _seaway_files() -> Iterator[tuple[Path, str]]:
    """Seaway's own package, from wherever it is imported (editable installs too)."""
    import seaway

    package = Path(seaway.__file__).parent
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".c":
            yield path, str(Path("seaway") / path.relative_to(package))


def _library_files() -> Iterator[tuple[Path, str]]:
    """``(file, path in the archive)`` of everything shipped."""
    yield from _seaway_files()
    for dist in _runtime_distributions():
        if _normalize(dist.metadata["Name"]) == "seaway":
            continue
        for file in dist.files or ():
            name = str(file)
            if name.startswith("..") or "__pycache__" in name or name.endswith(".pyc"):
                continue  # scripts outside site-packages, bytecode (rebuilt there)
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                yield path, name


def _seaway_metadata() -> dict[str, str]:
    """Seaway's metadata as a dist-info for the workers (``archive name: text``): its entry
    points name the plugins that converters and transforms are built from there."""
    try:
        dist = metadata.distribution("seaway")
    except metadata.PackageNotFoundError:
        return {}
    folder = f"seaway-{dist.version}.dist-info"
    return {
        f"{folder}/METADATA": f"Metadata-Version: 2.1\nName: seaway\nVersion: {dist.version}\n",
        f"{folder}/entry_points.txt": dist.read_text("entry_points.txt") or "",
    }


def library_archive() -> tuple[Path, Path, int]:
    """The archive of Seaway's libraries and the same unpacked (for the driver host's own
    Python workers), built once per set of files; and how many files it holds."""
    files = list(_library_files())
    generated = _seaway_metadata()
    digest = hashlib.sha256()
    digest.update(sys.version.encode())
    digest.update(repr(sorted(generated.items())).encode())
    for name in sorted(_NOT_SHIPPED):  # linked for the driver host (below)
        digest.update(str(_installed(name)).encode())
    for path, name in files:
        stat = path.stat()
        digest.update(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    key = digest.hexdigest()[:16]
    root = cache_dir() / "executor-libs"
    root.mkdir(exist_ok=True)
    archive, unpacked = root / f"{ALIAS}-{key}.zip", root / f"{ALIAS}-{key}"
    if not archive.exists() or not unpacked.exists():
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=root))
        try:
            with zipfile.ZipFile(
                staging / "libs.zip", "w", zipfile.ZIP_DEFLATED, compresslevel=1
            ) as zf:
                for path, name in files:
                    zf.write(path, name)
                for name, text in generated.items():
                    zf.writestr(name, text)
            with zipfile.ZipFile(staging / "libs.zip") as zf:
                zf.extractall(staging / "libs")
            _keep_modes(files, staging / "libs")
            _link_spark_packages(staging / "libs")
            if not unpacked.exists():
                (staging / "libs").rename(unpacked)
            if not archive.exists():
                (staging / "libs.zip").rename(archive)
        except OSError:
            if not (archive.exists() and unpacked.exists()):
                raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        _prune(root, keep=key)
    return archive, unpacked, len(files)


def _prune(root: Path, keep: str, older_than_s: float = 3600) -> None:
    """Remove earlier builds (a new one is made whenever Seaway or a library changes),
    leaving any a driver started in the last hour may still use."""
    now = time.time()
    for entry in root.glob(f"{ALIAS}-*"):
        if keep in entry.name or now - entry.stat().st_mtime < older_than_s:
            continue
        if entry.is_dir():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)


def _link_spark_packages(root: Path) -> None:
    """The driver host's workers also need PySpark and Py4J: link the installed ones
    (Seaway's SPARK_HOME has no ``pyspark.zip``, see :mod:`seaway.spark.startup`)."""
    for name in _NOT_SHIPPED:
        (root / name).symlink_to(_installed(name), target_is_directory=True)


def _installed(package: str) -> Path:
    """The directory of an installed (regular, not namespace) package."""
    file = __import__(package).__file__
    assert file is not None  # only namespace packages have none
    return Path(file).parent


def _keep_modes(files: list[tuple[Path, str]], root: Path) -> None:
    for path, name in files:
        (root / name).chmod(path.stat().st_mode & 0o777)


def shipping_settings(
    master: str | None, config: Mapping[str, str]
) -> tuple[dict[str, str], str | None]:
    """Spark settings that ship Seaway to a non-local master's workers, and the directory
    the driver host's Python workers should find it in (``PYTHONPATH``); nothing for
    local masters or when ``spark.seaway.shipLibraries=false``."""
    enabled = str(config.get(SHIP_OPTION, "true")).strip().lower() != "false"
    if is_local_master(master) or not enabled:
        return {}, None
    archive, unpacked, count = library_archive()
    archives = ",".join(filter(None, [config.get("spark.archives"), f"{archive}#{ALIAS}"]))
    pythonpath = os.pathsep.join(filter(None, [ALIAS, config.get("spark.executorEnv.PYTHONPATH")]))
    python = (
        config.get("spark.pyspark.python")
        or os.environ.get("PYSPARK_PYTHON")
        or (f"python{sys.version_info.major}.{sys.version_info.minor}")
    )
    size = archive.stat().st_size / 1e6
    log.info(
        "Shipping Seaway to the Python workers of %s: %s (%d files, %.0f MB: Seaway and its "
        "libraries) unpacked as ./%s on PYTHONPATH; workers run %s. Set %s=false if they "
        "have Seaway already.",
        master, archive, count, size, ALIAS, python, SHIP_OPTION,
    )  # fmt: skip
    settings = {
        "spark.archives": archives,
        "spark.executorEnv.PYTHONPATH": pythonpath,
        "spark.pyspark.python": python,
    }
    return settings, str(unpacked)


class NotShipped(SparkKafkaError, RuntimeError):
    """A cluster session whose Python workers were not given Seaway and its libraries."""


_PYTHON_VARIABLES = ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")
_checked: set[int] = set()


def _ships(settings: Mapping[str, str]) -> bool:
    """Whether *settings* already ship Seaway (or say the workers have it)."""
    archives = settings.get("spark.archives", "")
    disabled = str(settings.get(SHIP_OPTION, "true")).strip().lower() == "false"
    return disabled or any(a.endswith(f"#{ALIAS}") for a in archives.split(","))


def prepare_context(conf: SparkConf) -> None:
    """Give a context the user's own code starts what :func:`seaway.spark.spark_session`
    gives its own: on a cluster master the shipped libraries; in local mode, unless the
    deployment names a Python, this interpreter (the one with Seaway) for the workers,
    where Spark would run ``python3`` from PATH."""
    settings = dict(conf.getAll())
    master = settings.get("spark.master")
    if master is None:
        return  # decided elsewhere (spark-submit, spark-defaults.conf): check_shipped checks
    launching = SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ
    if is_local_master(master):
        named = any(os.environ.get(v) for v in _PYTHON_VARIABLES)
        if not named and "spark.pyspark.python" not in settings:
            os.environ["PYSPARK_PYTHON"] = sys.executable
            conf.set("spark.pyspark.python", sys.executable)
        return
    if _ships(settings):
        return  # spark_session() (or the user) shipped it already
    shipped, driver_libraries = shipping_settings(master, settings)
    for key, value in shipped.items():
        conf.set(key, value)
    if driver_libraries is not None and launching:  # as spark_session() does
        paths = [driver_libraries, os.environ.get("PYTHONPATH")]
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, paths))
        os.environ.setdefault("PYSPARK_PYTHON", shipped["spark.pyspark.python"])


def install_context_hook() -> None:
    """Run :func:`prepare_context` before every SparkContext starts (idempotent).

    Why a hook on ``SparkContext._ensure_initialized``: ``spark.archives`` must be set
    before the JVM SparkContext starts, and a driver's workers' ``PYTHONPATH`` before its
    JVM launches; this is the one call every way of starting a context goes through
    (``SparkSession.builder.getOrCreate()``, ``SparkContext(conf=...)``), with the conf
    and before either; wrapping ``SparkSession.Builder.getOrCreate`` would miss a bare
    SparkContext. Only a master named in the conf is acted on: one ``spark-submit`` or
    ``spark-defaults.conf`` decides is unknown here. A session this cannot reach (started
    before ``import seaway.spark``, a master from ``spark-submit`` or passed as
    ``SparkContext``'s argument) is caught by :func:`check_shipped`.
    """
    original = SparkContext.__dict__["_ensure_initialized"].__func__
    if getattr(original, "__seaway_hook__", False):
        return

    @functools.wraps(original)
    def _ensure_initialized(
        cls: type[SparkContext],
        instance: SparkContext | None = None,
        gateway: Any = None,
        conf: SparkConf | None = None,
    ) -> None:
        if instance is not None and conf is not None and cls._active_spark_context is None:
            prepare_context(conf)
        original(cls, instance, gateway, conf)

    _ensure_initialized.__seaway_hook__ = True  # type: ignore[attr-defined]
    SparkContext._ensure_initialized = classmethod(_ensure_initialized)  # type: ignore[method-assign,assignment]


def _workers_have_seaway(sc: SparkContext) -> bool:
    """Whether an executor's Python worker can import Seaway and pyarrow (a one-task job of
    standard-library functions only, so that it runs where Seaway is missing). True when
    the probe itself fails: the job's own error then says more than a guess would."""
    try:
        found = sc.parallelize(["seaway", "pyarrow"], 1).map(importlib.util.find_spec)
        return all(found.map(bool).collect())
    except Exception:  # Py4J and PySpark raise their own error types
        log.debug("could not probe the executors for Seaway", exc_info=True)
        return True


def check_shipped(spark: SparkSession) -> None:
    """Raise :class:`NotShipped` on the driver for a cluster session whose executors cannot
    import Seaway, naming the fix, instead of ``ModuleNotFoundError`` in every executor.

    A session Seaway shipped (or told not to) is not probed; any other non-local one (started
    before ``import seaway.spark``, or by ``spark-submit``) is, once: its workers may have
    Seaway from an image or an environment of the user's own."""
    sc = spark.sparkContext
    key = id(sc._jsc)
    if key in _checked:
        return
    settings = dict(sc.getConf().getAll())
    local_or_shipped = is_local_master(sc.master) or _ships(settings)
    if not local_or_shipped and not _workers_have_seaway(sc):
        shipped, _ = shipping_settings(sc.master, settings)
        flags = " ".join(f"--conf {k}={v}" for k, v in shipped.items())
        raise NotShipped(
            f"this session ({sc.master}) started without Seaway for its executors' Python "
            f"workers, whose Kafka tasks would fail with ModuleNotFoundError (seaway, pyarrow)"
            f": start it with seaway.spark.spark_session({sc.master!r}), or import "
            f"seaway.spark before the session starts, or start it with {flags} (or install "
            f"Seaway on the workers; {SHIP_OPTION}=false skips this check)"
        )
    _checked.add(key)
