"""ConnectorOffsetsApi alone, over a herder state of memory stores (source connectors)."""

from __future__ import annotations

import pytest

from seaway.connect.api.errors import NotFoundError
from seaway.connect.runtime.errors import BadRequestError
from seaway.connect.runtime.herder_state import HerderState
from seaway.connect.runtime.offsets_api import ALTERED, RESET, ConnectorOffsetsApi
from seaway.connect.runtime.storage import TargetState

SOURCE = {"name": "src", "connector.class": "FileStreamSource", "file": "in.txt", "topic": "t"}
PARTITION = {"filename": "in.txt"}


def test_offsets_change_only_while_stopped(herder_state: HerderState) -> None:
    api = ConnectorOffsetsApi(herder_state)
    with pytest.raises(NotFoundError, match="Connector src not found"):
        api.connector_offsets("src")
    herder_state.configs.put_connector_config("src", SOURCE)
    entry = {"partition": PARTITION, "offset": {"position": 5}}
    with pytest.raises(BadRequestError, match="must be in the STOPPED state"):
        api.alter_connector_offsets("src", [entry])
    herder_state.configs.put_target_state("src", TargetState.STOPPED)
    assert api.alter_connector_offsets("src", [entry]) == ALTERED
    assert api.connector_offsets("src") == {"offsets": [entry]}
    assert herder_state.offsets.connector_offsets("src")  # written to the store
    assert api.reset_connector_offsets("src") == RESET
    assert api.connector_offsets("src") == {"offsets": []}


def test_the_connector_checks_the_offsets(herder_state: HerderState) -> None:
    herder_state.configs.put_connector_config("src", SOURCE, TargetState.STOPPED)
    api = ConnectorOffsetsApi(herder_state)
    with pytest.raises(BadRequestError, match="should be a non-negative value"):
        api.alter_connector_offsets("src", [{"partition": PARTITION, "offset": {"position": -1}}])
    with pytest.raises(BadRequestError, match="Source partitions may not be null"):
        api.alter_connector_offsets("src", [{"partition": None, "offset": None}])
    assert api.connector_offsets("src") == {"offsets": []}
