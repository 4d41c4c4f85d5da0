"""The CLI's contract: every subcommand has --help with an example; errors are one line."""

import json
import platform
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
    assert data["python"] == platform.python_version()  # 3.12 or 3.13


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


def test_report_of_a_directory_without_results_is_one_line(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"iconbench: error: {tmp_path}: no summary.json; 'iconbench suite")


def test_stack_components_and_the_commits_of_a_nightly(tmp_path, capsys):
    assert cli.main(["stack", "components", "icon4py"]) == 0
    line = capsys.readouterr().out.split()
    assert line[:3] == ["icon4py", "https://github.com/C2SM/icon4py.git", "model/common"]
    stack = tmp_path / "stack.json"
    shas = {"gt4py": "1" * 40, "dace": "2" * 40, "icon4py": "3" * 40}
    stack.write_text(json.dumps({"schema": "iconbench-nightly-stack", "commits": shas}))
    assert cli.main(["stack", "commits", str(stack)]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{k} {v}" for k, v in shas.items()]
    assert cli.main(["stack", "commits", str(stack), "--component", "dace"]) == 0
    assert capsys.readouterr().out == "2" * 40 + "\n"
    stack.write_text(json.dumps({"commits": {**shas, "dace": "main"}}))
    assert cli.main(["stack", "commits", str(stack)]) == 2
    assert "commits.dace: expected a commit hash, got 'main'" in capsys.readouterr().err
