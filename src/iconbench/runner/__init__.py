"""The one suite runner: plan, precompile, verify, measure, cross-check, write results.

One module per step, all driven by ``iconbench suite STEP`` on a workstation, a GitHub runner
with a GPU or inside a SLURM job, for CPU and GPU backends alike. Every step reads and appends
the ledgers under ``OUT/work/`` (so a rerun continues where the last stopped) and the results
land in ``OUT/asv`` (asv's format, what ``iconbench compare`` and the site read) and
``OUT/summary.json``. :mod:`~iconbench.runner.merge` combines the output directories of the
shards of one run.
"""
