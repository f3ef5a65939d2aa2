"""What Seaway ships to a cluster's Python workers besides its files."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from seaway.spark.shipping import _seaway_metadata


def test_the_workers_see_seaways_entry_points(tmp_path: Path) -> None:
    """Converters and transforms are built on the workers from Kafka's class names."""
    for name, text in _seaway_metadata().items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    (dist,) = metadata.distributions(path=[str(tmp_path)])
    assert dist.metadata["Name"] == "seaway"
    for group, name in (
        ("seaway.converters", "org.apache.kafka.connect.json.JsonConverter"),
        ("seaway.transforms", "org.apache.kafka.connect.transforms.RegexRouter"),
    ):
        assert name in dist.entry_points.select(group=group).names
