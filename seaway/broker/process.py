"""Compatibility alias: :class:`BrokerProcess` lives in :mod:`seaway.broker.embedded`."""

from seaway.broker.embedded import BrokerProcess

__all__ = ["BrokerProcess"]
