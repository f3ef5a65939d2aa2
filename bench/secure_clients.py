"""Produce and consume over SASL_SSL next to PLAINTEXT on one Seaway broker, in the same run.

Run from the repository root::

    .venv/bin/python -m bench.secure_clients            # ~1 minute on 2 cores
    .venv/bin/python -m bench.secure_clients --quick    # smoke run

One broker process with two listeners: PLAINTEXT and SASL_SSL (SCRAM-SHA-512, TLS 1.3 with
a freshly made CA and server certificate). Per listener: confluent-kafka produces
``--records`` records of ``--value-size`` bytes (the broker benchmark's settings), consumes
them back, and Seaway's batch client fetches them (the data plane's read). Each row gives
records/s over SASL_SSL, over PLAINTEXT, their ratio (the aim, for produce and consume, is
>= 0.6x), and CPU per record of the client and of the broker. The last stdout line is the
JSON report.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from bench._report import (
    KAFKA_CLIENT,
    CpuMeter,
    Row,
    add_size,
    arg_parser,
    comparison_table,
    fmt,
    own_cpu,
    process_cpu,
    render_table,
    report_head,
    run_in_data_dir,
    us_per,
)
from bench._util import progress
from bench._workload import Throughput, consume, create_topics, produce, unique_name

DEFAULT_RECORDS = 1_000_000
QUICK_RECORDS = 100_000
PARTITIONS = 1
SCRAM = "SCRAM-SHA-512"
AIM = 0.6


def _broker_config(certs: Any) -> dict[str, str]:
    return {
        "listeners": "PLAINTEXT://127.0.0.1:0,SASL_SSL://localhost:0",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.server),
        "sasl.enabled.mechanisms": SCRAM,
        "seaway.scram.credentials": f"{SCRAM}=[name=bench,password=bench-secret]",
    }


def _sasl_ssl(certs: Any) -> dict[str, str]:
    return {"security.protocol": "SASL_SSL", "sasl.mechanism": SCRAM, "sasl.username": "bench",
            "sasl.password": "bench-secret", "ssl.ca.location": str(certs.ca)}  # fmt: skip


def _batch_fetch(bootstrap: str, topic: str, client: dict[str, str], expected: int) -> Throughput:
    """Seaway's batch client reads the whole partition (raw batches, as the data plane)."""
    from seaway.kafka.cluster import LATEST, KafkaCluster, list_offset
    from seaway.kafka.fetcher import PartitionFetcher
    from seaway.kafka.security import ClientSecurity

    cluster = KafkaCluster(bootstrap, security=ClientSecurity.from_config(client))
    try:
        end = list_offset(cluster, topic, 0, LATEST)
        started = time.perf_counter()
        size = 0
        for batch in PartitionFetcher(cluster, topic, 0).batches(0, end):
            size += len(batch.data)
        seconds = time.perf_counter() - started
    finally:
        cluster.close()
    return Throughput(records=expected, bytes=size, seconds=seconds)


def _measure(
    name: str, bootstrap: str, client: dict[str, str], records: int, value_size: int, pid: int
) -> dict[str, tuple[Throughput, dict[str, float]]]:
    topic = unique_name(f"secure-{name.lower()}")
    create_topics(bootstrap, [topic], PARTITIONS, client=client)
    out: dict[str, tuple[Throughput, dict[str, float]]] = {}
    steps = {
        "produce (librdkafka)": lambda: produce(bootstrap, [(topic, 0)], records, value_size,
                                                client=client),
        "consume (librdkafka)": lambda: consume(bootstrap, topic, PARTITIONS, records,
                                                client=client),
        "fetch (batch client)": lambda: _batch_fetch(bootstrap, topic, client, records),
    }  # fmt: skip
    for step, run in steps.items():
        progress(f"{name}: {step}")
        with CpuMeter(client=own_cpu, broker=process_cpu(pid)) as meter:
            result = run()
        out[step] = (result, dict(meter.used))
    return out


def main() -> int:
    parser = arg_parser("secure_clients", __doc__ or "")
    add_size(parser, DEFAULT_RECORDS, QUICK_RECORDS, "records per workload")
    parser.add_argument("--value-size", type=int, default=100, help="bytes per value")
    args = parser.parse_args()
    records = args.records or (QUICK_RECORDS if args.quick else DEFAULT_RECORDS)

    def run(root: Path) -> dict[str, Any]:
        from seaway.broker import BrokerProcess
        from tests.broker.certs import make_certs  # the test suite's throwaway CA

        certs = make_certs(Path(tempfile.mkdtemp(dir=root)))
        with BrokerProcess(data_dir=str(root / "kafka"), port=0,
                           config=_broker_config(certs)) as broker:  # fmt: skip
            plain = _measure("PLAINTEXT", broker.listeners["PLAINTEXT"], {}, records,
                             args.value_size, broker.pid)  # fmt: skip
            secure = _measure("SASL_SSL", broker.listeners["SASL_SSL"], _sasl_ssl(certs),
                              records, args.value_size, broker.pid)  # fmt: skip
        rows = [
            Row(step, "records/s", secure[step][0].records_per_s, plain[step][0].records_per_s)
            for step in plain
        ]
        print(f"{records:,} records of {args.value_size} bytes, {KAFKA_CLIENT}")
        print(comparison_table(rows, "SASL_SSL", "PLAINTEXT", "ratio"))
        cpu = [
            (step, listener, fmt(us_per(used["client"], records)),
             fmt(us_per(used["broker"], records)))
            for step in plain
            for listener, used in (("SASL_SSL", secure[step][1]), ("PLAINTEXT", plain[step][1]))
        ]  # fmt: skip
        print()
        print(render_table(("workload", "listener", "client us/rec", "broker us/rec"), cpu, 2))
        aimed = [r for r in rows if "librdkafka" in r.workload]  # the aim: clients
        met = all(r.ratio is not None and r.ratio >= AIM for r in aimed)
        print(f"\naim: produce and consume over SASL_SSL >= {AIM}x PLAINTEXT: "
              f"{'met' if met else 'not met'}")  # fmt: skip
        report = report_head("secure_clients", records=records, value_size=args.value_size)
        report["rows"] = [r.json("sasl_ssl", "plaintext") for r in rows]
        report["cpu_us_per_record"] = {
            step: {
                "sasl_ssl": {k: us_per(v, records) for k, v in secure[step][1].items()},
                "plaintext": {k: us_per(v, records) for k, v in plain[step][1].items()},
            }
            for step in plain
        }
        report["aim_met"] = met
        return report

    return run_in_data_dir(args, "secure-clients", run)


if __name__ == "__main__":
    raise SystemExit(main())
