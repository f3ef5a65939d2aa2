"""``seaway broker [server.properties] [--port P] [--data-dir D] [--override k=v ...]``.

Like ``kafka-server-start.sh server.properties --override key=value``: a properties file
is optional, flags and overrides win over it. Prints ``... listening on HOST:PORT
(NAME=HOST:PORT,...)`` on stdout once ready (the first PLAINTEXT listener, then every
listener by name; port 0 picks a free port), then ``Seaway broker admin API at URL`` when
``admin.listener`` is set (``--admin-port A`` sets it to ``http://HOST:A``: ``/metrics``,
``/api/history``), and shuts down cleanly on SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from seaway.broker.loop import run_loop
from seaway.config import ConfigException, load_properties


def add_parser(sub: Any, name: str) -> None:
    p = sub.add_parser(name, help="run the embedded Kafka-compatible broker")
    p.add_argument("config", nargs="?", help="a server.properties file (optional)")
    p.add_argument("--port", type=int, help="port to listen on (0: any free port)")
    p.add_argument("--host", help="interface to listen on (default 127.0.0.1)")
    p.add_argument("--data-dir", help="log.dirs: where the logs and metadata live")
    p.add_argument(
        "--admin-port",
        type=int,
        help="serve the admin API (/metrics, /api/history) on this port (admin.listener)",
    )
    p.add_argument(
        "--override", action="append", default=[], metavar="KEY=VALUE", help="set a broker config"
    )
    p.set_defaults(run=run)


def broker_config(args: argparse.Namespace) -> dict[str, Any]:
    config: dict[str, Any] = dict(load_properties(args.config)) if args.config else {}
    for item in args.override:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--override expects KEY=VALUE, got {item!r}")
        config[key.strip()] = value
    if args.port is not None:
        config["port"] = args.port
    if args.host:
        config["host"] = args.host
    if args.data_dir:
        config["log.dirs"] = args.data_dir
    if args.admin_port is not None:
        config["admin.listener"] = f"http://{args.host or '127.0.0.1'}:{args.admin_port}"
    return config


async def _serve(config: dict[str, Any]) -> None:
    from seaway.broker import Broker

    broker = Broker(config)
    await broker.start()
    listeners = ",".join(f"{name}={address}" for name, address in broker.listeners.items())
    print(f"Seaway broker listening on {broker.bootstrap_servers} ({listeners})", flush=True)
    if broker.admin is not None:
        print(f"Seaway broker admin API at {broker.admin.url}", flush=True)
        print(f"Seaway broker web console at {broker.admin.url}/ui/", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await broker.stop()


def run(args: argparse.Namespace) -> int:
    try:
        config = broker_config(args)
        run_loop(_serve(config))
    except ConfigException as e:
        print(f"seaway broker: invalid configuration: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"seaway broker: {e}", file=sys.stderr)
        return 1
    return 0
