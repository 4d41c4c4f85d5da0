"""OpenACC baselines: format, store, importers, timer-to-program mapping, speed-up.

See ``docs/baselines.md``. Modules: :mod:`.format` (the versioned JSON and its validation),
:mod:`.store` (the ``baselines/`` directory), :mod:`.importers` (ICON timer tables, bencher
JSON), :mod:`.gt4py_timings` (GT4Py samples from metrics dumps or asv results),
:mod:`.mapping` (ICON timer -> icon4py programs, data in ``baselines/mapping/``) and
:mod:`.speedup` (per-program speed-up with confidence interval, integrate_nh estimate).
"""
