"""The one measuring road: plan, precompile, verify, measure, cross-check, write results.

One module per step, run by :mod:`~iconbench.runner.pipeline` for ``iconbench suite STEP``,
``iconbench run`` and ``iconbench demo`` (and, through ``iconbench suite``, the PR check and
the gate's re-measure) on a workstation, a GitHub runner with a GPU or inside a SLURM job,
for CPU and GPU backends alike. Every step reads and appends the ledgers under ``OUT/work/``
(so a rerun continues where the last stopped); :mod:`~iconbench.records.resultdir` writes
the result directory from them (``OUT/asv`` in asv's format, ``OUT/summary.json``), reads
it, and merges the directories of a run's shards; :mod:`~iconbench.runner.report` is the
markdown report of result directories (``iconbench report``).
"""
