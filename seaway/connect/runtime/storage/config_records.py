"""The records of the config topic, byte for byte as Kafka's ``KafkaConfigBackingStore``.

Keys are UTF-8 strings; values are schemaless JsonConverter output (null for deletions):

======================================  =================================================
key                                     value
======================================  =================================================
``connector-<name>``                    ``{"properties":{...}}``
``task-<name>-<n>``                     ``{"properties":{...}}``
``commit-<name>``                       ``{"tasks":N}``
``target-state-<name>``                 ``{"state":"PAUSED","state.v2":"STOPPED"}``
``restart-connector-<name>``            ``{"include-tasks":true,"only-failed":false}``
``tasks-fencing-<name>``                ``{"task-count":N}``
``session-key``                         ``{"key":"<base64>","algorithm":"HmacSHA256",...}``
``logger-cluster-<namespace>``          ``{"level":"DEBUG"}``
======================================  =================================================

>>> target_state_value(TargetState.STOPPED)
b'{"state":"PAUSED","state.v2":"STOPPED"}'
>>> commit_value(2)
b'{"tasks":2}'
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Final

from seaway.connect.runtime.storage import _json
from seaway.connect.runtime.storage.configs import RestartRequest, SessionKey, TargetState
from seaway.connect.runtime.storage.ids import ConnectorTaskId

__all__ = [
    "COMMIT_TASKS_PREFIX",
    "CONNECTOR_PREFIX",
    "LOGGER_CLUSTER_PREFIX",
    "RESTART_PREFIX",
    "SESSION_KEY_KEY",
    "TARGET_STATE_PREFIX",
    "TASK_COUNT_RECORD_PREFIX",
    "TASK_PREFIX",
    "commit_key",
    "commit_value",
    "config_value",
    "connector_key",
    "logger_key",
    "logger_level_value",
    "restart_key",
    "restart_value",
    "session_key_value",
    "target_state_key",
    "target_state_value",
    "task_count_key",
    "task_count_value",
    "task_key",
]

TARGET_STATE_PREFIX: Final = "target-state-"
CONNECTOR_PREFIX: Final = "connector-"
TASK_PREFIX: Final = "task-"
COMMIT_TASKS_PREFIX: Final = "commit-"
RESTART_PREFIX: Final = "restart-connector-"
TASK_COUNT_RECORD_PREFIX: Final = "tasks-fencing-"
SESSION_KEY_KEY: Final = "session-key"
LOGGER_CLUSTER_PREFIX: Final = "logger-cluster-"

INCLUDE_TASKS_FIELD: Final = "include-tasks"
ONLY_FAILED_FIELD: Final = "only-failed"


def connector_key(connector: str) -> str:
    return CONNECTOR_PREFIX + connector


def task_key(task: ConnectorTaskId) -> str:
    return f"{TASK_PREFIX}{task.connector}-{task.task}"


def commit_key(connector: str) -> str:
    return COMMIT_TASKS_PREFIX + connector


def target_state_key(connector: str) -> str:
    return TARGET_STATE_PREFIX + connector


def restart_key(connector: str) -> str:
    return RESTART_PREFIX + connector


def task_count_key(connector: str) -> str:
    return TASK_COUNT_RECORD_PREFIX + connector


def logger_key(namespace: str) -> str:
    return LOGGER_CLUSTER_PREFIX + namespace


def _encode(value: Any) -> bytes:
    data = _json.encode(value)
    assert data is not None
    return data


def config_value(config: Mapping[str, str | None]) -> bytes:
    """A connector or task config: ``{"properties":{...}}`` (keys in the given order)."""
    return _encode({"properties": dict(config)})


def commit_value(task_count: int) -> bytes:
    """The task commit: ``{"tasks":N}``."""
    return _encode({"tasks": task_count})


def target_state_value(state: TargetState) -> bytes:
    """``{"state":..,"state.v2":..}``; older workers know no STOPPED, so "state" says PAUSED."""
    legacy = TargetState.PAUSED if state is TargetState.STOPPED else state
    return _encode({"state": legacy.value, "state.v2": state.value})


def restart_value(request: RestartRequest) -> bytes:
    """``{"include-tasks":bool,"only-failed":bool}``."""
    return _encode(
        {INCLUDE_TASKS_FIELD: request.include_tasks, ONLY_FAILED_FIELD: request.only_failed}
    )


def task_count_value(task_count: int) -> bytes:
    """``{"task-count":N}``."""
    return _encode({"task-count": task_count})


def session_key_value(session_key: SessionKey) -> bytes:
    """``{"key":"<base64>","algorithm":..,"creation-timestamp":ms}``."""
    return _encode(
        {
            "key": base64.b64encode(session_key.key).decode("ascii"),
            "algorithm": session_key.algorithm,
            "creation-timestamp": session_key.creation_timestamp,
        }
    )


def logger_level_value(level: str) -> bytes:
    """``{"level":"DEBUG"}``."""
    return _encode({"level": level})
