"""Session-wide set-up: gt4py's persistent build cache, before any test imports gt4py.

gt4py reads its cache settings once, at import; whichever test module imported it first
used to decide whether compiled programs went to the persistent cache or a throw-away
session directory, so cache-dependent tests passed alone and failed in the full run.
"""

from iconbench import buildcache

buildcache.configure("default", jobs=1)
