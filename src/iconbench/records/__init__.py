"""Every file a run writes, read and written in one place: one module per format.

- :mod:`~iconbench.records.asv`: asv result files (``asv run``'s format, what ``asv
  publish`` reads) and their typed records;
- :mod:`~iconbench.records.resultdir`: a runner's result directory (``asv/``,
  ``summary*.json``, ``work/*.jsonl``), written once from its ledgers, merged across shards;
- :mod:`~iconbench.records.resultset`: one side of a comparison, resolved once from any of
  those into typed entries (what the gate, the check and ``compare --history`` read).

The ledgers (``work/session.jsonl``, ``work/compile.jsonl``) are written while measuring, a
layer below (:mod:`iconbench.timing.session`, :mod:`iconbench.timing.compilation`); every
reader takes their lines by one rule, :mod:`iconbench.files.ledger`.
"""
