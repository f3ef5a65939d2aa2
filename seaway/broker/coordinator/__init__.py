"""Coordinators that sit beside the request handlers: consumer groups, producer ids."""
