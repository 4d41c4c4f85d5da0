"""A local dry run of the whole pull-request check on the CPU (``ci/pr-check --dry-run``).

A fake icon4py repository holds a copy of the installed dycore package; its pull request edits
``compute_tangential_wind.py``. The check (``iconbench check``) selects the programs that use
that module, precompiles base and head (each commit's sources first on this Python's path),
measures them in alternating fresh processes, gates them, posts the comment and status to a
fake GitHub on 127.0.0.1 and renders the site.
"""

import json
import os
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
STENCIL = "model/atmosphere/dycore/src/icon4py/model/atmosphere/dycore/stencils"
TOKEN = "ghp_iconbenchPRFLOW0123456789secret"


@pytest.fixture(scope="module")
def fake_icon4py(tmp_path_factory, git):
    """main: a copy of the installed dycore; pr: one comment added to a stencil module."""
    from tests.ci.installed_repos import main_of

    repo = main_of("icon4py", tmp_path_factory.mktemp("pr-flow") / "icon4py", git)
    git(repo, "checkout", "-qb", "pr")
    stencil = repo / STENCIL / "compute_tangential_wind.py"
    stencil.write_text(stencil.read_text() + "\n# reviewed\n")
    git(repo, "commit", "-qam", "compute_tangential_wind: a comment")
    return repo, git(repo, "rev-parse", "main"), git(repo, "rev-parse", "pr")


@pytest.fixture(scope="module")
def pr_check(fake_icon4py, tmp_path_factory):
    """Run ``ci/pr-check --dry-run`` once, to the site, on one program."""
    from tests.bot.fake_github import FakeGitHub, State

    repo, base, head = fake_icon4py
    out = tmp_path_factory.mktemp("pr-check")
    state = State(owner="C2SM", repo="icon4py", number=7, head_sha=head, token=TOKEN)
    with FakeGitHub(state) as github:
        env = dict(
            os.environ,
            ICONBENCH_PYTHON=sys.executable,
            ICONBENCH_GITHUB_URL=github.url,
            ICONBENCH_GITHUB_TOKEN=TOKEN,
            PYTHONPATH=os.pathsep.join(
                filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")])
            ),
        )
        env.pop("GITHUB_TOKEN", None)
        done = subprocess.run(
            ["bash", str(REPO / "ci" / "pr-check"), "--component", "icon4py", "--repo",
             str(repo), "--base", "main", "--head", "pr", "--out", str(out), "--repository",
             "C2SM/icon4py", "--pr", "7", "--dry-run",
             "--programs", r"^compute_tangential_wind\["],
            env=env, check=False, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
    return done, out, state, base, head


def test_the_selection_names_the_programs_of_the_changed_module(fake_icon4py, tmp_path):
    repo, _, _ = fake_icon4py
    done = subprocess.run(
        ["bash", str(REPO / "ci" / "pr-check"), "--component", "icon4py", "--repo", str(repo),
         "--base", "main", "--head", "pr", "--out", str(tmp_path), "--until", "select"],
        env=dict(os.environ, ICONBENCH_PYTHON=sys.executable),
        check=False, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    selection = json.loads(done.stdout)
    assert selection["scope"] == "programs"
    assert "compute_tangential_wind" in selection["programs"]
    assert selection["changed_files"] == [f"{STENCIL}/compute_tangential_wind.py"]


def test_base_and_head_are_measured_interleaved_in_fresh_processes(pr_check):
    done, out, _, base, head = pr_check
    assert done.returncode in (0, 1), done.stderr[-3000:]
    check = json.loads((out / "check.json").read_text())
    assert (check["base"], check["head"]) == (base, head)
    assert list(check["phases"]) == [
        "select",
        "environments",
        "precompile",
        "measure",
        "gate",
        "comment",
        "site",
    ]
    # each side ran with its own commit's sources (exported once per commit, kept in the cache
    # at one path per commit, so the next check's programs keep their translations)
    from iconbench.buildcache import cache_root

    exported = {p.name for p in (cache_root() / "trees" / "icon4py").iterdir()}
    assert {base, head} <= exported
    assert not (out / "trees").exists()
    workers = {
        side: [json.loads(line)["worker"]
               for line in (out / side / "work" / "session.jsonl").read_text().splitlines()]
        for side in ("base", "head")
    }  # fmt: skip
    # two blocks, ABBA then BAAB: no side is measured wholly before the other
    assert workers == {
        "base": ["r01-base", "r04-base", "r06-base", "r07-base"],
        "head": ["r02-head", "r03-head", "r05-head", "r08-head"],
    }
    assert check["rounds"] == 8
    # a finished check keeps its rounds' logs, not the turn files its workers were driven by
    assert len(list((out / "rounds").glob("r0[1-8]-*.log"))) == 8
    assert not [p.name for p in out.rglob("*") if ".turn" in p.name]
    # the dry run measures while the builds compile, as a GPU check does (its turns' seconds
    # during the precompile are part of the turns')
    split = check["measure_split"]
    assert 0 <= split["during_precompile"] <= split["measuring"]
    # what each side met in the build cache: its one build, compiled now or found there
    for side in ("base", "head"):
        met = check["builds"][side]
        assert (met["pairs"], met["in_measuring"], met["linked"]) == (1, 0, 0)
        assert met["compiled"] + met["found"] == 1
    assert check["builds"]["compiled"] in (0, 1)  # a comment changes no code: one build at most
    # ... and one translation at most: the two checkouts' programs differ only in their source
    # paths, so the side that comes second finds the first's translation (no gt4py passes run)
    from iconbench.records.compilation import CompileLedger

    translated = [
        "gt4py passes" in (record.stages or {})
        for side in ("base", "head")
        for record in CompileLedger(out / side / "work" / "compile.jsonl").records()
    ]
    assert len(translated) == 2
    assert sum(translated) <= 1


def test_the_gate_the_bot_and_the_site_follow(pr_check):
    done, out, state, _, head = pr_check
    assert done.returncode in (0, 1), done.stderr[-3000:]
    summary = json.loads((out / "gate-summary.json").read_text())
    assert (summary["schema"], summary["version"]) == ("iconbench-gate-summary", 1)
    assert summary["verdict"] in ("pass", "regression")
    assert done.returncode == summary["exit_code"]
    # the gate compared processes, not samples of one process
    gated = [b for b in summary["benchmarks"] if b["gated"]]
    assert gated
    assert all(any("4+4 processes" in note for note in b["notes"]) for b in gated)
    # both sides are commits of icon4py (their links), and the tiny grid is no experiment's
    assert summary["head"]["component"] == summary["base"]["component"] == "icon4py"
    assert summary["openacc"] is None
    assert summary["openacc_note"].startswith("no ICON experiment ran on grid tiny")
    (comment,) = state.comments.values()
    assert "compute_tangential_wind" in comment["body"]
    assert "#### Against OpenACC\n\nNo ICON experiment ran on grid tiny" in comment["body"]
    assert state.statuses[-1]["sha"] == head
    expected = {"pass": "success", "regression": "failure"}[summary["verdict"]]
    assert state.statuses[-1]["state"] == expected
    assert (out / "site" / "index.html").exists()


def test_the_check_measures_no_granule(pr_check):
    """``--programs`` names programs: the check measures those cases and nothing else."""
    _, out, _, _, _ = pr_check
    for side in ("base", "head"):
        rows = [json.loads(line) for line in (out / side / "work" / "session.jsonl").open()]
        assert {row["case"] for row in rows} == {"compute_tangential_wind[default]"}


def test_until_precompile_puts_the_builds_in_the_cache_and_measures_nothing(fake_icon4py, tmp_path):
    """``--until precompile``: main's builds made before its pull requests' checks ask for them."""
    repo, base, _ = fake_icon4py
    out = tmp_path / "warm"
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "check", "--component", "icon4py", "--repo",
         str(repo), "--base", "main", "--head", "main", "--backends", "gtfn_cpu", "--grid",
         "tiny", "--programs", r"^compute_tangential_wind\[", "--until", "precompile",
         "--out", str(out)],
        check=False, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    check = json.loads((out / "check.json").read_text())
    assert list(check["phases"]) == ["select", "environments", "precompile"]
    assert (check["until"], check["base"], check["head"]) == ("precompile", base, base)
    # the host's Python speed, sampled while the compiles ran, beside its speed at the start
    during = check["host"]["precompile_python_us"]
    assert during["samples"] >= 1
    assert 0 < during["median"] < 10_000
    low, high = during["quartiles"]
    assert low <= during["median"] <= high
    assert f"{during['median']} µs during the precompile" in (out / "check.md").read_text()
    for side in ("base", "head"):
        met = check["builds"][side]
        assert met["pairs"] == 1
        assert met["compiled"] + met["found"] == 1
        assert not (out / side / "work" / "session.jsonl").exists()  # nothing measured
    assert "verdict" not in check
    assert not (out / "rounds").exists()


@pytest.mark.parametrize(("asked", "defined"), [("", False), ("1", True)])
def test_asv_defines_the_granules_only_when_asked(asked, defined):
    """``asv continuous main HEAD`` never starts the granules unless ICONBENCH_GRANULES=1."""
    probe = "import runpy, sys; module = runpy.run_path(sys.argv[1]); print('Granules' in module)"
    done = subprocess.run(
        [sys.executable, "-c", probe, str(REPO / "benchmarks" / "granules.py")],
        env=dict(os.environ, ICONBENCH_GRANULES=asked, ICONBENCH_CATALOG="0"),
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.stdout.strip().splitlines()[-1] == str(defined)


@pytest.mark.slow
def test_a_regression_with_a_failing_bot_exits_1_and_builds_the_site(tmp_path, git):
    """The gate's exit status survives a bot that cannot post, and the site is built anyway.

    A gt4py pull request adds 200 µs of host work to every program call (about 7x the host
    overhead of compute_tangential_wind on gtfn_cpu); the bot's token is refused (401).
    """
    from tests.bot.fake_github import FakeGitHub, State
    from tests.ci.installed_repos import main_of

    repo = main_of("gt4py", tmp_path / "gt4py", git)
    git(repo, "checkout", "-qb", "slow")
    decorator = repo / "src/gt4py/next/ffront/decorator.py"
    text = decorator.read_text()
    # the top of Program.__call__ (the one whose enable_jit falls back to the options)
    anchor = (
        "        if offset_provider is None:\n            offset_provider = {}\n        enable_jit"
        " = self.compilation_options.enable_jit if enable_jit is None else enable_jit\n"
    )
    assert text.count(anchor) == 1
    decorator.write_text(text.replace(
        anchor,
        "        import time as _t\n        _end = _t.perf_counter() + 200e-6\n"
        "        while _t.perf_counter() < _end:\n            pass\n" + anchor,
    ))  # fmt: skip
    git(repo, "commit", "-qam", "200 us more host work per call")
    head = git(repo, "rev-parse", "slow")
    state = State(owner="GridTools", repo="gt4py", number=9, head_sha=head, token=TOKEN)
    out = tmp_path / "check"
    with FakeGitHub(state) as github:
        env = dict(os.environ, ICONBENCH_PYTHON=sys.executable, ICONBENCH_GITHUB_URL=github.url,
                   ICONBENCH_GITHUB_TOKEN="ghp_refused0123456789")  # fmt: skip
        env.pop("GITHUB_TOKEN", None)
        done = subprocess.run(
            ["bash", str(REPO / "ci" / "pr-check"), "--component", "gt4py", "--repo", str(repo),
             "--base", "main", "--head", "slow", "--out", str(out), "--repository",
             "GridTools/gt4py", "--pr", "9", "--dry-run",
             "--programs", r"^compute_tangential_wind\["],
            env=env, check=False, capture_output=True, text=True, timeout=1200,
        )  # fmt: skip
    assert done.returncode == 1, done.stderr[-3000:]
    summary = json.loads((out / "gate-summary.json").read_text())
    assert summary["verdict"] == "regression"
    check = json.loads((out / "check.json").read_text())
    assert check["comment_exit"] == 2
    assert "the bot could not post" in done.stderr
    assert (out / "site" / "index.html").exists()
    assert state.comments == {}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"--programs": "compute_tangentail_wind"}, "nearest program names: compute_tangential"),
        ({"--base": "nosuchref"}, "'nosuchref' is no commit of"),
        ({"--repo": "/"}, "not a git repository"),
    ],
)
def test_bad_check_input_is_one_line(fake_icon4py, tmp_path, change, says):
    repo, _, _ = fake_icon4py
    args = {"--component": "icon4py", "--repo": str(repo), "--base": "main", "--head": "pr",
            "--out": str(tmp_path / "check"), "--backends": "gtfn_cpu", "--grid": "tiny",
            "--programs": "compute_tangential_wind"} | change  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "iconbench", "check", *(x for kv in args.items() for x in kv)],
        check=False, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()[-1:]
    assert says in line
    assert "Traceback" not in done.stderr
    assert not any((tmp_path / "check" / side).exists() for side in ("base", "head"))
