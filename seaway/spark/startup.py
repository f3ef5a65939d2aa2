"""What makes a Seaway Spark session start in seconds on the machine that launches it.

Two costs dominated: every Python worker compiling PySpark from Spark's zip, and the
driver JVM loading and verifying some ten thousand classes from Spark's jars. Both are
paid once here and then reused: a SPARK_HOME whose workers import the installed PySpark
(:func:`spark_home_without_zip`), and a class data sharing archive of the driver JVM
(:func:`class_data_sharing`). Nothing here changes what Spark does, only how fast it
starts; either falls back to Spark's own behaviour when it cannot apply.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zlib
from pathlib import Path

__all__ = ["cache_dir", "class_data_sharing", "spark_home_without_zip"]


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


def class_data_sharing() -> str:
    """JVM options for the driver: use the class data sharing archive of this Spark and
    this Java (Spark's classes mapped, not loaded and verified: the session starts ~2 s
    sooner), or write it when this JVM exits if there is none yet.

    The archive is keyed by the JVM binary and SPARK_HOME's jars; a JVM that cannot use
    it says so on stderr and starts as usual.
    """
    java, spark_home = _java(), os.environ.get("SPARK_HOME")
    if java is None or not spark_home:
        return ""
    jars = Path(spark_home) / "jars"
    try:
        key = _digest(str(java), str(java.stat().st_mtime_ns), str(jars.resolve()))
        archive = cache_dir() / f"spark-driver-{key}-{jars.stat().st_mtime_ns}.jsa"
    except OSError:
        return ""
    if archive.exists():
        return f"-XX:SharedArchiveFile={archive} -Xshare:auto"
    partial = [p for p in archive.parent.glob(archive.name + ".*") if not _alive(p.suffix[1:])]
    for done in partial:  # written by a JVM that has exited
        try:
            done.rename(archive)
            return f"-XX:SharedArchiveFile={archive} -Xshare:auto"
        except OSError:
            continue
    return f"-XX:ArchiveClassesAtExit={archive}.{os.getpid()}"


def _alive(pid: str) -> bool:
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
