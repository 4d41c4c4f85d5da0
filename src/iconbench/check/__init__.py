"""Two commits measured against each other through the runner, interleaved: the PR check.

``iconbench check`` (what ``ci/pr-check`` runs on a GitHub runner with a GPU, a SLURM node or
a workstation) takes both commits through the runner's own steps (:mod:`iconbench.runner`):

1. **select** the programs the change can affect (:mod:`iconbench.selection`);
2. **environments**: each commit's source tree first on the path of the running stack, its
   build cache keyed by the identity of its code (:mod:`iconbench.stacks.sides`);
3. **precompile** both sides side by side (:mod:`iconbench.runner.precompile`);
4. **measure** base and head in alternating fresh processes, ABBA BAAB …, one on the device at a
   time, until no open benchmark could still become a regression or the budget is spent
   (:mod:`iconbench.check.rounds`, :mod:`iconbench.check.stopping`);
5. **gate**: asv files and summary of each side, then the verdict with the spread between
   processes counted (:mod:`iconbench.gate.processes`);
6. **comment** and **site**, when asked.

Phases 2-5 are :func:`iconbench.check.run.compare`, which ``iconbench continuous`` (a branch
of gt4py, dace or icon4py against its base) runs alone. Each phase's wall time goes to
``OUT/check.json`` and ``OUT/check.md`` (:mod:`iconbench.records.check`, timed by
:mod:`iconbench.check.phases`), with what each side
met in the build cache (:mod:`iconbench.check.cache_state`).
"""
