import math

import pytest

from iconbench.sample_stats import summarize


def test_summary_of_known_samples():
    s = summarize([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s.n == 5
    assert s.median == 3.0
    assert s.mean == 22.0
    assert s.minimum == 1.0
    assert s.maximum == 100.0
    assert (s.q25, s.q75) == (2.0, 4.0)
    # the outlier inflates the CV but not the interquartile range
    assert s.cv == pytest.approx(math.sqrt(sum((x - 22) ** 2 for x in [1, 2, 3, 4, 100]) / 4) / 22)
    assert s.iqr_relative == pytest.approx(2.0 / 3.0)


def test_constant_samples_have_zero_spread():
    s = summarize([5e-6] * 10)
    assert s.cv == 0.0
    assert s.iqr_relative == 0.0


def test_empty_is_an_error():
    with pytest.raises(ValueError, match="no samples"):
        summarize([])
