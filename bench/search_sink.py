"""JSON records with schemas from a topic into a search index: Seaway's Elasticsearch sink
on a Connect worker, next to a plain Python script (confluent-kafka + opensearch-py's bulk
helper) doing the same, both against the same server in one run.

Run from the repository root::

    .venv/bin/python -m bench.search_sink                     # 100,000 records
    .venv/bin/python -m bench.search_sink --records 5000      # smoke run
    .venv/bin/python -m bench.search_sink --sink-config max.in.flight.requests=2
    .venv/bin/python -m bench.search_sink --helper parallel_bulk
    .venv/bin/python -m bench.search_sink --json bench/out/search_sink.json

One run has one Seaway broker subprocess (``BrokerProcess``) and one ``osmem-server`` (the
in-memory OpenSearch-compatible server of the ``test`` extra, a Go binary):

1. A topic (``--partitions``, default 1) of ``--records`` records (default 100,000): the
   value a ``bench.user`` struct (id int64, email string, balance double, updated_at
   Timestamp, active boolean, tags array<string>) in Kafka's JsonConverter envelope
   (``schemas.enable=true``, byte for byte what the converter writes), the key the id as a
   string; produced before any timing.
2. Plain reference (one Python process): a confluent-kafka ``Consumer`` reads the topic from
   the beginning, ``json.loads`` each value and takes its payload, and opensearch-py's
   ``helpers.bulk`` (``--helper parallel_bulk``: 5 threads, the sink's
   ``max.in.flight.requests``) writes it into index A with the sink's settings: 2,000
   actions and at most 5 MiB per request, the key as ``_id``, ``version_type=external``
   with the offset as version (what the sink does for keyed records). Index A is created
   beforehand with the mapping the sink puts on its index (not timed). Timed from the
   script's start until the helper returns (every request answered).
3. Seaway: a distributed Connect worker in this process (StringConverter keys,
   JsonConverter values with schemas, ``local[2]``), whose start-up is timed separately and
   not counted; an ``ElasticsearchSinkConnector`` (``key.ignore=false``, its defaults
   otherwise) is POSTed for index B (the topic's name). Timed from the POST until index
   B's ``_count`` reaches the records (checked every 0.1 s, cheaply: see :func:`watch`);
   "steady" is from the first document on, since the query start (first micro-batch) is a
   one-time cost of a long-running worker.

Then (not timed) both indexes must hold every record, and a sample of ids the same
``_source`` and ``_version``. Reported: records, seconds and records/s of each, Seaway's
rate over the script's (end to end and steady), CPU per record of the client side (this
process and its children: the Spark JVM and Python workers), of the search server and of
the broker. The last stdout line is a JSON document with every figure (``--json`` writes
it too).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyspark

from bench._connect_worker import (
    CONVERTERS,
    QuerySummary,
    create_connector,
    failed_parts,
    query_summaries,
    worker_logging,
    worker_props,
)
from bench._report import (
    KAFKA_CLIENT,
    CpuMeter,
    add_pairs,
    arg_parser,
    attempt,
    cleanup,
    fmt,
    process_cpu,
    ratio,
    render_table,
    report_head,
    run_in_data_dir,
    tree_cpu,
    us_per,
)
from bench._search_workload import (
    HELPERS,
    IN_FLIGHT,
    SCHEMA,
    SearchProcess,
    produce_records,
    run_plain,
    verify,
)
from bench._util import process_tree_cpu_seconds, progress
from bench._workload import create_topics, unique_name
from seaway.broker import BrokerProcess

DEFAULT_RECORDS = 100_000
VARIANTS = ("plain", "seaway")
TICK_S = 0.1
SINK_CLASS = "ElasticsearchSinkConnector"


@dataclass
class Variant:
    """One variant's timed span: seconds and the CPU seconds used in it."""

    records: int
    seconds: float
    cpu: dict[str, float]

    @property
    def rate(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else 0.0

    def json(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "seconds": round(self.seconds, 3),
            "records_per_s": round(self.rate),
            "cpu_seconds": {k: round(v, 3) for k, v in self.cpu.items()},
            "cpu_us_per_record": {
                k: round(us_per(v, self.records) or 0, 2) for k, v in self.cpu.items()
            },
        }


@dataclass
class SeawayRun:
    """The sink's run: end to end from the POST, and steady from the first document."""

    startup_seconds: float
    end_to_end: Variant | None = None
    steady: Variant | None = None
    first_document_seconds: float | None = None
    queries: list[str] = field(default_factory=list)
    log_problems: list[tuple[str, str, str]] = field(default_factory=list)


@dataclass
class Results:
    records: int
    value_bytes: int = 0
    plain: Variant | None = None
    seaway: SeawayRun | None = None
    verified: str | None = None
    errors: list[str] = field(default_factory=list)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = arg_parser("search_sink", __doc__)
    add = parser.add_argument
    add(
        "--records",
        type=int,
        default=DEFAULT_RECORDS,
        help=f"records in the topic (default {DEFAULT_RECORDS:,})",
    )
    add("--partitions", type=int, default=1, help="topic partitions (default 1)")
    add("--only", choices=VARIANTS, help="run one variant only")
    add(
        "--helper",
        choices=HELPERS,
        default="bulk",
        help="the reference's opensearch-py helper (default bulk: one request at a time)",
    )
    add("--master", default="local[2]", help="the worker's spark.master (default local[2])")
    add("--sample", type=int, default=1000, help="ids compared between the indexes")
    add_pairs(parser, "--worker-config", "extra worker property (repeatable)", "worker_overrides")
    add_pairs(parser, "--sink-config", "extra sink connector config (repeatable)", "sink_overrides")
    add("--progress-interval", type=float, default=5.0, help="seconds between progress lines")
    add(
        "--stall-timeout",
        type=float,
        default=120.0,
        help="give up when the index did not grow for this many seconds",
    )
    args = parser.parse_args(argv)
    if args.records < 1 or args.partitions < 1:
        parser.error("--records and --partitions must be positive")
    args.converter = "json"  # worker_props: JsonConverter values (the key's is set below)
    args.variants = [args.only] if args.only else list(VARIANTS)
    return args


def cpu_meter(broker_pid: int, search_pid: int) -> CpuMeter:
    """CPU seconds of the client side (this process tree but the broker and the server), of
    the search server and of the broker."""
    me = os.getpid()

    def client() -> float:
        return process_tree_cpu_seconds(me) - sum(
            process_tree_cpu_seconds(pid) for pid in (broker_pid, search_pid)
        )

    return CpuMeter(client=client, search=process_cpu(search_pid), broker=tree_cpu(broker_pid))


# --------------------------------------------------------------------------- the variants


def plain_variant(
    args: argparse.Namespace,
    bootstrap: str,
    topic: str,
    server: SearchProcess,
    pids: tuple[int, int],
) -> Variant:
    """The plain script into index A (created with the sink's mapping first)."""
    from seaway.connectors.elasticsearch.mapping import mapping_for

    index = f"plain-{topic}"
    status, body = server.request("PUT", f"/{index}", {"mappings": mapping_for(SCHEMA)})
    if status != 200:
        raise RuntimeError(f"creating {index}: {status} {body}")
    progress(f"plain: {args.helper} into {index}")
    meter = cpu_meter(*pids)
    run = run_plain(
        bootstrap,
        topic,
        args.partitions,
        server.url,
        index,
        args.records,
        args.helper,
        args.stall_timeout,
    )
    variant = Variant(args.records, run.seconds, meter.read())
    progress(f"plain: {args.records:,} documents in {run.seconds:.2f} s ({variant.rate:,.0f}/s)")
    return variant


def seaway_variant(
    args: argparse.Namespace,
    bootstrap: str,
    topic: str,
    server: SearchProcess,
    pids: tuple[int, int],
    root: Path,
    results: Results,
) -> None:
    """Start a worker, POST the sink for index B (= the topic), time it to the last document."""
    from seaway.connect.assembly import distributed_worker

    name = unique_name("bench-search")
    props = {
        **worker_props(args, bootstrap, name, root),
        "key.converter": CONVERTERS["string"],
        **args.worker_overrides,
    }
    with worker_logging(root / "worker.log") as problems:
        progress(f"seaway: starting a distributed worker ({args.master})")
        started = time.perf_counter()
        connect = distributed_worker(props)
        run = results.seaway = SeawayRun(startup_seconds=0.0)
        try:
            connect.start()
            if connect.herder.worker.warm_up is not None:  # a running worker's Python workers
                connect.herder.worker.warm_up.join(60)
            run.startup_seconds = time.perf_counter() - started
            url = connect.rest.url
            progress(f"seaway: worker up in {run.startup_seconds:.1f} s (not measured)")
            config = {
                "connector.class": SINK_CLASS,
                "connection.url": server.url,
                "topics": topic,
                "key.ignore": "false",
                **args.sink_overrides,
            }
            meter = cpu_meter(*pids)
            started = time.perf_counter()
            connector = f"{name}-sink"  # not the worker's group.id, connect-<name>
            create_connector(url, connector, config)
            progress(f"seaway: POSTed {connector}; {args.records:,} records into index {topic}")
            watch(args, server, url, connector, topic, started, meter, run)
            time.sleep(2.0)  # the last micro-batch's progress
            run.queries = [describe(q) for q in query_summaries(connect)]
        finally:
            progress("seaway: stopping the worker")
            cleanup("worker stop", connect.stop)
            run.log_problems = list(problems.records)


def describe(query: QuerySummary) -> str:
    """A sink query's micro-batches (its rows are the tasks' offset summaries, not records)."""
    phases = ", ".join(f"{k} {v:.1f}" for k, v in query.first_batch_phases.items())
    text = (
        f"{query.name}: {query.batches} micro-batch(es) with records; the first took "
        f"{query.first_batch_seconds:.1f} s ({phases})"
    )
    if query.batches > 1:
        text += f", the other {query.batches - 1} {query.other_batches_seconds:.1f} s"
    return text


def watch(
    args: argparse.Namespace,
    server: SearchProcess,
    url: str,
    name: str,
    index: str,
    started: float,
    meter: CpuMeter,
    run: SeawayRun,
) -> None:
    """Wait until index B holds every record. ``_count`` costs osmem ~2 µs of CPU per stored
    document, a poll every 0.1 s would take a good part of a core from the indexing, so it
    is polled only while the index is small (the first document) and at the very end: in
    between, the last record's document is looked for (``HEAD``), and the stored count
    read from the index's stats every ``--progress-interval`` s (progress, stalls). With
    several partitions the last record's document can come before others: then the stats
    are polled every 0.1 s until they show every record."""
    first: tuple[float, int, dict[str, float]] | None = None
    last_change = last_report = started
    last_id = str(args.records - 1)
    count = last_seen = 0
    while count < args.records:
        time.sleep(TICK_S)
        now = time.perf_counter()
        if first is None:
            count = server.count(index)
            if count:
                first = (now, count, meter.read().copy())
                run.first_document_seconds = now - started
                progress(f"seaway: first {count:,} documents after {now - started:.2f} s")
        elif server.exists(index, last_id):
            count = server.stored(index)
            if count >= args.records:
                count = server.count(index)
        if now - last_report >= args.progress_interval:
            last_report = now
            stored = server.stored(index)
            progress(f"seaway: {now - started:6.1f} s  {stored:>10,} documents")
            if failures := failed_parts(url, [name]):
                raise RuntimeError("; ".join(failures))
            if stored != last_seen:
                last_seen, last_change = stored, now
            elif now - last_change > args.stall_timeout:
                raise TimeoutError(f"index {index} stuck at {count:,} documents")
    end = time.perf_counter()
    cpu = meter.read()
    run.end_to_end = Variant(args.records, end - started, cpu)
    assert first is not None
    at, seen, cpu_at = first
    if seen < args.records and end > at:
        steady_cpu = {k: cpu[k] - cpu_at[k] for k in cpu}
        run.steady = Variant(args.records - seen, end - at, steady_cpu)
    progress(
        f"seaway: {args.records:,} documents after {end - started:.2f} s "
        f"({run.end_to_end.rate:,.0f}/s end to end)"
    )


# --------------------------------------------------------------------------- the run


def run_all(args: argparse.Namespace, root: Path, results: Results) -> None:
    server = SearchProcess(root / "search")
    broker = BrokerProcess(root / "broker", port=0)
    try:
        server.start()
        broker.start()
        bootstrap = broker.bootstrap_servers
        progress(
            f"search server {server.url} (pid {server.pid}); broker {bootstrap} (pid {broker.pid})"
        )
        topic = unique_name("users")
        create_topics(bootstrap, [topic], args.partitions)
        progress(f"producing {args.records:,} JSON records with schemas into {topic}")
        results.value_bytes = produce_records(bootstrap, topic, args.records)
        pids = (broker.pid, server.pid)
        if "plain" in args.variants:
            results.plain = attempt(
                results.errors,
                "plain",
                lambda: plain_variant(args, bootstrap, topic, server, pids),
            )
        if "seaway" in args.variants:
            attempt(
                results.errors,
                "seaway",
                lambda: seaway_variant(args, bootstrap, topic, server, pids, root, results),
            )
        if results.plain is not None and results.seaway and results.seaway.end_to_end:
            results.verified = attempt(
                results.errors,
                "verify",
                lambda: verify(server, f"plain-{topic}", topic, args.records, args.sample),
            )
            if results.verified:
                progress(f"verified: {results.verified}")
    finally:
        cleanup("broker stop", broker.stop)
        cleanup("search server stop", server.stop)


def osmem_version() -> str:
    try:
        from osmem_server import resolve_binary

        done = subprocess.run([resolve_binary(), "-version"], capture_output=True, text=True)
        return done.stdout.strip() or done.stderr.strip()
    except Exception as exc:  # the header only
        return f"unknown ({exc})"


def print_report(args: argparse.Namespace, results: Results) -> dict[str, float | None]:
    """The table and notes on stdout; the ratios."""
    import opensearchpy

    plain, seaway = results.plain, results.seaway
    e2e = seaway.end_to_end if seaway else None
    steady = seaway.steady if seaway else None
    ratios = {
        "end_to_end": ratio(e2e.rate if e2e else None, plain.rate if plain else None),
        "steady": ratio(steady.rate if steady else None, plain.rate if plain else None),
    }
    print(
        f"\nSearch sink benchmark: {args.records:,} JSON records with schemas "
        f"({results.value_bytes / max(args.records, 1):,.0f} B values), "
        f"{args.partitions} partition(s) on a Seaway broker subprocess, {osmem_version()}; "
        f"Spark {pyspark.__version__} {args.master}, {KAFKA_CLIENT}, opensearch-py "
        f"{opensearchpy.__versionstr__}, {os.cpu_count()} CPUs"
    )
    helper = "helpers.bulk" if args.helper == "bulk" else f"helpers.parallel_bulk x{IN_FLIGHT}"
    if args.worker_overrides or args.sink_overrides:
        print(f"overrides: worker {args.worker_overrides}, sink {args.sink_overrides}")
    rows = [
        (f"plain script ({helper})", plain, ratio(1, 1) if plain else None),
        ("Seaway sink, end to end", e2e, ratios["end_to_end"]),
        ("Seaway sink, steady", steady, ratios["steady"]),
    ]
    header = (
        "variant",
        "records",
        "seconds",
        "records/s",
        "vs plain",
        "client CPU s",
        "client µs/rec",
        "server µs/rec",
        "broker µs/rec",
    )
    cells = [
        (
            label,
            f"{v.records:,}",
            fmt(v.seconds),
            fmt(v.rate),
            fmt(r),
            fmt(v.cpu["client"]),
            fmt(us_per(v.cpu["client"], v.records)),
            fmt(us_per(v.cpu["search"], v.records)),
            fmt(us_per(v.cpu["broker"], v.records)),
        )
        for label, v, r in rows
        if v is not None
    ]
    print(render_table(header, cells))
    print(
        "client CPU = this process and its children (Spark JVM, Python workers) minus the "
        "broker and the search server; steady = from the first document in index B on"
    )
    if seaway is not None:
        print(
            f"seaway: worker start-up {seaway.startup_seconds:.1f} s (not measured); first "
            f"document {fmt(seaway.first_document_seconds)} s after the POST"
        )
        for query in seaway.queries:
            print(f"seaway query {query}")
        summary = Counter(level for level, _, _ in seaway.log_problems)
        print(
            "seaway worker log: "
            + (", ".join(f"{n} {lvl}" for lvl, n in sorted(summary.items())) or "no warnings")
        )
        for level, logger, message in seaway.log_problems[:10]:
            print(f"  {level} {logger}: {message.splitlines()[0] if message else ''}")
    if results.verified:
        print(f"verified: {results.verified}")
    for message in results.errors:
        print(f"ERROR {message}")
    return ratios


def json_report(
    args: argparse.Namespace, results: Results, ratios: dict[str, float | None]
) -> dict[str, Any]:
    import opensearchpy

    seaway = results.seaway
    return {
        **report_head(
            "bench/search_sink.py",
            pyspark=pyspark.__version__,
            opensearch_py=opensearchpy.__versionstr__,
            server=osmem_version(),
        ),
        "config": {
            "records": args.records,
            "partitions": args.partitions,
            "value_bytes": results.value_bytes,
            "helper": args.helper,
            "master": args.master,
            "worker_overrides": args.worker_overrides,
            "sink_overrides": args.sink_overrides,
        },
        "plain": results.plain.json() if results.plain else None,
        "seaway": None
        if seaway is None
        else {
            "startup_seconds": round(seaway.startup_seconds, 2),
            "first_document_seconds": seaway.first_document_seconds,
            "end_to_end": seaway.end_to_end.json() if seaway.end_to_end else None,
            "steady": seaway.steady.json() if seaway.steady else None,
            "queries": seaway.queries,
            "log_problems": [list(p) for p in seaway.log_problems[:50]],
        },
        "ratio_end_to_end": ratios["end_to_end"],
        "ratio_steady": ratios["steady"],
        "verified": results.verified,
        "errors": results.errors,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    def run(root: Path) -> dict[str, Any]:
        results = Results(records=args.records)
        run_all(args, root, results)
        ratios = print_report(args, results)
        return json_report(args, results, ratios)

    def log_tail(root: Path) -> None:
        log = root / "worker.log"
        if log.exists():
            tail = log.read_text(errors="replace").splitlines()[-40:]
            progress("worker log tail:\n" + "\n".join(tail))

    return run_in_data_dir(args, "search", run, on_failure=log_tail)


if __name__ == "__main__":
    sys.exit(main())
