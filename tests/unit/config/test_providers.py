"""Config providers: Kafka's file, directory and env providers, the ${provider:path:key}
transformer, and the reverse transform that keeps secrets out of stored task configs."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from seaway.config import ConfigException
from seaway.config.providers import (
    DIRECTORY_PROVIDER,
    ENV_PROVIDER,
    FILE_PROVIDER,
    ConfigTransformer,
    reverse_transform,
)


def _transformer(tmp_path: Path, **params: str) -> ConfigTransformer:
    worker = {"config.providers": "file, directory,env",
              "config.providers.file.class": FILE_PROVIDER,
              "config.providers.directory.class": DIRECTORY_PROVIDER,
              "config.providers.env.class": ENV_PROVIDER}  # fmt: skip
    worker.update({f"config.providers.{k.replace('__', '.')}": v for k, v in params.items()})
    return ConfigTransformer.from_worker(worker)


def test_file_directory_and_env_references(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    secrets = tmp_path / "secrets.properties"
    secrets.write_text("db.password=p@ss:word\nuser = reader\n", encoding="utf-8")
    (tmp_path / "mounted").mkdir()
    (tmp_path / "mounted" / "token").write_text("t0ken", encoding="utf-8")
    monkeypatch.setenv("SEAWAY_TEST_REGION", "eu")
    config = {
        "connection.password": f"${{file:{secrets}:db.password}}",
        "connection.url": f"jdbc:mysql://db/x?user=${{file:{secrets}:user}}&region=${{env:SEAWAY_TEST_REGION}}",
        "token": f"${{directory:{tmp_path / 'mounted'}:token}}",
        "plain": "no reference",
        "missing": f"${{file:{secrets}:nope}}",
        "unknown": "${vault:secret/db:password}",
    }  # fmt: skip
    with caplog.at_level(logging.WARNING):
        resolved = _transformer(tmp_path).transform(config)
    assert resolved == {
        "connection.password": "p@ss:word",
        "connection.url": "jdbc:mysql://db/x?user=reader&region=eu",
        "token": "t0ken",
        "plain": "no reference",
        "missing": config["missing"],  # left as written, as Kafka does
        "unknown": "${vault:secret/db:password}",
    }
    assert "could not be resolved" in caplog.text and "p@ss:word" not in caplog.text


def test_allowed_paths_and_allowlist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inside, outside = tmp_path / "in", tmp_path / "out"
    inside.mkdir()
    outside.mkdir()
    for folder in (inside, outside):
        (folder / "s.properties").write_text("k=v\n", encoding="utf-8")
    monkeypatch.setenv("SEAWAY_OK", "yes")
    monkeypatch.setenv("SEAWAY_NO", "no")
    transformer = _transformer(tmp_path, file__param__allowed__paths=str(inside),
                               env__param__allowlist__pattern="SEAWAY_OK")  # fmt: skip
    got = transformer.transform({
        "a": f"${{file:{inside}/s.properties:k}}", "b": f"${{file:{outside}/s.properties:k}}",
        "c": "${env:SEAWAY_OK}", "d": "${env:SEAWAY_NO}"})  # fmt: skip
    assert got["a"] == "v" and got["b"].startswith("${file:")
    assert got["c"] == "yes" and got["d"] == "${env:SEAWAY_NO}"
    with pytest.raises(ConfigException, match=r"allowed\.paths must be absolute"):
        _transformer(tmp_path, file__param__allowed__paths="relative/dir")


def test_unknown_provider_class_and_reverse_transform() -> None:
    with pytest.raises(ConfigException, match=r"config\.providers\.vault\.class"):
        vault = {"config.providers": "vault", "config.providers.vault.class": "com.example.V"}
        ConfigTransformer.from_worker(vault)
    raw = {"connection.password": "${file:/s:pw}", "mode": "bulk"}
    task = {"connection.password": "hunter2", "mode": "bulk", "tables": '["t"]'}
    assert reverse_transform(raw, task) == {
        "connection.password": "${file:/s:pw}", "mode": "bulk", "tables": '["t"]'}  # fmt: skip


@pytest.mark.parametrize(
    "name", ["EnvVarConfigProvider", "EnvVar", "seaway.config.providers:EnvVarConfigProvider"]
)
def test_provider_aliases_and_python_paths(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEAWAY_ALIAS", "found")
    worker = {"config.providers": "env", "config.providers.env.class": name}
    transformer = ConfigTransformer.from_worker(worker)
    assert transformer.transform({"k": "${env:SEAWAY_ALIAS}"}) == {"k": "found"}
