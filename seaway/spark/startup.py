"""What makes a Seaway Spark session start in seconds on the machine that launches it.

Two costs dominated: every Python worker compiling PySpark from Spark's zip, and the
driver JVM loading and verifying some ten thousand classes from Spark's jars. Both are
paid once here and then reused: a SPARK_HOME whose workers import the installed PySpark
(:func:`spark_home_without_zip`), and a class data sharing archive of the driver JVM
(:func:`class_data_sharing`). Nothing here changes what Spark does, only how fast it
starts; either falls back to Spark's own behaviour when it cannot apply.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "RECORDING",
    "cache_dir",
    "claimed",
    "class_data_sharing",
    "driver_archive",
    "failed",
    "spark_home_without_zip",
]


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/seaway`` (default ``~/.cache/seaway``), created if needed."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    path = Path(base) / "seaway"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _digest(*parts: str) -> str:
    return f"{zlib.crc32('|'.join(parts).encode()):08x}"


def spark_home_without_zip() -> str | None:
    """A SPARK_HOME for the pip-installed PySpark whose ``python/lib`` has no ``pyspark.zip``.

    Spark puts ``$SPARK_HOME/python/lib/pyspark.zip`` first on every Python worker's path,
    and Python cannot cache bytecode inside a zip: each of the half-dozen workers a
    streaming query starts (data source lookup, planning, the source and sink runners, the
    tasks) compiled PySpark anew, ~0.7 s of CPU each. This home links everything of the
    installed package but its zips, so workers import the installed PySpark (same version,
    bytecode cached). None when Spark is not the pip-installed one (then nothing changes).
    """
    import pyspark

    package = Path(pyspark.__file__).parent
    if not (package / "jars").is_dir() or not (package / "python" / "lib").is_dir():
        return None
    try:
        cache = cache_dir()
        home = cache / f"spark-home-{pyspark.__version__}-{_digest(str(package))}"
        if not (home / "jars").exists():
            staging = Path(tempfile.mkdtemp(prefix=".spark-home-", dir=cache))
            for entry in package.iterdir():
                if entry.name != "python":
                    (staging / entry.name).symlink_to(entry)
            (staging / "python" / "lib").mkdir(parents=True)
            try:
                staging.rename(home)
            except OSError:  # another process made it first
                shutil.rmtree(staging, ignore_errors=True)
    except OSError:
        return None
    return str(home) if (home / "jars").exists() else None


def _java() -> Path | None:
    java_home = os.environ.get("JAVA_HOME")
    if java_home and (Path(java_home) / "bin" / "java").exists():
        return (Path(java_home) / "bin" / "java").resolve()
    found = shutil.which("java")
    return Path(found).resolve() if found else None


# Set in the environment of the process that records the archive (seaway.spark.prepare):
# its own session must not start another build.
RECORDING = "SEAWAY_SPARK_RECORDING_CDS"


def driver_archive() -> Path | None:
    """Where the class data sharing archive of this Java and this SPARK_HOME's jars is kept
    (it may not exist yet); None without a Java or a SPARK_HOME."""
    java, spark_home = _java(), os.environ.get("SPARK_HOME")
    if java is None or not spark_home:
        return None
    jars = Path(spark_home) / "jars"
    try:
        key = _digest(str(java), str(java.stat().st_mtime_ns), str(jars.resolve()))
        return cache_dir() / f"spark-driver-{key}-{jars.stat().st_mtime_ns}.jsa"
    except OSError:
        return None


def class_data_sharing() -> str:
    """JVM options for the driver: map the class data sharing archive of this Spark and
    this Java (Spark's classes mapped, not loaded and verified: the session starts ~2 s
    sooner).

    Without an archive yet the JVM starts as Spark starts it, and one process records the
    archive in the background (``python -m seaway.spark.prepare``, which ``make demo`` and
    ``make test`` run ahead). A JVM that records its own classes at exit instead would
    start twice as slowly and spend ~15 s of CPU writing them; the sessions started before
    the first one exited would each do so. A JVM that cannot use the archive says so on
    stderr and starts as usual.
    """
    archive = driver_archive()
    if archive is None:
        return ""
    if archive.exists():
        return f"-XX:SharedArchiveFile={archive} -Xshare:auto"
    if (
        RECORDING not in os.environ
        and not failed(archive).exists()
        and not _being_recorded(archive)
    ):
        subprocess.Popen(  # it claims the recording: of several started at once, one records
            [sys.executable, "-m", "seaway.spark.prepare", "--quiet"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
    return ""


@contextmanager
def claimed(archive: Path) -> Iterator[bool]:
    """Hold the claim on recording *archive* for the block: an exclusive lock on
    ``<archive>.lock``, which the system frees when this process ends, however it ends.
    Yields False when another process holds it."""
    fd = os.open(archive.with_name(archive.name + ".lock"), os.O_CREAT | os.O_WRONLY, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # and with it the lock


def _being_recorded(archive: Path) -> bool:
    with claimed(archive) as free:
        return not free


def failed(archive: Path) -> Path:
    """Where a failed recording of *archive* left its error: while it is there, sessions
    start no recording of their own (``python -m seaway.spark.prepare`` tries again)."""
    return archive.with_name(archive.name + ".failed")
