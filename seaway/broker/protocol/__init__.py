"""The broker's protocol layer: framing, errors and record batches, with no I/O.

Nothing here imports asyncio, sockets or storage: it turns bytes into kio entities and
back, and reads or rewrites RecordBatch headers in place.
"""
