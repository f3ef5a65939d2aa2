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
import time
import zlib
from pathlib import Path

__all__ = [
    "RECORDING",
    "cache_dir",
    "claim",
    "class_data_sharing",
    "driver_archive",
    "failed",
    "release",
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
    if RECORDING not in os.environ and not failed(archive).exists() and _holder(archive) is None:
        import subprocess
        import sys

        subprocess.Popen(  # it claims the recording: of several started at once, one records
            [sys.executable, "-m", "seaway.spark.prepare", "--quiet"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
    return ""


def _claim_file(archive: Path) -> Path:
    return archive.with_name(archive.name + ".claim")


def _holder(archive: Path) -> str | None:
    """The pid of the live process recording *archive*, if one is."""
    lock = _claim_file(archive)
    try:
        holder, written = lock.read_text().strip(), lock.stat().st_mtime
    except OSError:
        return None
    if not holder:  # its holder is writing its pid, unless it died doing so long ago
        return "?" if time.time() - written < 10 else None
    return holder if _alive(holder) else None


def claim(archive: Path) -> bool:
    """Claim the recording of *archive* for this process: False while another live
    process holds the claim (``<archive>.claim``: its pid); a dead holder's claim is taken."""
    lock = _claim_file(archive)
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            if _holder(archive) is not None:
                return False
            lock.unlink(missing_ok=True)  # its holder died
            continue
        except OSError:
            return False
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        return True
    return False


def failed(archive: Path) -> Path:
    """Where a failed recording of *archive* left its error: while it is there, sessions
    start no recording of their own (``python -m seaway.spark.prepare`` tries again)."""
    return archive.with_name(archive.name + ".failed")


def release(archive: Path) -> None:
    """Give up this process's claim on recording *archive*."""
    _claim_file(archive).unlink(missing_ok=True)


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
