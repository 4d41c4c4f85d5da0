"""Stacks: gt4py + dace + icon4py, each a released version or a git commit.

:mod:`spec` parses them, :mod:`resolve` pins them to commits, :mod:`lockpins` knows the
defaults, :mod:`identity` keys the gt4py build cache, :mod:`component` says which component
a checkout is, :mod:`trees` exports a commit's sources (put first on the path by the check,
``iconbench continuous`` and the ``iconbench-checkout`` asv environment), :mod:`sides` makes
such a commit a side with its own build cache, :mod:`shared_builds` gives each stack's cache
the build folders of the runner's other stacks (never their translations),
:mod:`environment` builds asv environments with uv, :mod:`asvconf` writes asv configurations
(``asv continuous`` by hand, ``iconbench bisect``), :mod:`provenance` records a stack into an
asv environment.
"""
