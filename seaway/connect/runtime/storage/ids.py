"""Task ids: a connector name and a task number (Kafka's ``ConnectorTaskId``)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ConnectorTaskId"]


@dataclass(frozen=True, slots=True, order=True)
class ConnectorTaskId:
    """Task *task* of connector *connector*; ``str()`` gives ``"<connector>-<task>"``.

    >>> str(ConnectorTaskId("local-file-source", 0))
    'local-file-source-0'
    >>> ConnectorTaskId.parse("my-connector-12")
    ConnectorTaskId(connector='my-connector', task=12)
    """

    connector: str
    task: int

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"

    @classmethod
    def parse(cls, text: str) -> ConnectorTaskId | None:
        """The id ``"<connector>-<task>"`` stands for, or None if it is not one."""
        connector, sep, number = text.rpartition("-")
        if not sep or not connector or not number.isascii() or not number.isdigit():
            return None
        return cls(connector, int(number))

    def to_json(self) -> dict[str, str | int]:
        """The REST entity: ``{"connector": "n", "task": 0}``."""
        return {"connector": self.connector, "task": self.task}
