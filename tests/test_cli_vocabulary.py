"""One vocabulary: the same option for the same concept in every command, help everywhere.

The parsers are introspected, so a command added later (``compare``, ``comment``,
``publish``) is checked without editing this file.
"""

from __future__ import annotations

import argparse

import pytest

from iconbench import cli
from iconbench.cli import options


def _parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """``(name, parser)`` of every command and every action of a command with actions."""
    found = []

    def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
        found.append((prefix, parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(f"{prefix} {name}".strip(), sub)

    top = cli.build_parser()
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                walk(name, sub)
    return found


PARSERS = _parsers()


def _visible(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if a.option_strings
        and a.help != argparse.SUPPRESS
        and not isinstance(a, argparse._HelpAction)
    ]


@pytest.mark.parametrize(("name", "parser"), PARSERS, ids=[n for n, _ in PARSERS])
def test_one_option_name_per_concept(name, parser):
    for action in _visible(parser):
        canonical = options.VOCABULARY.get(action.dest)
        if canonical is not None:
            assert action.option_strings == [canonical], (name, action.option_strings)


@pytest.mark.parametrize(("name", "parser"), PARSERS, ids=[n for n, _ in PARSERS])
def test_every_option_has_help(name, parser):
    for action in parser._actions:
        if action.help == argparse.SUPPRESS or isinstance(action, argparse._SubParsersAction):
            continue
        assert (action.help or "").strip(), f"{name}: {action.option_strings or action.dest}"


@pytest.mark.parametrize(("name", "parser"), PARSERS, ids=[n for n, _ in PARSERS])
def test_every_command_and_action_has_an_example(name, parser):
    epilog = parser.epilog or ""
    assert "examples:" in epilog, name
    assert f"iconbench {name}" in epilog.split("examples:")[1], name
    # Actions given as a positional choice (stack show|resolve) each have one too.
    for action in parser._actions:
        if not action.option_strings and action.dest == "action" and action.choices:
            for choice in action.choices:
                assert f"iconbench {name} {choice}" in epilog, f"{name} {choice}"


def test_the_shared_options_mean_the_same_everywhere():
    """Where a concept appears, it has the same metavar (and so the same form)."""
    metavars: dict[str, set[str]] = {}
    for _, parser in PARSERS:
        for action in _visible(parser):
            if action.dest in ("programs", "backends", "jobs", "store", "out"):
                metavars.setdefault(action.dest, set()).add(action.metavar)
    for dest, seen in metavars.items():
        assert seen == {options.METAVARS[dest]}, (dest, seen)
    assert {"programs", "backends", "jobs", "out"} <= metavars.keys()


def _parse(argv):
    return cli.build_parser().parse_args(argv)


def test_backends_are_a_comma_list_and_repeatable(capsys):
    assert _parse(["run"]).backends == ("embedded", "gtfn_cpu")
    assert _parse(
        ["run", "--backends", "gtfn_cpu,dace_cpu", "--backends", "embedded"]
    ).backends == (
        "gtfn_cpu",
        "dace_cpu",
        "embedded",
    )
    assert capsys.readouterr().err == ""


def test_jobs_is_compile_processes_n_at_least_1(capsys):
    assert _parse(["run", "--jobs", "3"]).jobs == 3
    assert _parse(["run"]).jobs is None
    with pytest.raises(SystemExit):
        _parse(["run", "--jobs", "0"])
    assert "argument --jobs:" in capsys.readouterr().err
    assert _parse(["verify", "--backends", "embedded", "--no-precompile"]).no_precompile


def test_store_goes_after_the_action(tmp_path, capsys):
    assert _parse(["baseline", "list", "--store", str(tmp_path)]).store == tmp_path
    with pytest.raises(SystemExit):
        _parse(["baseline", "--store", str(tmp_path), "list"])


def test_names_are_checked_without_importing_gt4py():
    import subprocess
    import sys

    code = (
        "import sys; from iconbench.cli import options; "
        "options.check_backends('gtfn_cpu,dace_gpu'); options.check_grid('tiny'); "
        "assert options.select_cases('compute_tangential_wind') == "
        "['compute_tangential_wind[default]']; print('gt4py' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "False"
