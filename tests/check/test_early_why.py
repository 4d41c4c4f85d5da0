"""A check explains what it flags while its last builds compile (:mod:`iconbench.check.early_why`).

The gate's verdict on the ledgers and the profiling are stand-ins (a summary of three flagged
variants of one program on gtfn_gpu, a recorder for :func:`iconbench.explain.run.explain`);
what is tested is when the check explains, what it keeps after the gate, and that the why
phase after the gate does not profile again what was explained.
"""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib

from iconbench.check import early_why
from iconbench.explain import run as explain_run
from iconbench.gate import verdict
from iconbench.grids import resolve
from iconbench.records import resultset
from iconbench.records.summary import Summary, Why
from iconbench.stacks.sides import Side

PROGRAM = "compute_rho_theta_pgrad_and_update_vn"
VARIANTS = [f"{PROGRAM}[v={n}]" for n in range(3)]
OTHER = "compute_airmass[default]"
JOBS = [(case, "gtfn_gpu") for case in VARIANTS] + [(OTHER, "gtfn_gpu"), (VARIANTS[0], "dace_gpu")]


def _summary(flagged: list[str]) -> Summary:
    """Every job's device time, the cases of ``flagged`` regressed on gtfn_gpu."""
    example = Summary.example()
    template = example.benchmarks[0]
    benches = tuple(
        dataclasses.replace(
            template, id=f"{case}|{backend}|device_time", program=case.split("[")[0],
            variant=case.split("[")[1].rstrip("]"), backend=backend,
            verdict="regression" if case in flagged and backend == "gtfn_gpu" else "unchanged",
            ratio=1.2 if case in flagged and backend == "gtfn_gpu" else 1.0,
        )
        for case, backend in JOBS
    )  # fmt: skip
    return dataclasses.replace(example, benchmarks=benches, why=())


def _early(tmp_path: pathlib.Path, monkeypatch, flagged: list[str]) -> tuple:
    monkeypatch.setattr(resultset, "ledger_set", lambda *args, **kwargs: None)
    monkeypatch.setattr(verdict, "compare", lambda *args, **kwargs: _summary(flagged))
    calls: list[list[str]] = []

    def explain(summary, base, head, *, work, grid, limit, **kwargs):
        chosen = explain_run.flagged(summary, len(summary.benchmarks))
        calls.append([bench.id for bench in chosen])
        first, *alike = chosen  # the variants' kernels alike: one profile
        why = Why(first.id, first.program, first.backend,
                  same_kernels=tuple(b.id for b in alike))  # fmt: skip
        return dataclasses.replace(summary, why=(why,))

    monkeypatch.setattr(explain_run, "explain", explain)
    sides = [Side(n, n, n[0] * 40, (), tmp_path / n, "s") for n in ("base", "head")]
    early = early_why.EarlyWhy(*sides, resolve("tiny"), tmp_path / "why", JOBS)
    return early, calls


def test_a_program_is_explained_once_all_its_flagged_variants_are_measured(tmp_path, monkeypatch):
    early, calls = _early(tmp_path, monkeypatch, VARIANTS)
    held: list[str] = []

    @contextlib.contextmanager
    def quiet():
        held.append("held")
        yield

    measured = {(OTHER, "gtfn_gpu"), (VARIANTS[0], "dace_gpu")}
    assert not early(frozenset(measured), quiet)  # nothing flagged yet
    measured |= {(VARIANTS[0], "gtfn_gpu"), (VARIANTS[1], "gtfn_gpu")}
    assert not early(frozenset(measured), quiet)  # a variant still compiles
    assert not calls
    measured |= {(VARIANTS[2], "gtfn_gpu")}
    assert early(frozenset(measured), quiet)
    assert calls == [[f"{case}|gtfn_gpu|device_time" for case in VARIANTS]]
    assert held == ["held"]  # the devices held while it profiled
    assert not early(frozenset(measured), quiet)  # nothing new: not asked again


def test_after_the_gate_the_check_keeps_what_it_still_flags_and_explains_only_the_rest(
    tmp_path, monkeypatch
):
    early, calls = _early(tmp_path, monkeypatch, VARIANTS)
    early(frozenset(JOBS), contextlib.nullcontext)
    final = early.kept(_summary(VARIANTS[:2]))  # more blocks: the third variant unchanged
    (why,) = final.why
    assert why.id == f"{VARIANTS[0]}|gtfn_gpu|device_time"
    assert why.same_kernels == (f"{VARIANTS[1]}|gtfn_gpu|device_time",)
    assert early.kept(_summary([VARIANTS[2]])).why == ()  # its first variant no longer flagged
    # the why phase after the gate: nothing left to profile
    monkeypatch.undo()
    assert explain_run.explain(final, early.base, early.head, work=tmp_path, keep=True) is final
    assert len(calls) == 1
