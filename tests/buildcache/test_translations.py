"""gt4py's translation cache key without source locations (buildcache/translations)."""

import pickle

from gt4py.eve.concepts import SourceLocation
from gt4py.next import fingerprinting
from gt4py.next.iterator import ir as itir

from iconbench.buildcache import translations


def _ref(name: str, path: str) -> itir.SymRef:
    return itir.SymRef(id=name, location=SourceLocation(path, 3, 5))


def test_two_checkouts_of_one_program_share_a_key_another_program_does_not():
    key = translations.fingerprinter()
    base, head = _ref("vn", "/runner/base/stencils/a.py"), _ref("vn", "/runner/head/stencils/a.py")
    strict = fingerprinting.strict_fingerprinter
    assert strict(base) != strict(head)  # gt4py's own key: a translation a checkout
    assert key(base) == key(head)
    assert key(base) != key(_ref("w", "/runner/base/stencils/a.py"))


def test_the_key_travels_to_a_process_pool_by_reference():
    key = translations.fingerprinter()
    again = pickle.loads(pickle.dumps(key))
    node = _ref("vn", "/runner/base/stencils/a.py")
    assert again(node) == key(node)


def test_installed_it_is_the_key_gt4py_reads_when_it_makes_a_backend():
    from gt4py.next.otf import stages

    before = stages.compilable_program_fingerprinter
    try:
        assert translations.install()
        assert stages.compilable_program_fingerprinter is translations.fingerprinter()
    finally:
        stages.compilable_program_fingerprinter = before
