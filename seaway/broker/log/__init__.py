"""The broker's storage: partitions as segmented logs with offset and time indexes."""
