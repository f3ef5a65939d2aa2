"""Ship Seaway and its libraries to a cluster's Python workers.

On a cluster (``spark://``, YARN, Kubernetes) the Python workers that run Seaway's tasks,
and the planners Spark starts for its data sources, run on hosts that may have no Seaway
installed. Seaway packs itself and its runtime dependencies (kio, pyarrow, confluent-kafka,
crc32c, cramjam ... as installed here, compiled parts included; not PySpark, which every
Spark node has) into one archive, ``spark.archives`` unpacks it into each executor's
working directory, and ``PYTHONPATH`` points there. The workers then need only a Python of
the same version (``python3.<minor>``, or what ``spark.pyspark.python`` names).

Turn it off with ``spark.seaway.shipLibraries=false`` when the workers already have
Seaway (a Docker image, a packed environment of your own in ``spark.archives``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata
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

from seaway.spark.startup import cache_dir

log = logging.getLogger(__name__)

__all__ = ["ALIAS", "SHIP_OPTION", "is_local_master", "shipping_settings"]

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
