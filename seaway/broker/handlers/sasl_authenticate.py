"""SaslAuthenticate (36): one token of the exchange SaslHandshake v1 started.

A failure answers SASL_AUTHENTICATION_FAILED with Kafka's message, then the connection
closes; success makes the SASL identity the connection's principal. Sessions never expire
(``connections.max.reauth.ms`` is not supported), so the lifetime is 0.
"""

from __future__ import annotations

import logging
from typing import Any

from seaway.broker.handlers.registry import ZERO, RequestContext, handles
from seaway.protocol.api_keys import ApiKey
from seaway.protocol.errors import ErrorCode
from seaway.protocol.framing import make
from seaway.security.sasl import SaslAuthenticationError

log = logging.getLogger(__name__)


@handles(ApiKey.SASL_AUTHENTICATE, max_version=2)
async def sasl_authenticate(ctx: RequestContext) -> Any:
    session = ctx.session
    error, message, challenge = ErrorCode.none, None, b""
    if session.authenticated:
        error = ErrorCode.illegal_sasl_state
        message = "SaslAuthenticate request received after successful authentication"
    elif session.sasl is None or session.raw_tokens:
        error, session.close = ErrorCode.illegal_sasl_state, True
        message = "Unexpected Kafka request of type SASL_AUTHENTICATE during SASL handshake."
    else:
        try:
            challenge = session.sasl.evaluate(ctx.request.auth_bytes)
        except SaslAuthenticationError as e:
            error, message, session.close = ErrorCode.sasl_authentication_failed, str(e), True
            log.info("Failed authentication with %s (%s)", ctx.client_host, message)
        else:
            if session.sasl.complete:
                session.login(session.sasl.authorization_id)
    return make(
        ctx.response_class,
        error_code=error,
        error_message=message,
        auth_bytes=challenge,
        session_lifetime=ZERO,
    )
