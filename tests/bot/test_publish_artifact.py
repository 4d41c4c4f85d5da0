"""The publishing job (``ci/pr-publish``) reads a measuring run's artifact as untrusted data.

Each crafted artifact is refused in one line with nothing posted, or posted with the head's
text made inert: against the fake GitHub on 127.0.0.1, the posted body is asserted.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
from tests.bot.conftest import TOKEN
from tests.bot.fake_github import FakeGitHub, State

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "summary-cpu-embedded-tiny.json"
HEAD = "2db0abe231bc1d9c38138e7cea1b6198285cce02"
BASE = "b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0"
CRAFTED = (
    "x` | </details> ``` <img src=x onerror=alert(1)> [win](https://evil.example) "
    "![i](https://evil.example/i.png) @octocat <script>alert(1)</script>"
)


def _summary(**changes: object) -> dict:
    data = json.loads(EXAMPLE.read_text())
    data["head"]["commit"] = HEAD
    data["base"]["commit"] = BASE
    for key, value in changes.items():
        data["benchmarks"][0][key] = value
    return data


def _publish(tmp_path: pathlib.Path, results: pathlib.Path, state: State, *, fork: bool = False):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"workflow_run": {
        "event": "repository_dispatch", "head_sha": "f" * 40, "id": 7,
        "repository": {"full_name": "C2SM/iconbench"},
        "head_repository": {"full_name": "C2SM/iconbench"},
    }}))  # fmt: skip
    request = tmp_path / "request.txt"
    request.write_text(
        f"run=true\ncomponent=gt4py\nrepository=GridTools/gt4py\npr=1234\nbase={BASE}\n"
        f"head={HEAD}\nfull=false\ntrusted={str(not fork).lower()}\nsender=octo\n"
        f"fork={str(fork).lower()}\nanswer=\n"
    )
    with FakeGitHub(state) as github:
        env = {
            **os.environ,
            "ICONBENCH_PYTHON": sys.executable,
            "ICONBENCH_GITHUB_URL": github.url,
            "GITHUB_TOKEN": TOKEN,
        }
        return subprocess.run(
            ["bash", str(REPO / "ci" / "pr-publish"), str(event), "C2SM/iconbench",
             str(request), str(results)],
            env=env, capture_output=True, text=True, check=False, timeout=300,
        )  # fmt: skip


def _results(tmp_path: pathlib.Path, data: dict | str) -> pathlib.Path:
    results = tmp_path / "results"
    results.mkdir()
    text = data if isinstance(data, str) else json.dumps(data)
    (results / "gate-summary.json").write_text(text)
    return results


def _refused(done: subprocess.CompletedProcess, state: State, words: str) -> None:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr[-2000:]
    assert len(lines) == 1, done.stderr
    assert words in lines[0]
    assert "Traceback" not in done.stderr
    assert not state.comments
    assert not state.statuses


@pytest.fixture
def state() -> State:
    return State(head_sha=HEAD, token=TOKEN)


def test_a_sound_artifact_is_posted(tmp_path, state):
    done = _publish(tmp_path, _results(tmp_path, _summary()), state)
    assert done.returncode == 0, done.stderr[-2000:]
    (comment,) = state.comments.values()
    assert "apply_nabla2_to_w" in comment["body"]
    assert state.statuses[-1]["sha"] == HEAD


def test_an_oversized_artifact_is_refused(tmp_path, state):
    results = _results(tmp_path, _summary())
    with (results / "check.json").open("wb") as handle:  # sparse: no disk spent
        handle.truncate(65 * 2**20)
    done = _publish(tmp_path, results, state)
    _refused(done, state, "over 67108864 bytes")


@pytest.mark.parametrize(
    ("name", "words"),
    [("escape", "a symbolic link"), ("etc", "a symbolic link"), ("a b", "a name outside")],
)
def test_a_path_leaving_the_folder_is_refused(tmp_path, state, name, words):
    results = _results(tmp_path, _summary())
    target = {"escape": "../../outside.json", "etc": "/etc"}.get(name)
    if target is None:
        (results / name).write_text("{}")
    else:
        (results / name).symlink_to(target)
    done = _publish(tmp_path, results, state)
    _refused(done, state, words)


def test_a_non_numeric_ratio_is_refused(tmp_path, state):
    done = _publish(tmp_path, _results(tmp_path, _summary(ratio="1.5; rm -rf /")), state)
    _refused(done, state, "benchmarks[0].ratio: '1.5; rm -rf /' is not a number")


def test_a_summary_of_another_head_is_refused(tmp_path, state):
    data = _summary()
    data["head"]["commit"] = "c" * 40
    done = _publish(tmp_path, _results(tmp_path, data), state)
    _refused(done, state, f"{'c' * 12} is not {HEAD[:12]}")


def test_a_crafted_program_name_is_posted_inert(tmp_path, state):
    """Markdown, HTML, ``</details>``, a code fence and an @-mention in one program's name."""
    data = _summary(program=CRAFTED, variant="v|`x`", backend="embedded<b>", verdict="failed",
                    error="boom @octocat </details> [x](https://evil.example)")  # fmt: skip
    done = _publish(tmp_path, _results(tmp_path, data), state)
    assert done.returncode == 0, done.stderr[-2000:]
    (comment,) = state.comments.values()
    body = comment["body"]
    # the name, whole, in one code span whose fence (4) is longer than any backtick run in it
    # (3): GitHub shows a code span as text: no tag, link, image or mention; "|" escaped
    span = "````" + CRAFTED.replace("|", "\\|") + "````"
    row = next(line for line in body.splitlines() if line.startswith(f"| {span} |"))
    assert row.count(" | ") == 7  # the table's eight cells: the name closed none
    assert "`` v\\|`x` ``" in row
    assert "embedded&lt;b&gt;" in row
    # free text (the error): markup escaped, the mention and the link broken
    assert "boom @\u200coctocat &lt;/details&gt; \\[x\\](https\u200c://evil.example)" in body
    spans = re.findall(r"````.+?````", body)
    assert spans == [span.replace("````", "````", 1)[:-4] + "[v\\|`x`]````", span]
    outside = re.sub(r"````.+?````", "", body)
    for bad in ("<img", "<script", "<b>", "](https://evil", "@octocat", "\n```"):
        assert bad not in outside, bad
    assert outside.count("<details>") == outside.count("</details>") >= 1
