"""The regression gate: two result sets compared benchmark by benchmark (docs/gate.md).

Each side is a :class:`~iconbench.records.resultset.ResultSet` (asv results or a GPU runner's
result set, resolved once by :mod:`iconbench.records`).

- :mod:`~iconbench.gate.stats`: ratio of medians, Hodges-Lehmann interval, interval test, FDR,
  bimodality, history (the maths, in docstrings)
- :mod:`~iconbench.gate.config`: thresholds per metric, per-benchmark overrides (``gate.toml``)
- :mod:`~iconbench.gate.verdict`: the verdict per benchmark and for the run, written as the
  versioned summary JSON (:mod:`iconbench.records.summary`, docs/gate-summary.md)
- :mod:`~iconbench.gate.asv_decision`: what ``asv continuous`` would have said
- :mod:`~iconbench.gate.table`: the readable table
- :mod:`~iconbench.gate.rerun`: more samples for inconclusive benchmarks, bounded in time
- :mod:`~iconbench.gate.openacc`: speed-up of each side against a stored OpenACC baseline (the
  experiment ICON ran on the grid, where none is named)
- :mod:`~iconbench.gate.rebuild`: is a program's generated code and timing stable across builds
"""
