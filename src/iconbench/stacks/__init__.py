"""Stacks: gt4py + dace + icon4py, each a released version or a git commit.

:mod:`spec` parses them, :mod:`resolve` pins them to commits, :mod:`lockpins` knows the
defaults, :mod:`identity` keys the gt4py build cache, :mod:`environment` builds asv
environments with uv, :mod:`asvconf` writes asv configurations, :mod:`continuous` runs and
reads ``asv continuous``, :mod:`provenance` records everything a result depends on.
"""
