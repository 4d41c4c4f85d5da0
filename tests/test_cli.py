"""The CLI's contract: every subcommand has --help with an example; errors are one line."""

import json
import subprocess
import sys

import pytest

from iconbench import cli, provenance
from iconbench.errors import IconbenchError


def test_every_command_has_help_with_example(capsys):
    names = list(cli.commands())
    assert "info" in names
    for name in names:
        with pytest.raises(SystemExit) as exit_info:
            cli.main([name, "--help"])
        assert exit_info.value.code == 0
        out = capsys.readouterr().out
        assert "examples:" in out, name
        assert f"iconbench {name}" in out.split("examples:")[1], name


def test_info_reports_installed_versions(capsys):
    assert cli.main(["info", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    import dace
    import gt4py

    assert data["packages"]["gt4py"] == gt4py.__version__
    assert data["packages"]["dace"] == dace.__version__
    assert data["python"].startswith("3.12")


def test_user_error_is_one_line(monkeypatch, capsys):
    def broken(_args):
        raise IconbenchError("baseline file 'x.json' is missing; run 'iconbench baseline list'")

    monkeypatch.setattr(cli.commands()["info"], "run", classmethod(lambda cls, a: broken(a)))
    assert cli.main(["info"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("iconbench: error: baseline file 'x.json' is missing")


def test_console_script_runs_in_a_subprocess():
    out = subprocess.run(
        [sys.executable, "-m", "iconbench", "info"], capture_output=True, text=True, check=True
    ).stdout
    versions = provenance.package_versions()
    assert f"{'gt4py':<30} {versions['gt4py']}\n" in out
    assert f"{'icon4py-common':<30} {versions['icon4py-common']}\n" in out
