"""Debezium's connectors against databases not set up for change data capture (issue 30,
item 6): the binlog off, not in ROW format, row images or row metadata not FULL, a user
without REPLICATION SLAVE, REPLICATION CLIENT or SELECT; ``wal_level`` not ``logical``, a role
without REPLICATION, a user not allowed to create the publication. Each fails with a message
naming the setting and the fix, where Debezium fails (``config/validate`` for the connection and
``wal_level``, else the task at start), and harms nothing: two correctly set up connectors on
the same worker (MariaDB with the grants Debezium documents, PostgreSQL) keep running and
producing, and the failing ones leave no publication or slot behind.

One worker, one MariaDB with the binlog and one PostgreSQL with logical decoding of this
module, and the session's plain servers (binlog off, ``wal_level=replica``)."""

from __future__ import annotations

import itertools
import json
import random
import uuid
from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest
from confluent_kafka import Producer

from seaway.broker import BrokerThread
from seaway.connectors.debezium.binlog.database import missing_from_grants
from tests.connect.debezium_helpers import topic_messages
from tests.connect.test_worker_recovery import _create_topic
from tests.connect.workers import Rest, WorkerProcess, distributed_props, wait_for
from tests.databases import MariaDbServer, PostgresServer

MARIADB: Final = "io.debezium.connector.mariadb.MariaDbConnector"
MYSQL: Final = "io.debezium.connector.mysql.MySqlConnector"
POSTGRES: Final = "io.debezium.connector.postgresql.PostgresConnector"
WORKER: Final = f"dbz-setup-{uuid.uuid4().hex[:8]}"
"""The worker's group (its internal topics are named after it)."""
GRANTS: Final = {
    "cdc": "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT",
    "no_slave": "SELECT, RELOAD, SHOW DATABASES, REPLICATION CLIENT",
    "no_client": "SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE",
    "no_select": "RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT",
}
"""MariaDB users and their grants on ``*.*``: ``cdc`` has those Debezium documents."""


@pytest.fixture(scope="module")
def binlog_db() -> Iterator[MariaDbServer]:
    """MariaDB with the binlog as CDC needs it, a table ``shop.items`` and the users of
    :data:`GRANTS`."""
    with MariaDbServer(binlog=True) as db:
        with db.connect() as connection, connection.cursor() as cursor:
            cursor.execute("CREATE DATABASE shop")
            cursor.execute("CREATE TABLE shop.items (id INT PRIMARY KEY)")
            cursor.execute("INSERT INTO shop.items VALUES (0)")
            for user, grants in GRANTS.items():
                cursor.execute(f"CREATE USER '{user}'@'%'")
                cursor.execute(f"GRANT {grants} ON *.* TO '{user}'@'%'")
        yield db


@pytest.fixture(scope="module")
def logical_pg() -> Iterator[PostgresServer]:
    """PostgreSQL with ``wal_level=logical``, a table ``items``, a role ``no_repl`` without
    REPLICATION and a role ``repl`` with it and CREATE on the database (neither a
    superuser)."""
    with PostgresServer(logical=True) as db:
        with db.connect() as connection:
            connection.execute("CREATE TABLE items (id INT PRIMARY KEY)")
            connection.execute("INSERT INTO items VALUES (0)")
            connection.execute("CREATE ROLE no_repl LOGIN")
            connection.execute("CREATE ROLE repl LOGIN REPLICATION")
            connection.execute("GRANT SELECT ON items TO no_repl, repl")
            connection.execute("GRANT CREATE ON DATABASE postgres TO repl")
        yield db


@pytest.fixture(scope="module")
def rest(
    broker: BrokerThread,
    tmp_path_factory: pytest.TempPathFactory,
    binlog_db: MariaDbServer,
    logical_pg: PostgresServer,
) -> Iterator[Rest]:
    """The REST API of the module's one worker (stopped before the servers: a PostgreSQL
    server stops once its clients are gone)."""
    props = distributed_props(broker.bootstrap_servers, WORKER)
    with WorkerProcess(props, tmp_path_factory.mktemp("worker")) as worker:
        assert worker.rest is not None
        yield worker.rest


def _mariadb(
    server: MariaDbServer, prefix: str, user: str = "root", **extra: Any
) -> dict[str, Any]:
    return {
        "connector.class": MARIADB, "database.hostname": "127.0.0.1",
        "database.port": server.port, "database.user": user,
        "database.server.id": random.randint(1000, 2**31), "topic.prefix": prefix,
        "database.include.list": "shop", "poll.interval.ms": 200,
        "schema.history.internal.kafka.bootstrap.servers": extra.pop("bootstrap", "unused:9092"),
        "schema.history.internal.kafka.topic": f"{prefix}.history", **extra,
    }  # fmt: skip


def _postgres(server: PostgresServer, prefix: str, user: str, **extra: Any) -> dict[str, Any]:
    return {
        "connector.class": POSTGRES, "database.hostname": "127.0.0.1",
        "database.port": server.port, "database.user": user, "database.dbname": "postgres",
        "topic.prefix": prefix, "slot.name": f"s_{uuid.uuid4().hex[:12]}",
        "publication.name": f"p_{uuid.uuid4().hex[:12]}", "poll.interval.ms": 200, **extra,
    }  # fmt: skip


@pytest.fixture(scope="module")
def unharmed(
    rest: Rest, broker: BrokerThread, binlog_db: MariaDbServer, logical_pg: PostgresServer
) -> Callable[[], None]:
    """Starts a correctly set up MariaDB connector (user ``cdc``) and PostgreSQL connector;
    returns the check that both still run and a new row of each reaches Kafka."""
    bootstrap = broker.bootstrap_servers
    prefix = f"good{uuid.uuid4().hex[:6]}"
    topics = {"mariadb": f"{prefix}_m.shop.items", "postgres": f"{prefix}_p.public.items"}
    for topic in topics.values():
        _create_topic(bootstrap, topic)
    rest.ok("POST", "/connectors", {"name": "good-mariadb", "config": _mariadb(
        binlog_db, f"{prefix}_m", "cdc", bootstrap=bootstrap)})  # fmt: skip
    rest.ok("POST", "/connectors", {"name": "good-postgres", "config": _postgres(
        logical_pg, f"{prefix}_p", "postgres")})  # fmt: skip
    ids = itertools.count(1)

    def ids_in(topic: str) -> set[int]:
        return {k["payload"]["id"] for k, v in topic_messages(bootstrap, topic) if v}

    def check() -> None:
        n = next(ids)
        with binlog_db.connect("shop") as connection, connection.cursor() as cursor:
            cursor.execute("INSERT INTO items VALUES (%s)", (n,))
        with logical_pg.connect() as connection:
            connection.execute("INSERT INTO items VALUES (%s)", (n,))
        for name, topic in topics.items():
            wait_for(f"row {n} from good-{name}", lambda t=topic: n in ids_in(t), timeout=60)
            _, body = rest.get(f"/connectors/good-{name}/status")
            states = [body["connector"]["state"], *(t["state"] for t in body["tasks"])]
            assert states == ["RUNNING", "RUNNING"], body

    try:
        wait_for("the good connectors' snapshots",
                 lambda: all(0 in ids_in(t) for t in topics.values()))  # fmt: skip
    except AssertionError as error:
        statuses = [rest.get(f"/connectors/good-{name}/status")[1] for name in topics]
        raise AssertionError(f"{error}; statuses: {statuses}") from None
    return check


def _trace(rest: Rest, name: str) -> str | None:
    """The trace of the connector or its task once either FAILED."""
    status, body = rest.get(f"/connectors/{name}/status")
    if status != 200:
        return None
    failed = [p for p in (body["connector"], *body["tasks"]) if p["state"] == "FAILED"]
    if not failed:
        return None
    return str(failed[0].get("trace") or "FAILED without a trace")


def _failures(rest: Rest, configs: dict[str, dict[str, Any]]) -> dict[str, str]:
    """Creates the connectors; each one's trace once it FAILED."""
    for name, config in configs.items():
        rest.ok("POST", "/connectors", {"name": name, "config": config})
    return {name: wait_for(f"{name} to fail", lambda n=name: _trace(rest, n), timeout=90)
            for name in configs}  # fmt: skip


def _delete(rest: Rest, *names: str) -> None:
    for name in names:
        rest.ok("DELETE", f"/connectors/{name}")


def _validation_errors(rest: Rest, config: dict[str, Any]) -> dict[str, list[str]]:
    plugin = config["connector.class"].rsplit(".", 1)[1]
    body = rest.ok("PUT", f"/connector-plugins/{plugin}/config/validate", {"name": "v", **config})
    return {
        c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]
    }


def test_binlog_off(rest: Rest, mariadb: MariaDbServer, unharmed: Callable[[], None]) -> None:
    trace = _failures(rest, {"binlog-off": _mariadb(mariadb, "off")})["binlog-off"]
    assert (
        "The database server is not configured to write a binlog (log_bin=OFF), which is "
        "required for this connector to work properly. Start the server with the binlog on and "
        "a server id (log-bin=mysql-bin and server-id=1 in its configuration) and restart the "
        "connector."
    ) in trace
    unharmed()
    _delete(rest, "binlog-off")


@pytest.mark.parametrize(
    ("variable", "bad", "message"),
    [
        ("binlog_format", "MIXED",
         "The database server is not configured to use a ROW binlog_format, which is required "
         "for this connector to work properly. Change the database configuration to use a "
         "binlog_format=ROW and restart the connector."),
        ("binlog_row_image", "MINIMAL",
         "The database server is not configured to use a FULL binlog_row_image, which is "
         "required for this connector to work properly. Change the database configuration to "
         "use a binlog_row_image=FULL and restart the connector."),
        ("binlog_row_metadata", "MINIMAL",
         "The database server is not configured to use a FULL binlog_row_metadata, which "
         "Seaway's binlog reader needs to name the columns of each row. Change the database "
         "configuration to use a binlog_row_metadata=FULL and restart the connector."),
    ],
)  # fmt: skip
def test_binlog_settings(
    rest: Rest,
    binlog_db: MariaDbServer,
    unharmed: Callable[[], None],
    variable: str,
    bad: str,
    message: str,
) -> None:
    name = variable.replace("_", "-")
    config = {**_mariadb(binlog_db, name), "connector.class": MYSQL}
    assert _validation_errors(rest, config) == {}  # Debezium checks these in the task
    with binlog_db.connect() as connection, connection.cursor() as cursor:
        cursor.execute(f"SET GLOBAL {variable} = '{bad}'")
        try:
            trace = _failures(rest, {name: config})[name]
        finally:
            cursor.execute(f"SET GLOBAL {variable} = 'ROW' " if variable == "binlog_format"
                           else f"SET GLOBAL {variable} = 'FULL'")  # fmt: skip
    assert message in trace
    unharmed()
    _delete(rest, name)


def test_missing_grants(rest: Rest, binlog_db: MariaDbServer, unharmed: Callable[[], None]) -> None:
    config = _mariadb(binlog_db, "grants", "cdc", **{"database.password": "wrong"})
    where = f"127.0.0.1:{binlog_db.port}"
    assert _validation_errors(rest, config) == {
        "database.hostname": [
            "Unable to connect: Access denied for user 'cdc'@'localhost' (using password: YES)"
        ]
    }
    assert _validation_errors(rest, _mariadb(binlog_db, "grants", "no_slave")) == {}
    traces = _failures(rest, {
        "no-slave": _mariadb(binlog_db, "no_slave", "no_slave"),
        "no-client": {**_mariadb(binlog_db, "no_client", "no_client"), "connector.class": MYSQL},
        "no-select": _mariadb(binlog_db, "no_select", "no_select"),
    })  # fmt: skip
    assert (
        f"Unable to connect to the database at {where} with user 'no_slave': Access denied; "
        "the user lacks the REPLICATION SLAVE privilege (to read the binlog). Grant it and "
        "restart the connector: GRANT REPLICATION SLAVE ON *.* TO 'no_slave'@'%'"
    ) in traces["no-slave"]
    assert (
        f"Unable to connect to the database at {where} with user 'no_client': Access denied; "
        "the user lacks the REPLICATION CLIENT privilege (to read the binlog position with "
        "SHOW MASTER STATUS). Grant it and restart the connector: GRANT REPLICATION CLIENT ON "
        "*.* TO 'no_client'@'%'"
    ) in traces["no-client"]
    assert (
        f"Unable to connect to the database at {where} with user 'no_select': Access denied; "
        "the user lacks the SELECT privilege (to read the captured tables). Grant it and "
        "restart the connector: GRANT SELECT ON *.* TO 'no_select'@'%'"
    ) in traces["no-select"]
    unharmed()
    _delete(rest, *traces)


WAL_LEVEL: Final = (
    "Postgres server wal_level property must be 'logical' but is: 'replica'. Set wal_level = "
    "logical (ALTER SYSTEM SET wal_level = logical, or in postgresql.conf) and restart the "
    "server, then the connector."
)


def test_wal_level_not_logical(
    rest: Rest, broker: BrokerThread, postgres: PostgresServer, unharmed: Callable[[], None]
) -> None:
    """Refused by ``validate()`` (so at creation), as Debezium does; a connector created
    before the server lost ``wal_level=logical`` fails in its task."""
    config = _postgres(postgres, "wal", "postgres")
    assert _validation_errors(rest, config) == {
        "database.hostname": [f"Error while validating connector config: {WAL_LEVEL}"]
    }
    status, body, _ = rest.call("POST", "/connectors", {"name": "wal", "config": config})
    assert status == 400 and WAL_LEVEL in body["message"], body
    # as if created earlier: the config straight into the worker's config topic
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers})
    record = {"properties": {k: str(v) for k, v in {**config, "name": "wal"}.items()}}
    producer.produce(f"{WORKER}-configs", json.dumps(record).encode(), b"connector-wal")
    assert producer.flush(30) == 0
    # a rebalance, the query's start and the task's failure: up to minutes on a loaded CI
    assert WAL_LEVEL in wait_for("wal to fail", lambda: _trace(rest, "wal"), timeout=180)
    unharmed()
    _delete(rest, "wal")


def test_role_without_replication(
    rest: Rest, logical_pg: PostgresServer, unharmed: Callable[[], None]
) -> None:
    """Debezium only logs the missing REPLICATION (validate passes), then the task fails
    before creating anything; a REPLICATION role that may not create a FOR ALL TABLES
    publication is told who may."""
    no_repl = _postgres(logical_pg, "no_repl", "no_repl")
    repl = _postgres(logical_pg, "repl", "repl")
    assert _validation_errors(rest, no_repl) == {}
    traces = _failures(rest, {"no-repl": no_repl, "repl": repl})
    assert (
        "Postgres roles LOGIN and REPLICATION are not assigned to user: no_repl. The "
        "REPLICATION attribute is required to create and read the connector's replication "
        "slot: run ALTER ROLE no_repl REPLICATION (as a superuser) and restart the connector."
    ) in traces["no-repl"]
    publication = repl["publication.name"]
    assert (
        f"Unable to create publication '{publication}' as user 'repl': must be superuser to "
        f"create FOR ALL TABLES publication. Have a superuser run CREATE PUBLICATION "
        f'"{publication}" FOR ALL TABLES and restart the connector.'
    ) in traces["repl"]
    with logical_pg.connect() as connection:
        names = (no_repl["publication.name"], publication)
        assert (
            connection.execute(
                "SELECT pubname FROM pg_publication WHERE pubname = ANY(%s)", (list(names),)
            ).fetchall()
            == []
        )
        slots = [no_repl["slot.name"], repl["slot.name"]]
        assert (
            connection.execute(
                "SELECT slot_name FROM pg_replication_slots WHERE slot_name = ANY(%s)", (slots,)
            ).fetchall()
            == []
        )
    unharmed()
    _delete(rest, *traces)


@pytest.mark.parametrize(
    ("lines", "missing"),
    [
        (["GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"], []),
        (["GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT ON *.* "
          "TO `debezium`@`%`"], []),
        (["GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO `cdc`@`%`",
          "GRANT SELECT (`id`, `name`) ON `shop`.`items` TO `cdc`@`%`"], []),
        (["GRANT USAGE ON *.* TO `cdc`@`%`", "GRANT ALL PRIVILEGES ON `shop`.* TO `cdc`@`%`"],
         ["REPLICATION SLAVE", "REPLICATION CLIENT"]),
        (["GRANT REPLICATION SLAVE ADMIN, SUPER ON *.* TO `cdc`@`%`"],
         ["SELECT", "REPLICATION SLAVE"]),
        (["GRANT USAGE ON *.* TO `cdc`@`%`", "GRANT `cdc_role`@`%` TO `cdc`@`%`"], []),
    ],
    ids=["all", "debezium", "mariadb-names-and-columns", "one-database", "admin-not-slave",
         "mysql-role"],
)  # fmt: skip
def test_grants_read_from_show_grants(lines: list[str], missing: list[str]) -> None:
    """MySQL's and MariaDB's ``SHOW GRANTS`` lines, and what they leave missing (MySQL
    proper is not installable here; a MySQL role's privileges are not listed: not judged)."""
    assert missing_from_grants(lines) == missing
