"""Seaway's embedded Kafka-wire-compatible broker (asyncio, single node).

>>> from seaway.broker import BrokerThread
>>> with BrokerThread("/tmp/seaway-data") as b:      # doctest: +SKIP
...     print(b.bootstrap_servers)
"""

from seaway.broker.broker import Broker
from seaway.broker.embedded import BrokerProcess, BrokerThread

__all__ = ["Broker", "BrokerProcess", "BrokerThread"]
