"""Trustworthy per-call timings of compiled GT4Py programs.

One concern per module:

- :mod:`.clocks`: host clock (``perf_counter`` + device synchronisation), CUDA-event device
  clock (cupy), and capture of gt4py's own ``compute``/``total`` instrumentation samples.
- :mod:`.measurement`: warm-up + sampling of one prepared call into a
  :class:`~iconbench.records.session.Measurement`.
- :mod:`.bandwidth`: achieved bandwidth from the minimum bytes a program moves, datasheet
  peaks, and the measured device-to-device copy ceiling.
- :mod:`.compilation`: what a pool of compiles takes, from the compile ledger's times.
- :mod:`.sharding`: ``--shard i/n`` splitting of the parameter space.
- :mod:`.session`: many cases measured in one process, resumably, into the session ledger
  (:mod:`iconbench.records.session`).
- :mod:`.isolation`: those cases spread over fresh worker processes, so that a failure or
  device memory not given back cannot spoil the cases after it.
"""

from iconbench.timing.measurement import measure

__all__ = ["measure"]
