"""``seaway demo``: the end-to-end tour run by ``make demo``; on a terminal, its steps as a
progress bar on standard error."""

from __future__ import annotations

import argparse
from typing import Any


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="run the demo on an embedded broker")
    p.add_argument("--records", type=int, default=5000, help="records to produce (default 5000)")
    p.add_argument("--data-dir", help="where to keep the broker's data (default: a temp dir)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from seaway.cli.progress import progress
    from seaway.demo import run_demo

    with progress("demo", "steps") as bar:
        return run_demo(records=args.records, data_dir=args.data_dir, on_progress=bar)
