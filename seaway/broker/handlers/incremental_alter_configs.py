"""IncrementalAlterConfigs (44): SET, DELETE, APPEND and SUBTRACT single topic configs.

Authorized as AlterConfigs: ALTER_CONFIGS on each resource (:func:`alter_resources`).
"""

from __future__ import annotations

from typing import Any

from seaway.broker.handlers.alter_configs import Overrides, alter_resources
from seaway.broker.handlers.registry import RequestContext, handles
from seaway.broker.log.config import TOPIC_CONFIG_DEF
from seaway.config import Type
from seaway.config.types import convert_to_string
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode, KafkaError

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3


def _as_list(overrides: Overrides, name: str) -> list[str]:
    key = TOPIC_CONFIG_DEF.config_keys.get(name)
    if key is None or key.type is not Type.LIST:
        raise KafkaError(
            ErrorCode.invalid_config, f"{name} is not a list config: cannot APPEND or SUBTRACT"
        )
    current = overrides.get(name)
    if current is None:
        return list(key.default_value or [])
    return [v.strip() for v in current.split(",") if v.strip()]


@handles(ApiKey.INCREMENTAL_ALTER_CONFIGS, max_version=1)
async def incremental_alter_configs(ctx: RequestContext) -> Any:
    def apply(overrides: Overrides, resource: Any) -> Overrides:
        for c in resource.configs:
            if c.config_operation == SET:
                if c.value is None:
                    raise KafkaError(
                        ErrorCode.invalid_config, f"Null value not supported for {c.name}"
                    )
                overrides[c.name] = c.value
            elif c.config_operation == DELETE:
                overrides.pop(c.name, None)
            elif c.config_operation in (APPEND, SUBTRACT):
                values = _as_list(overrides, c.name)
                items = [v.strip() for v in (c.value or "").split(",") if v.strip()]
                if c.config_operation == APPEND:
                    values += [v for v in items if v not in values]
                else:
                    values = [v for v in values if v not in items]
                overrides[c.name] = convert_to_string(values, Type.LIST) or ""
            else:
                raise KafkaError(
                    ErrorCode.invalid_request, f"Unknown config operation {c.config_operation}"
                )
        return overrides

    return alter_resources(ctx, apply)
