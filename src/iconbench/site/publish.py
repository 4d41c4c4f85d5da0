"""Publishing: new result files into the site's history, then only the pages they affect.

Order of work (every input is checked before anything is written):

1. recognise every input (result sets, gate summaries, change point confirmations, baselines,
   mapping) or stop with one line naming it;
2. read the result files that are new or changed since the last publish (``published``);
   a file that cannot be read is reported in one line and skipped;
3. compare new runs with their OpenACC baseline (all runs again when the baselines, mapping
   or pins changed) and keep the estimates in the index;
4. render the pages whose data changed: the overview, the estimate page and the program
   list when any run is new, the page of every program a new run measured or a new
   confirmation names, the verdict list when a summary is new; every page when the site's
   design (templates, code) changed;
5. ``asv publish`` for result sets with new files, its pages pointed at the shipped
   libraries (``asv_offline``; again for every asv sub-site when the design changed);
   write the index last.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import os
import pathlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from iconbench.baselines import mapping as timer_mapping
from iconbench.baselines import store
from iconbench.baselines.format import Baseline
from iconbench.bot import escape
from iconbench.errors import IconbenchError
from iconbench.files.atomic import write_atomic
from iconbench.history import confirmation
from iconbench.history import runs as history_runs
from iconbench.programs.catalog import split_case
from iconbench.records import asv as results
from iconbench.records.summary import Summary
from iconbench.site import asv_offline, asv_pages, figures, pagedata, render
from iconbench.site import releases as site_releases
from iconbench.site.published import Index, open_site, source_key, stamp

#: Variants per program page that get charts (the rest are in its table).
CHART_VARIANTS = 4


@dataclasses.dataclass(frozen=True)
class Inputs:
    """Everything ``iconbench publish`` reads, resolved and checked."""

    result_sets: tuple[history_runs.ResultSet, ...]
    gate_files: tuple[pathlib.Path, ...]
    confirmation_files: tuple[pathlib.Path, ...]
    baselines: tuple[Baseline, ...]
    mapping: timer_mapping.TimerProgramMapping
    mapping_file: pathlib.Path
    pins: Mapping[str, Any]
    baseline: str | None = None
    asv: bool = True
    repo: pathlib.Path | None = None
    #: The stacks of runner summaries given beside asv result files (``--summaries``)
    stacks: Mapping[str, history_runs.Stack] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What a publish did (printed by the CLI, asserted by the tests)."""

    runs_added: int
    runs_total: int
    gates_added: int
    pages: tuple[str, ...]
    problems: tuple[str, ...]


def committed_or_given(path: pathlib.Path) -> history_runs.ResultSet:
    """The result set at ``path``; a committed one whose raw files are in git history whole.

    A fresh clone holds a committed set's notes, its asv files and ledgers are archived
    (docs/results-archive.md): they are read from git history once, into the cache, so
    ``iconbench publish results/h100`` works without ``iconbench results fetch`` first.
    """
    from iconbench import results_archive
    from iconbench.buildcache import REPO_ROOT

    try:
        return history_runs.result_set(path)
    except IconbenchError as wrong:
        try:
            archive = results_archive.Archive.read(REPO_ROOT)
            relative = archive.relative(str(path))
            archive.select([relative])
        except (IconbenchError, OSError):
            raise wrong from None
        return history_runs.result_set(results_archive.cached(REPO_ROOT, relative))


def resolve_inputs(
    result_paths: Sequence[pathlib.Path],
    gate_paths: Sequence[pathlib.Path] = (),
    confirmation_paths: Sequence[pathlib.Path] = (),
    *,
    summary_dirs: Sequence[pathlib.Path] = (),
    baselines_dir: pathlib.Path | None = None,
    mapping_file: pathlib.Path = timer_mapping.DEFAULT_FILE,
    pins: Mapping[str, Any] | None = None,
    baseline: str | None = None,
    asv: bool = True,
    repo: pathlib.Path | None = None,
) -> Inputs:
    """Check every input before any work: one line naming the first that is wrong."""
    sets = tuple(committed_or_given(p) for p in result_paths)
    gates = tuple(f for p in gate_paths for f in summary_files(p))
    confirmations = tuple(
        f for p in confirmation_paths for f in summary_files(p, what="confirmation")
    )
    stacks: dict[str, history_runs.Stack] = {}
    for directory in summary_dirs:
        if not directory.is_dir():
            raise IconbenchError(f"--summaries {directory}: no such directory")
        stacks |= history_runs.stacks_of(directory)
    root = baselines_dir or store.default_root()
    if baselines_dir is not None and not root.is_dir():
        raise IconbenchError(f"--store {root}: no such baselines directory")
    loaded = tuple(store.load(root, name) for name in store.names(root)) if root.is_dir() else ()
    if baseline is not None and baseline not in {b.name for b in loaded}:
        raise IconbenchError(
            f"--baseline {baseline!r} is not in {root}; 'iconbench baseline list' shows them"
        )
    return Inputs(
        result_sets=sets,
        gate_files=gates,
        confirmation_files=confirmations,
        baselines=loaded,
        mapping=timer_mapping.load(mapping_file),
        mapping_file=mapping_file,
        pins=dict(pins or {}),
        baseline=baseline,
        asv=asv,
        repo=repo,
        stacks=stacks,
    )


def _comparison_digest(inputs: Inputs) -> str:
    digest = hashlib.sha256()
    for b in sorted(inputs.baselines, key=lambda b: b.name):
        digest.update(b.to_json().encode())
    digest.update(inputs.mapping_file.read_bytes())
    digest.update(json.dumps(sorted(inputs.pins.items()), default=str).encode())
    digest.update(str(inputs.baseline).encode())
    return digest.hexdigest()[:16]


def _estimates(run: history_runs.Run, inputs: Inputs) -> dict[str, dict[str, float]]:
    comparison = pagedata.compare(
        run, inputs.baselines, inputs.mapping, inputs.pins, inputs.baseline
    )
    return pagedata.estimates(comparison)


def _read_new_runs(
    inputs: Inputs, index: Index, report: Callable[[str], None]
) -> tuple[list[history_runs.Run], set[str], list[str]]:
    """Runs of new or changed files (stored at once), the sets that changed, problems."""
    new_runs, changed_sets, problems = [], set(), []
    for result_set in inputs.result_sets:
        ledger_stamps = [stamp(p) for p in result_set.ledgers]
        todo = []
        for path in result_set.files():
            key = source_key(path)
            seen = index.sources.get(key)
            now = [*stamp(path), ledger_stamps]
            if seen is None or seen.get("stamp") != now:
                todo.append((path, key, now))
        if not todo:
            continue
        changed_sets.add(source_key(result_set.root))
        try:
            failures = (
                history_runs.read_failures(result_set.root)
                if result_set.ledgers
                else history_runs.NO_FAILURES
            )
        except IconbenchError as error:
            problems.append(f"{error} (failures of {result_set.root} not shown)")
            report(problems[-1])
            failures = history_runs.NO_FAILURES
        units = results.units_of(result_set.asv_dir)
        stamps = {path: (key, now) for path, key, now in todo}
        repo = inputs.repo or _repo_root()
        for path, outcome in history_runs.read_runs(
            [p for p, _, _ in todo],
            units,
            failures,
            result_set=result_set,
            repo=repo,
            stacks=inputs.stacks,
        ):
            key, now = stamps[path]
            if isinstance(outcome, IconbenchError):
                problems.append(f"skipped {outcome}")
                report(problems[-1])
                continue
            for run in outcome:
                index.store_run(run, _estimates(run, inputs))
                new_runs.append(run)
            index.sources[key] = {"stamp": now, "runs": [r.id for r in outcome]}
    return new_runs, changed_sets, problems


def _read_new(
    files: Sequence[pathlib.Path],
    seen: dict[str, dict[str, Any]],
    folder: str,
    read: Callable[[pathlib.Path], Any],
    *,
    out: pathlib.Path,
    report: Callable[[str], None],
) -> tuple[list[tuple[pathlib.Path, str, dict[str, Any], Any]], list[str]]:
    """Each of ``files`` that is new or changed since ``seen`` says: read, kept in ``data/``.

    Returns ``(path, key, index entry, what read returned)`` of each (its entry holds the
    stamp and the stored copy under ``data/<folder>/``), and one line per file skipped.
    """
    new, problems = [], []
    for path in files:
        key = source_key(path)
        now = stamp(path)
        if seen.get(key, {}).get("stamp") == now:
            continue
        try:
            content = read(path)
        except IconbenchError as error:
            problems.append(f"skipped {error}")
            report(problems[-1])
            continue
        text = without_local_paths(path.read_bytes())
        stored = f"{folder}/{hashlib.sha256(text).hexdigest()[:16]}.json"
        write_atomic(out / "data" / stored, text)
        new.append((path, key, {"stamp": now, "stored": stored}, content))
    return new, problems


#: Fields of a stored summary that name a file on the machine that wrote it.
LOCAL_PATH_FIELDS = frozenset({"source", "full_diff"})


def without_local_paths(text: bytes) -> bytes:
    """A summary as the site publishes it: a field naming an absolute local path keeps its name.

    A runner's gate summary says where its inputs and the explanation's whole code diff lay
    on that runner (``/tmp/check/base/summary.json``); on a published site such a path means
    nothing to a reader and tells the world the runner's layout.

    >>> without_local_paths(b'{"base": {"source": "/tmp/c/base/summary.json"}, "n": 1}')
    b'{"base": {"source": "summary.json"}, "n": 1}'
    >>> without_local_paths(b'{"source": "results/h100/summary.1.json"}')  # relative: kept
    b'{"source": "results/h100/summary.1.json"}'
    """
    data = json.loads(text)
    changed = False

    def walk(value: Any) -> Any:
        nonlocal changed
        if isinstance(value, dict):
            out = {}
            for key, item in value.items():
                if key in LOCAL_PATH_FIELDS and isinstance(item, str) and os.path.isabs(item):
                    out[key] = pathlib.PurePath(item).name
                    changed = True
                else:
                    out[key] = walk(item)
            return out
        if isinstance(value, list):
            return [walk(item) for item in value]
        return value

    cleaned = walk(data)
    return json.dumps(cleaned, ensure_ascii=False).encode() if changed else text


def read_gate(path: pathlib.Path) -> Summary:
    """A gate summary, refused in one line naming the file where a ratio lies outside its CI.

    A ratio outside its own interval is no measurement the site can show (an older writer's
    interval of another estimator): the page would contradict itself.
    """
    summary = Summary.read(path)
    for bench in summary.benchmarks:
        shown = [("", bench.ratio, bench.ratio_ci)]
        if bench.confirmation is not None:
            held = bench.confirmation
            shown.append(("its A/B's ", held.ratio, held.ratio_ci))
        for what, ratio, ci in shown:
            if ratio is None or ci is None:
                continue
            low, high = ci
            if not low * (1 - 1e-9) <= ratio <= high * (1 + 1e-9):
                raise IconbenchError(
                    f"{path}: {bench.id}: {what}ratio {ratio:.3f} lies outside its interval "
                    f"[{low:.3f}, {high:.3f}]; a summary that contradicts itself is not "
                    "published (compare the two runs again with this iconbench)"
                )
    return summary


def _read_new_gates(
    inputs: Inputs, index: Index, out: pathlib.Path, report: Callable[[str], None]
) -> tuple[int, list[str]]:
    new, problems = _read_new(
        inputs.gate_files, index.gates, "gates", read_gate, out=out, report=report
    )
    for path, key, entry, summary in new:
        index.gates[key] = {**entry, "created": summary.created, "name": path.name}
    return len(new), problems


def summary_files(path: pathlib.Path, what: str = "gate summary") -> list[pathlib.Path]:
    """``path`` itself, or the ``*.json`` files under a directory of them (gate summaries)."""
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(path.rglob("*.json"))
    raise IconbenchError(f"{path}: no such {what} file or directory")


def _read_new_confirmations(
    inputs: Inputs, index: Index, out: pathlib.Path, report: Callable[[str], None]
) -> tuple[set[str], list[str]]:
    """Keep new or changed confirmation records; the programs they name, problems."""
    new, problems = _read_new(
        inputs.confirmation_files, index.confirmations, "confirmations", confirmation.read,
        out=out, report=report,
    )  # fmt: skip
    programs: set[str] = set()
    for _, key, entry, record in new:
        named = sorted({split_case(b.case)[0] for b in record.benchmarks})
        index.confirmations[key] = {**entry, "commit": record.commit, "programs": named}
        programs.update(named)
    return programs, problems


def _stored_confirmations(index: Index, out: pathlib.Path) -> confirmation.ByChangePoint:
    """Every published confirmation, by change point (``confirmation.by_change_point``)."""
    return confirmation.by_change_point(
        confirmation.read(out / "data" / entry["stored"])
        for _, entry in sorted(index.confirmations.items())
    )


def _stored_gates(index: Index, out: pathlib.Path) -> list[tuple[str, Summary]]:
    """Each published summary (read with the gate's reader) and the name of its input file."""
    return [
        (
            entry.get("name", pathlib.PurePath(key).name),
            Summary.read(out / "data" / entry["stored"]),
        )
        for key, entry in sorted(index.gates.items())
    ]


def publish(
    inputs: Inputs,
    out: pathlib.Path,
    *,
    report: Callable[[str], None] = lambda line: None,
    rebuild: bool = False,
) -> Outcome:
    """Add the inputs' new results to the site in ``out`` and re-render what they affect."""
    index = open_site(out)
    design = render.design_digest()
    comparison = _comparison_digest(inputs)
    everything = rebuild or index.design != design or index.comparison != comparison
    new_runs, changed_sets, problems = _read_new_runs(inputs, index, report)
    gates_added, gate_problems = _read_new_gates(inputs, index, out, report)
    problems += gate_problems
    confirmed_programs, confirmation_problems = _read_new_confirmations(inputs, index, out, report)
    problems += confirmation_problems
    runs = index.load_runs()
    if index.comparison != comparison:
        for run in runs:
            index.runs[run.id]["estimates"] = _estimates(run, inputs)
    index.design, index.comparison = design, comparison

    env = render.environment()
    published = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    common = {
        "published": published,
        "goal": pagedata.speedup.GOAL,
    }
    asv_sites = [
        {"name": name, "href": f"asv/{name}/index.html"}
        for name in sorted(index.asv)
        if (out / "asv" / name / "index.html").exists()
    ]
    pages: list[str] = []
    any_new = bool(new_runs) or everything or not (out / "index.html").exists()
    if any_new:
        pages += _render_overview(
            env, out, runs=runs, inputs=inputs, common=common, asv_sites=asv_sites
        )
        pages += _render_estimates(env, out, runs=runs, index=index, inputs=inputs, common=common)
        pages += _render_program_list(env, out, runs, common)
    programs = (
        {p for r in runs for p in r.programs}
        if everything
        else {p for r in new_runs for p in r.programs}
    )
    programs |= {
        p for r in runs for p in r.programs if not (out / pagedata.program_page(p)).exists()
    }
    programs |= confirmed_programs & {p for r in runs for p in r.programs}
    stored = _stored_gates(index, out) if gates_added or everything or programs else []
    why = pagedata.why_by_program(stored)
    changes = pagedata.changes_by_program(stored)
    if gates_added:  # a new verdict's explanations and A/Bs go on their programs' pages
        programs |= (set(why) | set(changes)) & {p for r in runs for p in r.programs}
    pages += _render_programs(
        env, out, programs=sorted(programs), runs=runs, inputs=inputs, common=common, why=why,
        confirmations=_stored_confirmations(index, out) if programs else {}, changes=changes,
    )  # fmt: skip
    new_ids = {r.id for r in new_runs}
    pages += _render_runs(
        env,
        out,
        [
            r
            for r in runs
            if everything or r.id in new_ids or not (out / pagedata.run_page(r)).exists()
        ],
        common,
    )
    if gates_added or everything or not (out / "gates.html").exists():
        pages += _render_gates(env, out, stored or _stored_gates(index, out), inputs, common)
    if everything or not (out / site_releases.PAGE).exists():
        pages += site_releases.render(env, out, common)
    render.copy_static(out)

    if inputs.asv:
        for result_set in inputs.result_sets:
            key = source_key(result_set.root)
            name = asv_pages.name_of(result_set)
            if key not in changed_sets and (out / "asv" / name / "index.html").exists():
                continue
            done = asv_pages.publish(result_set, out, inputs.repo or _repo_root())
            for line in filter(None, (done.error, *done.remote)):
                problems.append(line)
                report(line)
            if done.error is None:
                index.asv[name] = key
                pages.append(f"asv/{name}/index.html")
        if asv_sites != [
            {"name": n, "href": f"asv/{n}/index.html"}
            for n in sorted(index.asv)
            if (out / "asv" / n / "index.html").exists()
        ]:
            asv_now = [
                {"name": n, "href": f"asv/{n}/index.html"}
                for n in sorted(index.asv)
                if (out / "asv" / n / "index.html").exists()
            ]
            pages += _render_overview(
                env, out, runs=runs, inputs=inputs, common=common, asv_sites=asv_now
            )
    if everything:  # asv pages published by an older iconbench load what this one ships
        for name in sorted(index.asv):
            if (out / "asv" / name / "index.html").exists() and f"asv/{name}/index.html" not in (
                pages
            ):
                for line in asv_offline.make_offline(out / "asv" / name):
                    problems.append(line)
                    report(line)
    index.save()
    return Outcome(
        runs_added=len(new_runs),
        runs_total=len(runs),
        gates_added=gates_added,
        pages=tuple(dict.fromkeys(pages)),
        problems=tuple(problems),
    )


def _repo_root() -> pathlib.Path:
    from iconbench.buildcache import REPO_ROOT

    return REPO_ROOT


def _render_overview(env, out, *, runs, inputs, common, asv_sites) -> list[str]:
    sections = pagedata.overview(
        runs, inputs.baselines, inputs.mapping, inputs.pins, inputs.baseline
    )
    charts = {
        s["key"]: figures.speedup_chart(s)
        if s["speedups"]
        else (figures.slowest_chart(s) if s["slowest"] else "")
        for s in sections
    }
    cases = [c for s in sections for c in s["cases"]]
    render.render_page(
        env,
        "overview.html.j2",
        out,
        "index.html",
        sections=sections,
        charts=charts,
        backends=sorted({c["backend"] for c in cases}),
        grids=sorted({c["grid"] for c in cases}),
        statuses=pagedata.STATUSES,
        asv_sites=asv_sites,
        **common,
    )
    return ["index.html"]


def _render_estimates(env, out, *, runs, index, inputs, common) -> list[str]:
    per_run = {run_id: entry.get("estimates", {}) for run_id, entry in index.runs.items()}
    sections = pagedata.estimate_history(runs, per_run)
    latest = pagedata.shown_per_target(runs)
    notes = {}
    for target, run in latest.items():
        comparison = pagedata.compare(
            run, inputs.baselines, inputs.mapping, inputs.pins, inputs.baseline
        )
        notes[target.key] = comparison.error or comparison.choice.note
    charts = {
        s["key"]: figures.estimate_chart(s, pagedata.speedup.GOAL) for s in sections if s["points"]
    }
    render.render_page(
        env,
        "estimate.html.j2",
        out,
        "estimate.html",
        sections=sections,
        charts=charts,
        notes=notes,
        **common,
    )
    return ["estimate.html"]


def _render_program_list(env, out, runs, common) -> list[str]:
    programs: dict[str, dict[str, Any]] = {}
    for run in runs:
        for m in run.measured:
            entry = programs.setdefault(
                m.program,
                {
                    "program": m.program,
                    "href": pagedata.program_page(m.program).removeprefix("programs/"),
                    "cases": set(),
                    "backends": set(),
                    "targets": set(),
                    "run_ids": set(),
                },
            )
            entry["cases"].add(m.case)
            entry["backends"].add(m.backend)
            entry["targets"].add(run.target.label)
            entry["run_ids"].add(run.id)
    rows = [
        {
            "program": e["program"],
            "href": e["href"],
            "variants": len(e["cases"]),
            "backends": sorted(e["backends"]),
            "targets": sorted(e["targets"]),
            "runs": len(e["run_ids"]),
        }
        for _, e in sorted(programs.items())
    ]
    render.render_page(env, "programs.html.j2", out, "programs/index.html", programs=rows, **common)
    return ["programs/index.html"]


def _openacc_by_target(runs, inputs) -> dict[history_runs.Target, dict[str, dict[str, Any]]]:
    found = {}
    for target, run in pagedata.shown_per_target(runs).items():
        comparison = pagedata.compare(
            run, inputs.baselines, inputs.mapping, inputs.pins, inputs.baseline
        )
        found[target] = pagedata.openacc_per_program(comparison)
    return found


def _render_programs(
    env, out, *, programs, runs, inputs, common, why, confirmations, changes
) -> list[str]:
    if not programs:
        return []
    openacc = _openacc_by_target(runs, inputs)
    by_program: dict[str, list[history_runs.Run]] = {}
    wanted = set(programs)
    for run in runs:
        for program in set(run.programs) & wanted:
            by_program.setdefault(program, []).append(run)
    pages = []
    for program in programs:
        sections = pagedata.program_history(
            program, by_program.get(program, []), openacc, inputs.pins, confirmations
        )
        charts = {
            s["key"]: {
                v["key"]: figures.program_charts(s, v)
                for v in [v for v in s["variants"] if v["measured"]][:CHART_VARIANTS]
            }
            for s in sections
        }
        page = pagedata.program_page(program)
        render.render_page(
            env,
            "program.html.j2",
            out,
            page,
            program=program,
            sections=sections,
            charts=charts,
            chart_variants=CHART_VARIANTS,
            backends=sorted({b for s in sections for v in s["variants"] for b in v["backends"]}),
            why=why.get(program, []),
            changes=changes.get(program, []),
            **common,
        )
        pages.append(page)
    return pages


def _render_runs(env, out, runs, common) -> list[str]:
    pages = []
    for run in runs:
        page = pagedata.run_page(run)
        render.render_page(env, "run.html.j2", out, page, **pagedata.run_details(run), **common)
        pages.append(page)
    return pages


def _render_gates(env, out, summaries, inputs, common) -> list[str]:
    render.render_page(
        env,
        "gates.html.j2",
        out,
        "gates.html",
        rows=pagedata.gate_rows(summaries),
        commit_link=lambda side: f"<code>{escape.html(side.commit[:8])}</code>",
        **common,
    )
    return ["gates.html"]
