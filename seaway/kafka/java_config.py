"""Java client security settings, as Kafka users write them, for librdkafka.

Connect workers, connectors and MirrorMaker configurations carry the Java clients'
security settings (``security.protocol``, ``sasl.mechanism``, ``sasl.jaas.config``,
``ssl.truststore.*``, ``ssl.keystore.*``), which librdkafka names differently or does not
know. :func:`to_librdkafka` translates them; a setting librdkafka cannot honour is an error
that names it, never dropped. Settings librdkafka already knows pass through unchanged.

>>> to_librdkafka({"bootstrap.servers": "b:9093", "security.protocol": "SASL_SSL",
...     "sasl.mechanism": "SCRAM-SHA-512", "sasl.jaas.config":
...     'org.apache.kafka.common.security.scram.ScramLoginModule required '
...     'username="alice" password="alice-secret";'})  # doctest: +NORMALIZE_WHITESPACE
{'bootstrap.servers': 'b:9093', 'security.protocol': 'SASL_SSL',
 'sasl.mechanism': 'SCRAM-SHA-512', 'sasl.username': 'alice', 'sasl.password': 'alice-secret'}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from seaway.config import ConfigException
from seaway.security.jaas import parse_jaas_config
from seaway.security.tls import pkcs12_to_pem, store_type

__all__ = ["to_librdkafka"]

_LOGIN_MODULES: Final = {
    "org.apache.kafka.common.security.plain.PlainLoginModule": ("PLAIN",),
    "org.apache.kafka.common.security.scram.ScramLoginModule": ("SCRAM-SHA-256", "SCRAM-SHA-512"),
}
# Java settings with no librdkafka counterpart that are harmless at these values.
_JAVA_DEFAULTS: Final = {
    "ssl.protocol": ("TLS", "TLSv1.2", "TLSv1.3"),
    "ssl.enabled.protocols": ("TLSv1.2,TLSv1.3", "TLSv1.2", "TLSv1.3", "TLSv1.3,TLSv1.2"),
    "ssl.keymanager.algorithm": ("SunX509", "PKIX"),
    "ssl.trustmanager.algorithm": ("PKIX",),
    "ssl.secure.random.implementation": ("",),
    "ssl.provider": ("",),
}


def _jaas(value: str) -> dict[str, str]:
    """``sasl.username``/``sasl.password`` of a PLAIN or SCRAM ``sasl.jaas.config``."""
    module = parse_jaas_config(value)
    if module.name not in _LOGIN_MODULES:
        raise ConfigException(
            f"sasl.jaas.config uses {module.name}, which librdkafka cannot "
            "honour: use org.apache.kafka.common.security.plain.PlainLoginModule or "
            '...scram.ScramLoginModule with username="..." password="..."'
        )
    options = module.options
    if "username" not in options or "password" not in options:
        raise ConfigException(f"sasl.jaas.config ({module.name}) needs username=\"...\" and "
                              "password=\"...\"")  # fmt: skip
    return {"sasl.username": options["username"], "sasl.password": options["password"]}


def to_librdkafka(config: Mapping[str, Any]) -> dict[str, str]:
    """*config* with the Java clients' security settings in librdkafka's names."""
    java = {k: str(v) for k, v in config.items() if v is not None}
    out: dict[str, str] = {}
    for key, value in java.items():
        if key in _JAVA_DEFAULTS:
            if value not in _JAVA_DEFAULTS[key]:
                raise ConfigException(f"{key}={value} cannot be honoured by librdkafka: remove "
                                      "it or set it to its default")  # fmt: skip
        elif key == "sasl.jaas.config":
            out.update(_jaas(value))
        elif key == "ssl.endpoint.identification.algorithm":
            out[key] = "none" if value == "" else value
        elif key.startswith(("ssl.truststore.", "ssl.keystore.")) or key == "ssl.key.password":
            continue  # below, together
        else:
            out[key] = value
    _truststore(java, out)
    _keystore(java, out)
    return out


def _truststore(java: Mapping[str, str], out: dict[str, str]) -> None:
    kind, location = store_type(java, "truststore"), java.get("ssl.truststore.location")
    if "ssl.truststore.certificates" in java:
        out["ssl.ca.pem"] = java["ssl.truststore.certificates"]
    elif location and kind == "PEM":
        out["ssl.ca.location"] = location
    elif location:  # PKCS12: librdkafka reads CA certificates as PEM only
        _, certs = pkcs12_to_pem(location, java.get("ssl.truststore.password"), "truststore")
        out["ssl.ca.pem"] = certs.decode()


def _keystore(java: Mapping[str, str], out: dict[str, str]) -> None:
    kind, location = store_type(java, "keystore"), java.get("ssl.keystore.location")
    if "ssl.keystore.key" in java or "ssl.keystore.certificate.chain" in java:
        out["ssl.key.pem"] = java.get("ssl.keystore.key", "")
        out["ssl.certificate.pem"] = java.get("ssl.keystore.certificate.chain", "")
    elif location and kind == "PEM":
        out["ssl.key.location"] = out["ssl.certificate.location"] = location
    elif location:
        out["ssl.keystore.location"] = location
        if "ssl.keystore.password" in java:
            out["ssl.keystore.password"] = java["ssl.keystore.password"]
    if "ssl.key.password" in java:
        out["ssl.key.password"] = java["ssl.key.password"]
