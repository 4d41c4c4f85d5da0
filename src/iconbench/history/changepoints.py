r"""Change points in a benchmark's nightly history: where its level stepped, between which commits.

The gate compares two runs; a slow drift or a step that slipped through (a regression under
the threshold, a change merged on a day without a check) shows only in the history. Each
benchmark's nightly medians :math:`x_1, \dots, x_n` (oldest first, one per commit) are
split where their distribution changes by **E-divisive** (Matteson & James 2014, the method
of apache-otava, formerly hunter), implemented here on the log values:

1. For a split :math:`k` (at least ``min_size`` runs on each side) with
   :math:`X = x_{1..k}`, :math:`Y = x_{k+1..n}`, the energy statistic

   .. math:: \hat Q_k = \frac{k (n-k)}{n} \Big( \frac{2}{k (n-k)} \sum_{i,j} |X_i - Y_j|
             - \binom{k}{2}^{-1} \sum_{i<i'} |X_i - X_{i'}|
             - \binom{n-k}{2}^{-1} \sum_{j<j'} |Y_j - Y_{j'}| \Big)

   (E-divisive's :math:`\alpha = 1`: absolute differences, so one odd night weighs as its
   distance, not its square); the candidate is :math:`\hat k = \arg\max_k \hat Q_k`. All
   splits come from one matrix of pairwise distances and its 2-D prefix sums,
   :math:`O(n^2)` per scan.
2. Its significance: the same maximum over ``permutations`` random orders of the segment
   (the exchangeable null of "no change"), :math:`p = (1 + \#\{\max \hat Q^\pi \ge
   \max \hat Q\}) / (1 + P)`. A change point when :math:`p \le \alpha`.
3. Recurse on both halves, each with its own permutation test (E-divisive's bisection).

Why not apache-otava itself: ``uv pip install --dry-run apache-otava`` (0.8.0) downgrades
the locked numpy 2.5 to 2.2 and scipy 1.18 to 1.16 and pulls google-cloud-bigquery, pg8000,
slack-sdk and grpcio, for a function of 60 lines; ``ruptures`` needs a penalty chosen per
noise level, which the permutation test does not.

Each change point is typed (:class:`ChangePoint`): the index of the first run at the new
level, the commit range ``(last good, first bad)`` that ``iconbench bisect`` searches, the
magnitude (median after / median before, within the neighbouring segments) and the
confidence :math:`1 - p`.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> values = np.exp(rng.normal(0, 0.01, 40)) * np.where(np.arange(40) >= 25, 1.08, 1.0)
>>> [(c.index, round(c.magnitude, 2)) for c in detect(values, [f"c{i}" for i in range(40)])]
[(25, 1.08)]
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from iconbench.history.runs import Run, Target

#: Fewest runs on each side of a change point.
MIN_SIZE = 5
#: Permutations of the significance test (p-values resolve to 1/(P+1)).
PERMUTATIONS = 199
#: Significance level of each split.
ALPHA = 0.01
#: Permutations scanned at once.
CHUNK = 16


@dataclasses.dataclass(frozen=True)
class ChangePoint:
    """A step in one benchmark's history.

    Attributes:
        index: position of the first run at the new level (0 = oldest run).
        good: commit of the last run before the step (bisect's good end).
        bad: commit of the first run at the new level (bisect's bad end).
        magnitude: median after / median before, over the neighbouring segments (1.08: +8 %).
        confidence: 1 - the permutation p-value.

    """

    index: int
    good: str
    bad: str
    magnitude: float
    confidence: float

    @property
    def commit_range(self) -> tuple[str, str]:
        """``(good, bad)``: the range ``iconbench bisect GOOD BAD`` searches."""
        return self.good, self.bad


def _scan(x: np.ndarray, min_size: int) -> np.ndarray:
    r"""E-divisive's :math:`\hat Q_k` of every split ``k`` in ``min_size .. n - min_size``.

    ``x`` is one series or a stack of them (rows); the result has one column per split.
    """
    n = x.shape[-1]
    distance = np.abs(x[..., :, None] - x[..., None, :])
    prefix = np.zeros((*x.shape[:-1], n + 1, n + 1))
    prefix[..., 1:, 1:] = distance.cumsum(axis=-1).cumsum(axis=-2)
    k = np.arange(min_size, n - min_size + 1)
    left = prefix[..., k, k]  # sum over X x X (ordered pairs, zero diagonal)
    top = prefix[..., k, n]  # rows of X, all columns
    cross = top - left  # X x Y
    right = prefix[..., n, n][..., None] - 2 * top + left  # Y x Y (distance is symmetric)
    m = n - k
    between = 2 * cross / (k * m)
    within = left / (k * (k - 1)) + right / (m * (m - 1))
    return k * m / n * (between - within)


def _split(
    x: np.ndarray, offset: int, *, min_size: int, permutations: int, alpha: float, rng
) -> list[tuple[int, float]]:
    n = len(x)
    if n < 2 * min_size:
        return []
    z = _scan(x, min_size)
    best = int(np.argmax(z))
    observed = float(z[best])
    exceed = 0
    for start in range(0, permutations, CHUNK):  # a chunk's matrices: CHUNK x n x n floats
        count = min(CHUNK, permutations - start)
        shuffled = np.array([rng.permutation(x) for _ in range(count)])
        exceed += int(np.sum(_scan(shuffled, min_size).max(axis=-1) >= observed * (1 - 1e-9)))
    p = (1 + exceed) / (1 + permutations)
    if p > alpha:
        return []
    k = best + min_size
    options = {"min_size": min_size, "permutations": permutations, "alpha": alpha, "rng": rng}
    left = _split(x[:k], offset, **options)
    right = _split(x[k:], offset + k, **options)
    return [*left, (offset + k, 1 - p), *right]


def detect(
    values: Sequence[float | None] | np.ndarray,
    commits: Sequence[str],
    *,
    min_size: int = MIN_SIZE,
    permutations: int = PERMUTATIONS,
    alpha: float = ALPHA,
    seed: int = 0,
) -> list[ChangePoint]:
    """The change points of one benchmark's history (``values`` oldest first, one per commit).

    Missing (``None``), non-positive or non-finite values (a failed night) are dropped
    before the scan; the commits keep their positions.

    >>> detect([1.0, 1.01, 0.99, 1.0] * 5, [str(i) for i in range(20)])
    []
    """
    if len(values) != len(commits):
        raise ValueError("one commit per value")
    raw = np.asarray([math.nan if v is None else v for v in values], dtype=float)
    keep = np.flatnonzero(np.isfinite(raw) & (raw > 0))
    x = np.log(raw[keep])
    rng = np.random.default_rng(seed)
    found = _split(x, 0, min_size=min_size, permutations=permutations, alpha=alpha, rng=rng)
    bounds = [0, *(i for i, _ in found), len(x)]
    points = []
    for number, (i, confidence) in enumerate(found):
        before = x[bounds[number] : i]
        after = x[i : bounds[number + 2]]
        magnitude = float(np.exp(np.median(after) - np.median(before)))
        points.append(
            ChangePoint(
                index=int(keep[i]),
                good=commits[int(keep[i - 1])],
                bad=commits[int(keep[i])],
                magnitude=round(magnitude, 6),
                confidence=round(confidence, 4),
            )
        )
    return points


def new_change_points(
    values: Sequence[float | None] | np.ndarray,
    commits: Sequence[str],
    known: int,
    **options: int | float,
) -> list[ChangePoint]:
    """The change points a nightly adds: found now, not found on the first ``known`` runs.

    A nightly appends its run and reports only what is new: a step whose first bad commit
    was already a change point of the history before it is old news.

    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> v = list(np.exp(rng.normal(0, 0.01, 30)) * np.where(np.arange(30) >= 12, 1.08, 1.0))
    >>> c = [f"c{i}" for i in range(30)]
    >>> [p.bad for p in new_change_points(v, c, known=14)], new_change_points(v, c, known=29)
    (['c12'], [])
    """
    before = {p.bad for p in detect(values[:known], commits[:known], **options)}  # type: ignore[arg-type]
    return [p for p in detect(values, commits, **options) if p.bad not in before]  # type: ignore[arg-type]


@dataclasses.dataclass(frozen=True)
class Found:
    """A change point of one benchmark's device time on one target (device and grid)."""

    target: Target
    case: str
    backend: str
    point: ChangePoint


def found_in(runs: Sequence[Run], *, new: bool = False) -> list[Found]:
    """The change points of every (case, backend)'s device time in ``runs``, per target.

    Runs in the site's history order (:func:`iconbench.history.runs.history_per_target`),
    so what this finds is what the site marks; ``new``: only those the newest run added.
    """
    from iconbench.history.runs import history_per_target

    found = []
    for target, ordered in history_per_target(runs).items():
        commits = [r.commit for r in ordered]
        series: dict[tuple[str, str], list[float | None]] = {}
        for index, run in enumerate(ordered):
            for m in run.measured:
                values = series.setdefault((m.case, m.backend), [None] * len(ordered))
                values[index] = m.device_s
        for (case, backend), values in sorted(series.items()):
            points = (
                new_change_points(values, commits, len(values) - 1)
                if new
                else detect(values, commits)
            )
            found += [Found(target, case, backend, point) for point in points]
    return found
