"""The site's "upstream releases" page: each release history published, its steps as rows.

``iconbench releases table --out DIR --site SITE`` stores the history's rows as
``SITE/data/releases/<name>.json`` (:func:`store`) and every publish renders ``releases.html``
from whatever is stored there (:func:`render`), so a later ``iconbench publish`` keeps the page
and its link in every page's navigation.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

from iconbench.files.atomic import write_atomic

#: Where the published histories live in the site.
DATA = pathlib.Path("data") / "releases"
#: The page.
PAGE = "releases.html"


def require_site(site: pathlib.Path) -> None:
    """One line unless ``site`` is a published iconbench site (checked before any work)."""
    from iconbench.errors import IconbenchError

    if not (site / "data" / "index.json").is_file():
        raise IconbenchError(
            f"--site {site}: no iconbench site there (no data/index.json); publish one first "
            f"('iconbench publish RESULTS --out {site}' or 'iconbench history publish')"
        )


def store(made: Any, site: pathlib.Path) -> pathlib.Path:
    """Store the rows of the release history ``made`` (a ``releases.Plan``) in ``site``."""
    from iconbench.history import releases

    require_site(site)
    rows = releases.rows(made)
    facts = releases.record_facts(made)
    data = {
        "name": made.out.resolve().name,
        **facts,
        "rows": [
            {
                "step": row.step.describe(),
                "changed": list(row.step.changed),
                "cases": row.cases,
                "broken": row.broken,
                "flagged": row.flagged,
                "changes": [
                    {
                        "benchmark": c.benchmark,
                        "ratio": c.ratio,
                        "ratio_ci": list(c.ratio_ci),
                        "below": c.below,
                        "component": owner,
                    }
                    for c, owner in row.changes
                ],
                "state": row.state,
            }
            for row in rows
        ],
    }
    return write_atomic(site / DATA / f"{data['name']}.json", json.dumps(data, indent=1))


def published(site: pathlib.Path) -> list[dict[str, Any]]:
    """Every stored release history, by name."""
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((site / DATA).glob("*.json"))]


def title(history: dict[str, Any]) -> str:
    """What a history shows: each component's releases, first to last, on which GPU and grid.

    >>> title({"gpu": "H100", "grid": "g", "rows": [{"step": "dace 2.0.0a6 → 2.0.0a7 (gt4py "
    ...        "1.2.1)"}, {"step": "dace 2.0.0a9 → 2.0.0a10 (gt4py 1.2.1)"}, {"step": "gt4py "
    ...        "1.2.1 → 1.2.3 (dace 2.0.0a10)"}]})
    'dace 2.0.0a6 → 2.0.0a10 and gt4py 1.2.1 → 1.2.3 on H100 · grid g'
    """
    from packaging.version import InvalidVersion, Version

    seen: dict[str, list[str]] = {}
    for row in history.get("rows", ()):
        for name, old, new in re.findall(r"(\w+) (\S+) → ([^\s)]+)", row["step"]):
            seen.setdefault(name, []).extend(v for v in (old, new) if v not in seen[name])

    def order(version: str) -> tuple[int, Any]:
        try:
            return (0, Version(version))
        except InvalidVersion:
            return (1, version)

    spans = [f"{name} {min(vs, key=order)} → {max(vs, key=order)}" for name, vs in seen.items()]
    where = f"on {history.get('gpu', '?')} · grid {history.get('grid', '?')}"
    return f"{' and '.join(spans) or 'upstream releases'} {where}"


def state_words(row: dict[str, Any]) -> str:
    """A step's state in the gate's words: what its A/Bs said, never "confirmed" with none.

    >>> state_words({"state": "confirmed", "flagged": 1, "changes": []})
    'not confirmed (run-to-run noise)'
    >>> state_words({"state": "confirmed", "flagged": 0, "changes": []})
    'unchanged'
    """
    if row["state"] != "confirmed" or row["changes"]:
        return row["state"]
    return "not confirmed (run-to-run noise)" if row["flagged"] else "unchanged"


def render(env: Any, site: pathlib.Path, common: dict[str, Any]) -> list[str]:
    """``releases.html`` from what is stored (a notice where nothing is)."""
    from iconbench.site import render as site_render

    histories = [
        {**h, "title": title(h), "rows": [{**r, "said": state_words(r)} for r in h["rows"]]}
        for h in published(site)
    ]
    site_render.render_page(env, "releases.html.j2", site, PAGE, histories=histories,
                            **common)  # fmt: skip
    return [PAGE]
