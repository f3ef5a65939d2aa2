"""What the admin command tests share: a command's exit code and output, and the
``--command-config`` file of a SASL/PLAIN user of :mod:`tests.broker.acl_cluster`'s broker."""

from __future__ import annotations

from pathlib import Path

import pytest

from seaway.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``seaway *argv``: its exit code, standard output and standard error."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def command_config(directory: Path, user: str) -> str:
    """``directory/<user>.properties``: Java client settings logging *user* in."""
    path = directory / f"{user}.properties"
    path.write_text(
        "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="{user}" password="{user}-secret";\n'
    )
    return str(path)
