"""Pictures people read: nodes never drawn on top of each other, labels only where legible."""

from __future__ import annotations

import math
import random
import re

from puzzleproof.formats.skynet import render_svg
from puzzleproof.models.skynet import SkynetMap


def _centres(svg: str) -> list[tuple[float, float]]:
    pts = [(float(a), float(b)) for a, b in re.findall(r'cx="([\d.]+)" cy="([\d.]+)"', svg)]
    pts += [(float(a) + float(w) / 2, float(b) + float(w) / 2) for a, b, w in
            re.findall(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"', svg)]
    return pts


def _radius(svg: str) -> float:
    return max(float(r) for r in re.findall(r' r="([\d.]+)"', svg))


def _random_map(n: int, seed: int) -> SkynetMap:
    rng = random.Random(seed)
    links = {(k - 1, k) for k in range(1, n)}
    while len(links) < 2 * n:
        u, v = sorted(rng.sample(range(n), 2))
        links.add((u, v))
    return SkynetMap(n, tuple(sorted(links)), frozenset({n - 1, n - 2}), start=0)


def test_skynet_nodes_never_overlap_and_labels_stay_legible():
    for n, seed in ((40, 1), (150, 2), (500, 3)):  # spring layout, then the ring layout
        svg = render_svg(_random_map(n, seed))
        pts, r = _centres(svg), _radius(svg)
        assert len(pts) == n
        closest = min(math.dist(p, q) for i, p in enumerate(pts) for q in pts[i + 1:])
        width = float(re.search(r'width="([\d.]+)"', svg).group(1))
        # the picture grows until nodes are 24 px apart, or shrinks the nodes (3 px at least)
        assert closest >= 2 * r or r == 3.0, (n, closest, r)
        assert width <= 4000
        labels = re.findall(r'text-anchor="middle" fill="[^"]+">(\d+)</text>', svg)
        if r >= 6:
            assert len(labels) == n
        else:  # too small to read: each node's number is its tooltip instead
            assert not labels and svg.count("<title>node ") == n


def test_skynet_close_coordinates_spread_apart():
    coords = ((0.0, 0.0), (0.2, 0.0), (10.0, 10.0), (0.0, 10.0))
    m = SkynetMap(4, ((0, 1), (1, 2), (2, 3)), frozenset({3}), start=0, coords=coords)
    svg = render_svg(m)
    pts, r = _centres(svg), _radius(svg)
    assert float(re.search(r'width="([\d.]+)"', svg).group(1)) > 1000  # grown from 640
    assert math.dist(pts[0], pts[1]) >= 2 * r and r == 9.0
    assert svg.count("</text>") >= 4  # every node still labelled
