"""``seaway.cli.progress``: a bar on standard error when it is a terminal, nothing otherwise."""

from __future__ import annotations

import sys

from tests.terminal import on_terminal, piped

# Work of 1,000 records in four steps, a log line and a printed result, as a command does.
_PROGRAM = """
import logging, sys, time
from seaway.cli.progress import progress

logging.basicConfig(stream=sys.stderr, level="INFO", format="%(levelname)s %(message)s")
with progress("copy", "records", rate=True) as bar:
    for done in range(0, 1001, 250):
        bar(done, 1000, f"batch {done // 250}")
        time.sleep(0.1)  # the bar is redrawn 10 times a second
    logging.getLogger("work").info("half-way note")
    print("a printed line")
with progress("tools", "groups") as bar:
    bar(0, 2, "first")
    bar(2, 2)
print("result")
"""


def test_a_terminal_shows_the_bar_count_rate_and_eta() -> None:
    run = on_terminal([sys.executable, "-c", _PROGRAM])
    assert run.code == 0, run.err
    assert run.out == "a printed line\nresult\n"  # piped output never goes to the terminal
    assert "copy: batch " in run.err  # the step under way, while it was under way
    final = run.err.splitlines()
    copy = next(line for line in reversed(final) if line.startswith("copy"))
    assert "100%" in copy and "1,000/1,000 records" in copy and "records/s" in copy
    assert "ETA 0:00:00" in copy
    assert "INFO half-way note" in final  # a log line, above the bar
    tools = next(line for line in reversed(final) if line.startswith("tools"))
    assert "100%" in tools and "2/2 groups" in tools


def test_a_pipe_gets_nothing_but_the_program_s_own_output() -> None:
    run = piped([sys.executable, "-c", _PROGRAM])
    assert run.code == 0, run.err
    assert run.out == "a printed line\nresult\n"
    assert run.err == "INFO half-way note\n"
