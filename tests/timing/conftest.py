import os

import pytest

from iconbench import buildcache

# The harness's tests use the built-in reference program (icon4py's compute_tangential_wind
# on the simple grid), so they do not depend on the catalog; gt4py builds go to the shared
# persistent cache, so only the first run on a machine compiles (~40 s on gtfn_cpu).
os.environ["ICONBENCH_CATALOG"] = "0"
os.environ.setdefault("GT4PY_BUILD_JOBS", "1")
buildcache.configure("default", jobs=1)

REFERENCE = "compute_tangential_wind[default]"


@pytest.fixture(scope="session")
def gtfn_cpu_case():
    """The reference program compiled (or loaded from the cache) for gtfn_cpu."""
    from iconbench import suite

    return suite.prepare(REFERENCE, "gtfn_cpu", "tiny")


@pytest.fixture(scope="session")
def embedded_case():
    """The reference program on the embedded backend."""
    import warnings

    from iconbench import suite

    warnings.filterwarnings("ignore", message="Field View Program")
    return suite.prepare(REFERENCE, "embedded", "tiny")
