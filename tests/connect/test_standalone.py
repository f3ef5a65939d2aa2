"""``seaway connect-standalone worker.properties source.properties sink.properties``.

Kafka's sample files, as written (plus this test's broker, files and REST port): the
connectors come from the command line, offsets live in ``offset.storage.file.filename``.
A ``kill -9`` and a restart with the same command resume from the offsets file: nothing
is lost. A corrupt offsets file stops the worker with a clear error instead of a silent
reset.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from seaway.config import dump_properties
from tests.connect.workers import WorkerProcess, line_count, wait_for

pytestmark = pytest.mark.slow

LINES = 40_000


def _files(tmp_path: Path, bootstrap: str) -> tuple[dict[str, str], list[Path], Path, Path]:
    topic = f"connect-test-{uuid.uuid4().hex[:6]}"
    source = tmp_path / "test.txt"
    source.write_text("".join(f"record {i}\n" for i in range(LINES)), encoding="utf-8")
    sink = tmp_path / "test.sink.txt"
    worker = {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "true",
        "value.converter.schemas.enable": "true",
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
        "offset.flush.interval.ms": "1000",
        "listeners": "http://127.0.0.1:0",
        "spark.master": "local[2]",
        "spark.trigger.interval.ms": "200",
        "spark.source.plans.per.batch": "2",  # batches of 4,000 lines: the kill lands mid-file
    }
    connectors = []
    for name, config in (
        ("source", {"name": "local-file-source", "connector.class": "FileStreamSource",
                    "tasks.max": "1", "file": str(source), "topic": topic}),
        ("sink", {"name": "local-file-sink", "connector.class": "FileStreamSink",
                  "tasks.max": "1", "file": str(sink), "topics": topic}),
    ):  # fmt: skip
        path = tmp_path / f"connect-file-{name}.properties"
        path.write_text(dump_properties(config), encoding="utf-8")
        connectors.append(path)
    return worker, connectors, source, sink


def test_standalone_resumes_from_its_offsets_file(tmp_path: Path, broker: object) -> None:
    bootstrap = broker.bootstrap_servers  # type: ignore[attr-defined]
    props, connectors, source, sink = _files(tmp_path, bootstrap)
    first = WorkerProcess(props, tmp_path / "w1", distributed=False, connector_files=connectors)
    first.start()
    try:
        assert first.rest is not None
        assert first.rest.ok("GET", "/connectors") == ["local-file-sink", "local-file-source"]
        offsets = tmp_path / "connect.offsets"
        # The kill lands after the first offsets flush (every second), whatever the load.
        wait_for("some copied lines", lambda: line_count(sink) > LINES // 10 and offsets.exists())
    finally:
        first.kill()
    assert (tmp_path / "connect.offsets").exists()
    with WorkerProcess(
        props, tmp_path / "w2", distributed=False, connector_files=connectors
    ) as second:
        expected = {f"record {i}" for i in range(LINES)}
        wait_for(
            "every line in the copy",
            lambda: expected <= set(sink.read_text(encoding="utf-8").splitlines()),
            timeout=180,
        )
        assert second.rest is not None
        offsets = second.rest.ok("GET", "/connectors/local-file-source/offsets")
        wait_for(
            "the final offset",
            lambda: (
                second.rest.ok("GET", "/connectors/local-file-source/offsets")["offsets"]
                == [
                    {
                        "partition": {"filename": str(source)},
                        "offset": {"position": source.stat().st_size},
                    }
                ]
            ),
            timeout=30,
        )
        assert offsets["offsets"][0]["partition"] == {"filename": str(source)}


def test_corrupt_offsets_file_is_reported_not_reset(tmp_path: Path, broker: object) -> None:
    bootstrap = broker.bootstrap_servers  # type: ignore[attr-defined]
    props, connectors, _, _ = _files(tmp_path, bootstrap)
    offsets = Path(props["offset.storage.file.filename"])
    offsets.write_text('{"format": "seaway-connect-offsets", "version": 1, "offs', "utf-8")
    worker_file = tmp_path / "worker.properties"
    worker_file.write_text(dump_properties(props), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "seaway", "connect-standalone", str(worker_file),
         *map(str, connectors)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0
    assert str(offsets) in done.stderr
    assert "offsets" in done.stderr.lower()
    # The file is left as it was, for the operator to inspect.
    assert offsets.read_text("utf-8").endswith('"offs')
