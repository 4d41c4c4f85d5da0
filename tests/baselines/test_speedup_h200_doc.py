"""results/h200-mch_r19b08_lam/README.md's H200 section says what its two records' reports say.

The section compares the generated R19B08 domain with the lattice, per ICON timer and for the
``integrate_nh`` estimate; each figure must be the one ``iconbench speedup`` printed for the
record (``speedup.txt`` of ``results/h200-mch_r19b08_lam`` and of
``results/h200-mch_icon-ch1_medium``, archived with the records' raw files).
"""

import pathlib
import re

import pytest
from tests.archived_results import restored

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "results" / "h200-mch_r19b08_lam" / "README.md"
SECTION = "## On the domain made as ICON makes it (H200, 2026-11-28)"
REPORTS = {
    "generated": "results/h200-mch_r19b08_lam",
    "lattice": "results/h200-mch_icon-ch1_medium",
}


def _speedup(record: str) -> pathlib.Path:
    """The ``iconbench speedup`` report of a record (archived with its raw files)."""
    return restored(record) / "speedup.txt"


def _report(path: pathlib.Path) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """(backend, timer) -> GT4Py ms as printed, and backend -> the integrate_nh estimate."""
    times, estimates, backend = {}, {}, None
    for line in path.read_text().splitlines():
        if line.startswith("backend "):
            backend = line.split()[1]
        row = re.match(r"  (\w+)\s+[0-9.]+%\s+\S+\s+\S+\s+\S+\s+(\S+)\s", line)
        if backend and row and "  ok  " in line:  # a mapped timer measured (others: notes)
            times[backend, row.group(1)] = row.group(2)
        estimate = re.match(r"  integrate_nh estimate: ([0-9.]+x)", line)
        if backend and estimate:
            estimates[backend] = estimate.group(1)
    return times, estimates


def _section() -> str:
    text = DOC.read_text()
    return text[text.index(SECTION) :]


def _timer_rows() -> list[list[str]]:
    rows = []
    for line in _section().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 7 and re.match(r"^\w+$", cells[0]):
            rows.append(cells)
    return rows


def test_every_timer_of_the_reports_has_its_row():
    generated, _ = _report(_speedup(REPORTS["generated"]))
    timers = {timer for _, timer in generated}
    assert len(timers) >= 30
    assert {row[0] for row in _timer_rows()} == timers


@pytest.mark.parametrize("row", _timer_rows(), ids=lambda row: row[0])
def test_a_timers_times_are_the_reports(row):
    generated, _ = _report(_speedup(REPORTS["generated"]))
    lattice, _ = _report(_speedup(REPORTS["lattice"]))
    timer = row[0]
    for backend, cell in (("dace_gpu", row[3]), ("gtfn_gpu", row[5])):
        ours, theirs = (float(x) for x in cell.split(" / "))
        assert ours == pytest.approx(float(generated[backend, timer]), rel=2e-3)
        assert theirs == pytest.approx(float(lattice[backend, timer]), rel=2e-3)


def test_the_integrate_nh_estimates_are_the_reports():
    table = _section()
    for name, record in REPORTS.items():
        _, estimates = _report(_speedup(record))
        assert set(estimates) == {"dace_gpu", "gtfn_gpu"}
        for backend, value in estimates.items():
            row = next(line for line in table.splitlines() if line.startswith(f"| {backend} |"))
            column = 1 if name == "generated" else 2
            assert row.split("|")[column + 1].strip().lstrip("*").startswith(value), (name, row)


MOUNTAINS = "results/h200-mch_r19b08_lam-orography"


def _calls_and_times(path: pathlib.Path) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(backend, timer) -> calls, OpenACC ms, GT4Py ms of each mapped timer measured."""
    found, backend = {}, None
    for line in path.read_text().splitlines():
        if line.startswith("backend "):
            backend = line.split()[1]
        row = re.match(r"  (\w+)\s+[0-9.]+%\s+(\S+)\s+\S+\s+(\S+)\s+(\S+)\s", line)
        if backend and row and "  ok  " in line:
            found[backend, row.group(1)] = tuple(float(row.group(i)) for i in (2, 3, 4))
    return found


def test_the_mountains_rows_and_the_estimate_with_them_are_the_reports():
    """The subsection on the generated domain's mountains: its times are the three records'
    reports, and its integrate_nh estimate is the flat report's sums with the two re-measured
    timers' rows replaced (the report's own rule: sum calls x OpenACC / sum calls x GT4Py)."""
    text = DOC.read_text()
    section = text[text.index("### The generated domain with its mountains") :]
    flat, mountains = (_calls_and_times(_speedup(REPORTS["generated"])),
                       _calls_and_times(_speedup(MOUNTAINS)))  # fmt: skip
    lattice = _calls_and_times(_speedup(REPORTS["lattice"]))
    assert {timer for _, timer in mountains} == {
        "compute_rho_theta_pgrad_and_update_vn",
        "apply_diffusion_to_theta_and_exner",
    }
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != 3 or not re.fullmatch(r"\w+", cells[0]):
            continue
        for backend, cell in zip(("dace_gpu", "gtfn_gpu"), cells[1:], strict=True):
            shown = [float(x) for x in cell.split(" / ")]
            assert shown == [report[backend, cells[0]][2] for report in (flat, mountains, lattice)]
    for backend in ("dace_gpu", "gtfn_gpu"):
        rows = {t: v for (b, t), v in flat.items() if b == backend}
        rows |= {t: v for (b, t), v in mountains.items() if b == backend}
        openacc = sum(c * o for c, o, _ in rows.values()) / 1e3
        gt4py = sum(c * g for c, _, g in rows.values()) / 1e3
        said = f"{openacc:.3f} s / {gt4py:.3f} s = **{openacc / gt4py:.2f}x** ({backend})"
        assert said in " ".join(section.split()), said
