"""`make demo` end to end: `seaway demo` as a user runs it, in its own process.

Every part of Seaway the README promises takes part (the broker, a consumer group, Spark's
exactly-once copy, the Connect file session, A -> B mirroring with a failover); a demo that
breaks fails here, not on a new user's machine.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def test_seaway_demo_runs_end_to_end(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "seaway", "demo", "--data-dir", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    for line in (
        "a read_committed consumer sees 5000 records in demo-orders-copy (expected 5000)",
        "copy-of-server-properties identical to server.properties: True",
        "0 lost, 0 duplicated, checksums match: True",
        "replication lag A->B: 0 records",
        "broker stopped cleanly",
    ):
        assert line in output, f"{line!r} missing from the demo's output:\n{output[-4000:]}"
