"""``iconbench programs`` lists the catalog with variants and domains."""

from __future__ import annotations

from iconbench.cli import main
from iconbench.programs import catalog


def test_programs_lists_every_program_and_the_totals(capsys):
    assert main(["programs"]) == 0
    out = capsys.readouterr().out
    specs = catalog.discover()
    cases = sum(len(s.variants) for s in specs)
    assert out.rstrip().endswith(f"{len(specs)} programs, {cases} cases (program x static variant)")
    assert "vertically_implicit_solver_at_corrector_step  (" in out


def test_programs_cases_prints_the_asv_parameter(capsys):
    assert main(["programs", "--cases", "--programs", "^compute_averaged_vn_and_fluxes$"]) == 0
    lines = capsys.readouterr().out.split()
    assert lines == catalog.case_ids([catalog.lookup("compute_averaged_vn_and_fluxes")[0]])
    assert len(lines) == 4
