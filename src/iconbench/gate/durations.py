"""How the gate's text shows a duration: in the unit that reads best.

The table (:mod:`iconbench.gate.table`) and each flagged benchmark's kernel table
(:mod:`iconbench.gate.kernels`) show times alike; both import it from here, below either.
"""

from __future__ import annotations


def seconds(value: float | None) -> str:
    """A time in the unit that reads best.

    >>> seconds(1.234e-4), seconds(2.5e-3), seconds(12.0), seconds(None)
    ('123.4us', '2.500ms', '12.00s', '-')
    """
    if value is None:
        return "-"
    if abs(value) < 1e-3:
        return f"{value * 1e6:.1f}us"
    if abs(value) < 1:
        return f"{value * 1e3:.3f}ms"
    return f"{value:.2f}s"
