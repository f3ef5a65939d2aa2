"""Kafka's protocol, shared by the broker and the client: framing, errors, record batches.

Nothing here imports asyncio, sockets or storage: it turns bytes into kio entities and
back, reads or rewrites RecordBatch headers in place, and decodes or builds the records
of a batch for the few paths that must look inside one.
"""
