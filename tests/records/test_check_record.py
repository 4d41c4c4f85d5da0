"""Every committed check record reads into a CheckRecord that writes it again, byte for byte."""

from __future__ import annotations

import json
import pathlib

import pytest

from iconbench.errors import IconbenchError
from iconbench.records.check import CheckRecord

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHECKS = sorted(path.parent for path in (ROOT / "results").rglob("check.json"))


def test_the_committed_checks_are_there():
    assert len(CHECKS) >= 27


@pytest.mark.parametrize("out", CHECKS, ids=[str(c.relative_to(ROOT)) for c in CHECKS])
def test_a_committed_check_is_written_again_as_it_was(out, tmp_path):
    record = CheckRecord.read(out)
    assert record.total_s > 0
    assert record.phases
    record.write(tmp_path)
    assert (tmp_path / "check.json").read_text() == (out / "check.json").read_text()
    assert (tmp_path / "check.md").read_text() == (out / "check.md").read_text()


def test_a_record_line_is_appended_whole_after_a_torn_one(tmp_path):
    """``--record FILE``: one sorted JSON line a check; a line a killed writer left is cut."""
    record = CheckRecord({"grid": "tiny", "verdict": "pass"}, {"select": 1.2}, 9.5)
    path = tmp_path / "checks.jsonl"
    record.append_to(path)
    with path.open("a") as out:
        out.write('{"grid": "ti')
    record.append_to(path)
    lines = path.read_text().splitlines()
    assert lines == [json.dumps(record.as_dict(), sort_keys=True)] * 2


def test_no_record_and_a_broken_one_are_one_line(tmp_path):
    with pytest.raises(IconbenchError, match="no check record; give the --out directory"):
        CheckRecord.read(tmp_path)
    (tmp_path / "check.json").write_text('{"phases": {}}')
    with pytest.raises(IconbenchError, match=r"check.json: not a check record \('total_s'\)"):
        CheckRecord.read(tmp_path)
