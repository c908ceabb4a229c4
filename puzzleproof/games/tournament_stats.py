"""Intervals and tests for tournament figures: Student's t, written out (no SciPy).

A tournament's figures are means over few independent units (graphs), so the normal
quantile 1.96 is too small: with 6 units the 95 % two-sided quantile is t(0.975; 5) = 2.571.
Student's t distribution function is the regularized incomplete beta function,

    P(|T| > t) = I_x(df/2, 1/2),  x = df / (df + t^2),

evaluated here by its continued fraction (modified Lentz); a quantile is found by bisection
on it. :func:`mean_interval` is the t interval of a mean; :func:`paired_test` compares two
bots on the units both played (the mean difference, its t interval and the two-sided p).

>>> round(t_quantile(0.975, 5), 3), round(t_quantile(0.975, 1), 3)
(2.571, 12.706)
>>> m, h = mean_interval([1.0, 2.0, 3.0, 4.0])
>>> m, round(h, 3)
(2.5, 2.054)
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

__all__ = ["incomplete_beta", "t_sf2", "t_quantile", "mean_interval", "PairedTest",
           "paired_test"]


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of I_x(a, b) (converges fast for x < (a+1)/(a+b+2))."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return h


def incomplete_beta(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1.

    >>> round(incomplete_beta(2, 3, 0.4), 6)  # 1 - (0.6^4 + 4*0.4*0.6^3) = 0.5248
    0.5248
    """
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"x must be in [0, 1], not {x}")
    if x in (0.0, 1.0):
        return x
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_sf2(t: float, df: float) -> float:
    """The two-sided tail P(|T| >= |t|) of Student's t with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError("df must be positive")
    if math.isinf(t):
        return 0.0
    return incomplete_beta(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t (``0 < p < 1``), by bisection on :func:`t_sf2`."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must be in (0, 1), not {p}")
    if p == 0.5:
        return 0.0
    tail = 2.0 * (1.0 - p) if p > 0.5 else 2.0 * p  # two-sided tail of |t|
    lo, hi = 0.0, 1.0
    while t_sf2(hi, df) > tail:
        hi *= 2.0
        if hi > 1e12:
            break
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_sf2(mid, df) > tail:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * max(1.0, hi):
            break
    q = 0.5 * (lo + hi)
    return q if p > 0.5 else -q


def mean_interval(xs: Sequence[float], level: float = 0.95) -> tuple[float, float | None]:
    """``(mean, half-width)`` of the t interval at ``level`` (None for fewer than two
    values): ``t(1 - (1 - level)/2; n - 1) * s / sqrt(n)``."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, None
    q = t_quantile(1.0 - (1.0 - level) / 2.0, len(xs) - 1)
    return m, q * statistics.stdev(xs) / math.sqrt(len(xs))


@dataclass(frozen=True)
class PairedTest:
    """Two bots compared on the units both played: ``diff`` = mean(a - b), its t interval
    half-width ``ci95`` (None under two units), the two-sided ``p`` and the unit count."""

    units: int
    diff: float
    ci95: float | None
    p: float | None

    @property
    def significant(self) -> bool:
        """The difference is significant at 95 % (the interval excludes 0)."""
        return self.p is not None and self.p < 0.05


def paired_test(a: dict, b: dict, level: float = 0.95) -> PairedTest | None:
    """The paired t test of ``a`` against ``b``, two maps unit -> value, on their common
    units (None when they share none).

    >>> r = paired_test({1: 5.0, 2: 6.0, 3: 7.0}, {1: 4.0, 2: 4.5, 3: 5.5})
    >>> r.units, round(r.diff, 3), r.significant
    (3, 1.333, True)
    """
    common = sorted(set(a) & set(b), key=str)
    if not common:
        return None
    ds = [a[k] - b[k] for k in common]
    m, half = mean_interval(ds, level)
    if half is None:
        return PairedTest(len(ds), m, None, None)
    sd = statistics.stdev(ds)
    if sd == 0.0:
        return PairedTest(len(ds), m, 0.0, 0.0 if m != 0.0 else 1.0)
    t = m / (sd / math.sqrt(len(ds)))
    return PairedTest(len(ds), m, half, t_sf2(t, len(ds) - 1))
