"""Which benchmarks a pull request's check runs, and what that costs on one GPU host.

:mod:`~iconbench.programs.imports` maps changed icon4py files to the programs that (through
their imports) use them; :mod:`~iconbench.selection.subset` picks the programs that carry most
of the OpenACC time when everything may be affected (a gt4py or dace change);
:mod:`~iconbench.selection.cost` estimates the check's wall time from the runner's ledgers;
:mod:`~iconbench.selection.plan` puts these together for ``iconbench select``.
"""
