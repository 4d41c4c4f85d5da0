"""Every file a run writes, read and written in one place: one module per format.

- :mod:`~iconbench.records.asv`: asv result files (``asv run``'s format, what ``asv
  publish`` reads) and their typed records.
"""
