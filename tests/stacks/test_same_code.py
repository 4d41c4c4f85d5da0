"""Two commits hold the same code when each file that differs has the same syntax tree: what
``iconbench continuous`` answers up front without exporting or measuring anything."""

from __future__ import annotations

import subprocess

from iconbench.stacks import trees


def _commit(repo, files: dict[str, str], message: str) -> str:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", message], check=True, capture_output=True)
    done = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    return done.stdout.strip()


def test_comments_and_layout_are_the_same_code_anything_else_is_not(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    base = _commit(tmp_path, {"pkg/a.py": "def f(x):\n    return x + 1\n", "pkg/t.json": "{}"}, "a")
    comment = _commit(tmp_path, {"pkg/a.py": "# why\ndef f(x):\n\n    return x + 1  # +1\n"}, "b")
    assert trees.same_code(tmp_path, base, comment)
    assert trees.same_code(tmp_path, base, base)
    code = _commit(tmp_path, {"pkg/a.py": "def f(x):\n    return x + 2\n"}, "c")
    assert not trees.same_code(tmp_path, base, code)
    assert not trees.same_code(tmp_path, comment, code)
    data = _commit(tmp_path, {"pkg/a.py": "def f(x):\n    return x + 1\n", "pkg/t.json": "[]"}, "d")
    assert not trees.same_code(tmp_path, base, data)  # not Python: its bytes count
    added = _commit(tmp_path, {"pkg/t.json": "{}", "pkg/b.py": "# only a comment\n"}, "e")
    assert not trees.same_code(tmp_path, base, added)  # a file more is a difference
