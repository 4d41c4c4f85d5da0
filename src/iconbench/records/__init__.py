"""Every file a run writes, read and written in one place: one module per format.

Each format is a typed record with its one reader and its one writer, and sits below the code
that measures, judges and shows (it imports only the foundations and the machine and code):

- :mod:`~iconbench.records.session`: the session ledger (``work/session.jsonl``), one
  record per case measured, and :func:`~iconbench.records.session.rounds`, the one rule
  that joins an interleaved check's processes;
- :mod:`~iconbench.records.compilation`: the compile ledger (``work/compile.jsonl``), one
  record per compile;
- :mod:`~iconbench.records.asv`: asv result files (``asv run``'s format, what ``asv
  publish`` reads) and their typed records;
- :mod:`~iconbench.records.resultdir`: a runner's result directory (``asv/``,
  ``summary*.json``, ``work/*.jsonl``), written once from its ledgers, merged across shards;
- :mod:`~iconbench.records.resultset`: one side of a comparison, resolved once from any of
  those into typed entries (what the gate, the check and ``compare --history`` read).

The ledgers are appended to while measuring (:mod:`iconbench.timing.session`,
:mod:`iconbench.runner.precompile`); every reader takes their lines by one rule,
:mod:`iconbench.files.ledger`.
"""
