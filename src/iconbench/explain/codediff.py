"""The generated code of base against head as a unified diff, cut to a size a comment holds.

Files are paired by their path in the build folder; a file whose name changed (a new hash
in it) is paired with the one unpaired file of the other side that has its suffix. The
excerpt takes the files with the most changed lines first, each as ``diff -u`` shows it
with 3 lines of context, and stops at :data:`MAX_LINES` lines or :data:`MAX_CHARS`
characters. A generated line longer than :data:`MAX_LINE` characters (gtfn writes whole
call chains on one line) is cut: its beginning stays and, where a removed line is replaced
by an added one, each span in which the two differ, with some context, so that the excerpt
shows what changed. The counts of added and removed lines are of the whole diff.
"""

from __future__ import annotations

import difflib
import pathlib
from collections.abc import Sequence

from iconbench.explain.sources import Sources
from iconbench.gate.why import CodeDiff, FileChange

MAX_LINES = 60
MAX_CHARS = 6000
MAX_LINE = 160


def _pairs(base: dict[str, str], head: dict[str, str]) -> list[tuple[str | None, str | None]]:
    """(base path, head path) of every file; ``None`` on the side that lacks it.

    >>> _pairs({"a.cpp": "", "p_1.cu": ""}, {"a.cpp": "", "p_2.cu": "", "new.h": ""})
    [('a.cpp', 'a.cpp'), ('p_1.cu', 'p_2.cu'), (None, 'new.h')]
    """
    pairs: list[tuple[str | None, str | None]] = [(p, p) for p in sorted(base) if p in head]
    left = sorted(p for p in base if p not in head)
    right = sorted(p for p in head if p not in base)
    for suffix in sorted({pathlib.PurePath(p).suffix for p in left + right}):
        olds = [p for p in left if pathlib.PurePath(p).suffix == suffix]
        news = [p for p in right if pathlib.PurePath(p).suffix == suffix]
        if len(olds) == 1 and len(news) == 1:
            pairs.append((olds[0], news[0]))
            left.remove(olds[0])
            right.remove(news[0])
    return pairs + [(p, None) for p in left] + [(None, p) for p in right]


#: Characters of a cut line's beginning kept, and of context around each change in it.
LEAD = 44
CONTEXT = 16


def _windows(length: int, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The parts of a line to show: its beginning and each changed span with context."""
    wanted = sorted(
        [(0, LEAD)] + [(max(0, a - CONTEXT), min(length, b + CONTEXT)) for a, b in spans]
    )
    merged: list[tuple[int, int]] = []
    for start, end in wanted:
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _cut(line: str, spans: Sequence[tuple[int, int]] = ()) -> str:
    """``line`` (its diff mark first) in at most :data:`MAX_LINE` characters.

    A longer line keeps its beginning (a reader still sees which statement it is) and, for
    a changed line, each changed span of it with some context, the parts joined by ``…``.
    """
    line = line.rstrip("\n")
    if len(line) <= MAX_LINE:
        return line
    if not spans:
        return line[: MAX_LINE - 1] + "…"
    mark, body = line[:1], line[1:]
    text, shown_to = "", 0
    for start, end in _windows(len(body), list(spans)):
        text += ("…" if start > shown_to else "") + body[start:end]
        shown_to = end
    text += "…" if shown_to < len(body) else ""
    return mark + (text if len(text) < MAX_LINE else text[: MAX_LINE - 2] + "…")


def _shown(lines: list[str]) -> list[str]:
    """A file's diff lines as the excerpt shows them: long replaced lines cut where they differ.

    >>> old = "-x = f(" + "a" * 100 + "b" * 100 + ")"
    >>> new = "+x = f((" + "a" * 100 + "b" * 100 + ") * 0.5)"
    >>> for line in _shown([old, new]):
    ...     print(line)
    -x = f(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…bbbbbbbbbbbbbbb)
    +x = f((aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…bbbbbbbbbbbbbbb) * 0.5)
    """
    shown = []
    index = 0

    def run(mark: str, other: str) -> list[str]:
        nonlocal index
        found = []
        while (
            index < len(lines)
            and lines[index].startswith(mark)
            and not lines[index].startswith(other)
        ):
            found.append(lines[index])
            index += 1
        return found

    while index < len(lines):
        removed, added = run("-", "---"), run("+", "+++")
        if not removed and not added:
            shown.append(_cut(lines[index]))
            index += 1
            continue
        spans: list[tuple[list, list]] = [([], []) for _ in range(max(len(removed), len(added)))]
        for n, (old, new) in enumerate(zip(removed, added, strict=False)):
            matcher = difflib.SequenceMatcher(None, old[1:], new[1:], autojunk=False)
            for tag, a1, a2, b1, b2 in matcher.get_opcodes():
                if tag != "equal":
                    spans[n][0].append((a1, a2))
                    spans[n][1].append((b1, b2))
        shown += [_cut(line, spans[n][0]) for n, line in enumerate(removed)]
        shown += [_cut(line, spans[n][1]) for n, line in enumerate(added)]
    return shown


def diff(base: Sources, head: Sources) -> CodeDiff:
    r"""The files that differ, their counts, and the bounded excerpt.

    >>> a = Sources({"p.hpp": "int b = 32;\nint c = 8;\n"}, "f1", "build folder")
    >>> b = Sources({"p.hpp": "int b = 64;\nint c = 8;\n"}, "f2", "build folder")
    >>> d = diff(a, b)
    >>> d.files, d.changed_lines
    ((FileChange(path='p.hpp', added=1, removed=1, status='changed'),), 2)
    >>> print(d.excerpt)
    --- base/p.hpp
    +++ head/p.hpp
    @@ -1,2 +1,2 @@
    -int b = 32;
    +int b = 64;
     int c = 8;
    """
    changes = []
    for old, new in _pairs(base.files, head.files):
        before = base.files[old].splitlines(keepends=True) if old else []
        after = head.files[new].splitlines(keepends=True) if new else []
        if before == after:
            continue
        lines = list(
            difflib.unified_diff(
                before, after, f"base/{old or new}", f"head/{new or old}", n=3, lineterm="\n"
            )
        )
        added = sum(1 for ln in lines[2:] if ln.startswith("+"))
        removed = sum(1 for ln in lines[2:] if ln.startswith("-"))
        status = "new" if old is None else "gone" if new is None else "changed"
        path = new if old is None or old == new else f"{old} → {new}"
        changes.append((FileChange(path or "", added, removed, status), lines))
    changes.sort(key=lambda item: (-(item[0].added + item[0].removed), item[0].path))
    excerpt: list[str] = []
    size = shown = 0
    for _, lines in changes:
        for text in _shown(lines):
            if len(excerpt) >= MAX_LINES or size + len(text) + 1 > MAX_CHARS:
                break
            excerpt.append(text)
            size += len(text) + 1
            if text[:1] in "+-" and not text.startswith(("+++", "---")):
                shown += 1
    return CodeDiff(
        base=base.fingerprint,
        head=head.fingerprint,
        files=tuple(change for change, _ in changes),
        excerpt="\n".join(excerpt),
        changed_lines=sum(c.added + c.removed for c, _ in changes),
        shown_lines=shown,
        source=base.origin if base.origin == head.origin else f"{base.origin} / {head.origin}",
    )
