"""The generated code of base against head as a unified diff, cut to a size a comment holds.

Files are paired by their path in the build folder; a file whose name changed (a new hash
in it) is paired with the one unpaired file of the other side that has its suffix. Lines are
compared with the names the code generators number in order of appearance normalised
(:func:`normalise`: gtfn's ``_fun_3``, ``_step_1``, ``_cs_2``, ``__iasfop_4``, DaCe's map,
state, tasklet and temporary ids): a functor added before the others renumbers every one
after it, and a diff of the raw text showed those renamed lines as changed before the real
change. A renumbering alone is no change (counted in ``renamed_lines``); the diff shows each
side's own lines, so the names a reader sees are the real ones. The excerpt takes the files
with the most changed lines first, each as ``diff -u`` shows it with 3 lines of context, and
stops at :data:`MAX_LINES` lines or :data:`MAX_CHARS` characters; :func:`full` is the whole
diff (the work folder keeps it). A generated line longer than :data:`MAX_LINE` characters
(gtfn writes whole call chains on one line) is cut: its beginning stays and, where a removed
line is replaced by an added one, each span in which the two differ, with some context, so
that the excerpt shows what changed. The counts of added and removed lines are of the whole
diff.
"""

from __future__ import annotations

import dataclasses
import difflib
import pathlib
import re
from collections.abc import Iterator, Sequence

from iconbench.explain.sources import Sources
from iconbench.records.summary import CodeDiff, FileChange

MAX_LINES = 60
MAX_CHARS = 6000
MAX_LINE = 160

#: Names the generators number in order of appearance: gtfn's functors, fold steps and
#: accumulators, common subexpressions and inlined field operators; DaCe's temporaries, maps,
#: states, tasklets, reductions and the nodes gt4py adds. A name counts when it starts with
#: one of these and a number follows (``map_100_fieldop_0_0_0``, ``tlet_3_multiplies``);
#: DaCe's gt4py nodes are numbered from the second on (``…_node``, ``…_node_0``).
GENERATED = re.compile(
    r"(?:_fun|_step|_acc|_i|_cs|__iasfop|(?:__map_fusion_)?gtir_tmp|reduce|map|state|tlet"
    r"|__gtx_\w*?_node)_\d"
)
_NODE = re.compile(r"^(__gtx_\w*?_node)(?:_\d+)?$")
_IDENTIFIER = re.compile(r"(?<!\w)[A-Za-z_]\w*")
_NUMBER = re.compile(r"_\d+(?=_|$)")


def normalise(line: str) -> str:
    """``line`` with each generated name's numbers replaced by ``N``.

    >>> normalise("return _step_1(_step_1(0.,0_c),1_c);")
    'return _step_N(_step_N(0.,0_c),1_c);'
    >>> normalise("reduce_0_0_35(__state, &__map_fusion_gtir_tmp_12[0], gtir_tmp_6_0);")
    'reduce_N_N_N(__state, &__map_fusion_gtir_tmp_N[0], gtir_tmp_N_N);'
    >>> normalise("pos_on_tplane_e_1 + __vt_K_range_0 + tlet_2_get_value__clone_0")
    'pos_on_tplane_e_1 + __vt_K_range_0 + tlet_N_get_value__clone_N'
    >>> normalise("double __gtx_write_remover_node, __gtx_write_remover_node_0;")
    'double __gtx_write_remover_node_N, __gtx_write_remover_node_N;'
    """

    def name(match: re.Match[str]) -> str:
        word = match.group(0)
        if node := _NODE.match(word):
            return node.group(1) + "_N"
        return _NUMBER.sub("_N", word) if GENERATED.match(word) else word

    return _IDENTIFIER.sub(name, line)


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


def _range(start: int, length: int) -> str:
    """A hunk's line range as ``diff -u`` writes it."""
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _unified(
    before: Sequence[str], after: Sequence[str], names: tuple[str, str], context: int = 3
) -> tuple[list[str], int]:
    r"""``diff -u`` of two files matched on their normalised lines; and the renamed lines.

    Lines equal once their generated names are normalised are context (head's text), so a
    renumbering alone is no hunk; the changed lines are each side's own. Line ends are kept.

    >>> base = ["struct _fun_0 {\n", "  x = _step_0(a);\n", "};\n"]
    >>> new = ["struct _fun_0 {\n", "  x = 2 * a;\n", "};\n"]
    >>> head = new + [line.replace("_0", "_1") for line in base]
    >>> lines, renamed = _unified(base, head, ("base/p.hpp", "head/p.hpp"), context=0)
    >>> print("".join(lines), end="")
    --- base/p.hpp
    +++ head/p.hpp
    @@ -0,0 +1,3 @@
    +struct _fun_0 {
    +  x = 2 * a;
    +};
    >>> renamed  # struct _fun_1, _step_1: the same lines, renamed
    2
    """
    wanted = [normalise(line) for line in before], [normalise(line) for line in after]
    matcher = difflib.SequenceMatcher(None, *wanted, autojunk=False)
    renamed = sum(
        before[i] != after[j]
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag == "equal"
        for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
    )
    lines: list[str] = []
    for group in matcher.get_grouped_opcodes(context):
        if not lines:
            lines += [f"--- {names[0]}\n", f"+++ {names[1]}\n"]
        first, last = group[0], group[-1]
        lines.append(
            f"@@ -{_range(first[1], last[2] - first[1])} "
            f"+{_range(first[3], last[4] - first[3])} @@\n"
        )
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [" " + _ended(line) for line in after[j1:j2]]
                continue
            lines += ["-" + _ended(line) for line in before[i1:i2]]
            lines += ["+" + _ended(line) for line in after[j1:j2]]
    return lines, renamed


def _ended(line: str) -> str:
    return line if line.endswith("\n") else line + "\n"


@dataclasses.dataclass(frozen=True)
class _FileDiff:
    change: FileChange
    lines: list[str]


def _file_diffs(base: Sources, head: Sources) -> Iterator[_FileDiff | int]:
    """Each file that differs (most changed lines first), or the lines a renumbering renamed."""
    changes = []
    for old, new in _pairs(base.files, head.files):
        before = base.files[old].splitlines(keepends=True) if old else []
        after = head.files[new].splitlines(keepends=True) if new else []
        if before == after:
            continue
        lines, renamed = _unified(before, after, (f"base/{old or new}", f"head/{new or old}"))
        if renamed:
            yield renamed
        if not lines:
            continue
        added = sum(1 for ln in lines[2:] if ln.startswith("+"))
        removed = sum(1 for ln in lines[2:] if ln.startswith("-"))
        status = "new" if old is None else "gone" if new is None else "changed"
        path = new if old is None or old == new else f"{old} → {new}"
        changes.append(_FileDiff(FileChange(path or "", added, removed, status), lines))
    changes.sort(key=lambda d: (-(d.change.added + d.change.removed), d.change.path))
    yield from changes


def full(base: Sources, head: Sources) -> str:
    """The whole diff, uncut, as the excerpt shows it (renumbered generated names as context)."""
    files = [d for d in _file_diffs(base, head) if isinstance(d, _FileDiff)]
    return "".join(line for d in files for line in d.lines)


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

    A renumbering alone is no change:

    >>> c = Sources({"p.hpp": "int _cs_1 = 8;\nint c = _cs_1;\n"}, "f3", "build folder")
    >>> d = diff(Sources({"p.hpp": "int _cs_0 = 8;\nint c = _cs_0;\n"}, "f1", "x"), c)
    >>> d.identical, d.renamed_lines
    (True, 2)
    """
    found = list(_file_diffs(base, head))
    changes = [d for d in found if isinstance(d, _FileDiff)]
    excerpt: list[str] = []
    size = shown = 0
    for change in changes:
        for text in _shown(change.lines):
            if len(excerpt) >= MAX_LINES or size + len(text) + 1 > MAX_CHARS:
                break
            excerpt.append(text)
            size += len(text) + 1
            if text[:1] in "+-" and not text.startswith(("+++", "---")):
                shown += 1
    return CodeDiff(
        base=base.fingerprint,
        head=head.fingerprint,
        files=tuple(d.change for d in changes),
        excerpt="\n".join(excerpt),
        changed_lines=sum(d.change.added + d.change.removed for d in changes),
        shown_lines=shown,
        source=base.origin if base.origin == head.origin else f"{base.origin} / {head.origin}",
        renamed_lines=sum(d for d in found if isinstance(d, int)),
    )
