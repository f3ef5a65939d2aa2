"""The mirror on a Spark standalone cluster with one, then two workers of one core each.

Run from the repository root::

    .venv/bin/python -m bench.mirror_scaling                    # 4,000,000 records
    .venv/bin/python -m bench.mirror_scaling --records 1000000

For each worker count a cluster is started from the pyspark wheel
(:class:`seaway.spark.standalone.StandaloneCluster`: Spark's own Master and Workers, one
core each), and ``bench.mirror --only seaway --master spark://...`` runs on it (two fresh
brokers, a full fill, ``seaway mirror-maker`` from process start until B holds every
record). The report gives both runs' end-to-end and steady rates and their ratio, the
scaling factor. The executors and their Python workers belong to the cluster, not to the
mirror-maker's process tree, so bench.mirror's client CPU figures cover the driver only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import mirror
from bench._report import arg_parser, report_head, run_in_data_dir
from bench._util import progress
from seaway.spark.standalone import StandaloneCluster


def run(workers: int, records: int, root: Path) -> dict[str, Any]:
    with StandaloneCluster(root / f"spark-{workers}", workers=workers, cores=1) as cluster:
        progress(f"{workers} Spark worker(s) x 1 core at {cluster.url}")
        out = root / f"mirror-{workers}.json"
        code = mirror.main(
            ["--only", "seaway", "--records", str(records), "--master", cluster.url,
             "--json", str(out), "--data-root", str(root)]
        )  # fmt: skip
        if code != 0:
            raise SystemExit(f"bench.mirror failed with {workers} worker(s)")
        return dict(json.loads(out.read_text())["seaway"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = arg_parser("mirror_scaling", __doc__)
    parser.add_argument("--records", type=int, default=4_000_000, help="default 4,000,000")
    args = parser.parse_args(argv)
    return run_in_data_dir(args, "mirror-scaling", lambda root: scaling(args.records, root))


def scaling(records: int, root: Path) -> dict[str, Any]:
    """Both runs and their ratios; the JSON report."""
    one, two = (run(n, records, root) for n in (1, 2))
    result = {
        **report_head("bench/mirror_scaling.py"),
        "records": records,
        "one_worker": {"rate": one["rate"], "steady_rate": one["steady_rate"]},
        "two_workers": {"rate": two["rate"], "steady_rate": two["steady_rate"]},
        "scaling_end_to_end": two["rate"] / one["rate"],
        "scaling_steady": (two["steady_rate"] or 0) / (one["steady_rate"] or 1),
    }
    print(
        f"\nMirror on a standalone cluster, {records:,} records of 100 B:\n"
        f"  1 worker x 1 core:  {one['rate']:,.0f} rec/s end to end, "
        f"{one['steady_rate'] or 0:,.0f} steady\n"
        f"  2 workers x 1 core: {two['rate']:,.0f} rec/s end to end, "
        f"{two['steady_rate'] or 0:,.0f} steady\n"
        f"  scaling: {result['scaling_end_to_end']:.2f}x end to end, "
        f"{result['scaling_steady']:.2f}x steady"
    )
    return result


if __name__ == "__main__":
    sys.exit(main())
