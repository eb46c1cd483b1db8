"""The running surface: sections placed along the centre line, lofted and triangulated (Rempfler 2015, §3.2–3.3).

Sections are placed by an affine map of their control points (shift by −c d_C across, turn into the
plane perpendicular to the plan tangent, move to c(s)), which NURBS curves follow exactly. The loft is
degree 2 across (the sections' own basis) and degree 1 along: between two placed sections the surface
blends their homogeneous control points linearly. Each span is cut into 5 pieces per section segment
across and 3 pieces along, as in the thesis.

Vertex order across a ring is always from the left of travel to the right, whatever the curve's hand;
triangles are wound counter-clockwise seen from inside the channel (normals point into the channel,
the side a bob rests on). Where the curve hand c changes between two placed sections, the sections'
segments run in opposite orders across; that span is stitched by arc-length fraction instead of by
parameter (see :func:`stitch`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from impulsim.apps.bobsleigh.track import section as sec

PIECES_ACROSS = 5
"""Pieces per section segment across the track (thesis §3.2)."""
PIECES_ALONG = 3
"""Pieces per span between placed sections along the track (thesis §3.2)."""
RING = sec.N_SEGMENTS * PIECES_ACROSS + 1
"""Vertices per ring across the running surface (36)."""


class SectionTable:
    """Given sections at stations s_j [m] with hands c_j, as canonical control nets for interpolation.

    Control points are kept in section coordinates (b, h): b to the left of travel [m], h up [m], already
    shifted so that the suspension point C (on the centre line) is the origin, and ordered left → right.
    """

    def __init__(self, s: np.ndarray, dims: list, hands: np.ndarray):
        self.s = np.asarray(s, float)
        self.hands = np.asarray(hands, int)
        self.dims = list(dims)
        nets = [sec.section_curve(d, int(c)) for d, c in zip(dims, hands)]
        pts = np.array([n.points for n in nets])
        w = np.array([n.weights for n in nets])
        pts[:, :, 0] -= (self.hands * np.array([d.d_C for d in dims]))[:, None]     # shift by −c d_C
        pts[:, :, 0] *= -1.0                                  # section x (right of travel) → b (left)
        flip = self.hands < 0                                  # a right curve's points 0 → 7 run right → left
        pts[flip] = pts[flip, ::-1]
        w[flip] = w[flip, ::-1]
        self.points, self.weights = pts, w

    def at(self, s) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Control points [N, 15, 2], weights [N, 15] and hands [N] at stations ``s`` [m].

        Between two given sections of the same hand, control points and weights are interpolated
        linearly (thesis §3.1.4); across a change of hand the nearer section is used.
        """
        s = np.atleast_1d(np.asarray(s, float))
        j = np.clip(np.searchsorted(self.s, s, side="right") - 1, 0, max(len(self.s) - 2, 0))
        if len(self.s) == 1:
            return self.points[j], self.weights[j], self.hands[j]
        f = np.clip((s - self.s[j]) / (self.s[j + 1] - self.s[j]), 0.0, 1.0)
        same = self.hands[j] == self.hands[j + 1]
        f = np.where(same, f, np.where(f < 0.5, 0.0, 1.0))
        pts = (1 - f)[:, None, None] * self.points[j] + f[:, None, None] * self.points[j + 1]
        w = (1 - f)[:, None] * self.weights[j] + f[:, None] * self.weights[j + 1]
        hands = np.where(f < 0.5, self.hands[j], self.hands[j + 1])
        return pts, w, hands


def place(points_bh: np.ndarray, origin: np.ndarray, lateral: np.ndarray) -> np.ndarray:
    """World points [..., K, 3] of section points (b, h) [N, K, 2] at origins [N, 3], lateral units [N, 3]."""
    b, h = points_bh[..., 0], points_bh[..., 1]
    out = origin[:, None, :] + b[..., None] * lateral[:, None, :]
    out[..., 2] += h
    return out


class SurfaceMesh(NamedTuple):
    """Triangulated running surface: vertices [V, 3], triangles [T, 3], and how rings were laid out."""
    vertices: np.ndarray
    triangles: np.ndarray
    ring_s: np.ndarray
    """Station s [m] of each ring of vertices (RING vertices each, ring k at k*RING)."""
    flips: np.ndarray
    """Indices k of ring pairs (k, k+1) stitched across a change of hand."""


def loft(world_pts: np.ndarray, weights: np.ndarray, hands: np.ndarray, s: np.ndarray) -> SurfaceMesh:
    """Loft placed control nets (world [N, 15, 3], weights [N, 15], hands [N] at stations s [N])."""
    u = np.arange(RING) / PIECES_ACROSS
    hom = world_pts * weights[..., None]
    flip = hands[:-1] != hands[1:]
    rings_hom, rings_w, ring_s = [], [], []
    for v in range(PIECES_ALONG):                 # the sections and their blends at v = 1/3, 2/3
        f = v / PIECES_ALONG
        rings_hom.append((1 - f) * hom[:-1] + f * hom[1:])
        rings_w.append((1 - f) * weights[:-1] + f * weights[1:])
        ring_s.append((1 - f) * s[:-1] + f * s[1:])
    # order rings span by span; blends inside a flipped span are dropped (the span is stitched instead)
    hom_all = np.stack(rings_hom, axis=1).reshape(-1, sec.N_CONTROL, 3)
    w_all = np.stack(rings_w, axis=1).reshape(-1, sec.N_CONTROL)
    s_all = np.stack(ring_s, axis=1).reshape(-1)
    keep = np.ones((len(s) - 1, PIECES_ALONG), bool)
    keep[flip, 1:] = False
    keep = keep.reshape(-1)
    hom_all = np.concatenate([hom_all[keep], hom[-1:]])
    w_all = np.concatenate([w_all[keep], weights[-1:]])
    s_all = np.concatenate([s_all[keep], s[-1:]])
    basis = sec.basis_matrix(u)
    verts = np.einsum("uk,nkd->nud", basis, hom_all) / np.einsum("uk,nk->nu", basis, w_all)[..., None]
    n_rings = len(s_all)
    # a flipped span starts at a placed section whose next ring is the next section
    first_ring_of_span = np.concatenate([[0], np.cumsum(np.where(flip, 1, PIECES_ALONG))])[:-1]
    flip_pairs = first_ring_of_span[flip]
    triangles = [grid_triangles(n_rings, flip_pairs)]
    for k in flip_pairs:
        triangles.append(stitch(verts[k], verts[k + 1], k * RING, (k + 1) * RING))
    return SurfaceMesh(verts.reshape(-1, 3), np.concatenate(triangles), s_all, flip_pairs)


def grid_triangles(n_rings: int, skip: np.ndarray) -> np.ndarray:
    """Two triangles per quad between consecutive rings (except ring pairs in ``skip``), wound so that
    the normal (right × forward) points up out of the floor into the channel."""
    pairs = np.setdiff1d(np.arange(n_rings - 1), skip)
    a = (pairs[:, None] * RING + np.arange(RING - 1)[None, :]).reshape(-1)
    b, c = a + 1, a + RING
    d = c + 1
    return np.concatenate([np.stack([a, b, c], axis=1), np.stack([b, d, c], axis=1)]).astype(np.int64)


def fractions(ring: np.ndarray) -> np.ndarray:
    """Cumulative arc-length fraction [RING] of a ring's vertices from its left end."""
    seg = np.linalg.norm(np.diff(ring, axis=0), axis=1)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    return cum / cum[-1]


def stitch(ring_a: np.ndarray, ring_b: np.ndarray, first_a: int, first_b: int) -> np.ndarray:
    """Triangles joining two rings whose vertices do not correspond by parameter: walk both from the
    left by arc-length fraction, always advancing the ring whose next vertex comes first."""
    fa, fb = fractions(ring_a), fractions(ring_b)
    i = j = 0
    tris = []
    last = len(ring_a) - 1
    while i < last or j < last:
        if j == last or (i < last and fa[i + 1] <= fb[j + 1]):
            tris.append((first_a + i, first_a + i + 1, first_b + j))
            i += 1
        else:
            tris.append((first_a + i, first_b + j + 1, first_b + j))
            j += 1
    return np.array(tris, np.int64)


@dataclass(frozen=True)
class BoundaryElement:
    """A wall raised above the top edge of one side between s_from and s_to [m] by ``height`` [m].

    ``kind`` names what it stands for (an end stop or plank at the top of a curve, a raised wall, a
    closed lower start entry); all are built alike, as vertical strips of one quad per section span.
    """
    kind: str
    side: str          # "left" or "right" of travel
    s_from: float
    s_to: float
    height: float


def boundary_strip(el: BoundaryElement, top_edge, stations: np.ndarray, first: int) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and triangles of one element; ``top_edge(s, side)`` gives the section's top point [N, 3].

    The strip stands on the placed sections' top points at ``stations`` (the sections' spacing), from
    the last station at or before ``s_from`` to the first at or after ``s_to``: the running surface's
    top edge is straight between placed sections (the loft is linear there and end weights are 1), so
    strip and surface meet without a gap.
    """
    i0 = max(int(np.searchsorted(stations, el.s_from, side="right")) - 1, 0)
    i1 = min(int(np.searchsorted(stations, el.s_to, side="left")), len(stations) - 1)
    s = stations[i0:i1 + 1]
    n = len(s)
    bottom = top_edge(s, el.side)
    top = bottom + np.array([0.0, 0.0, el.height])
    verts = np.stack([bottom, top], axis=1).reshape(-1, 3)    # 2k: bottom, 2k+1: top
    a = first + 2 * np.arange(n - 1)
    b, c, d = a + 2, a + 1, a + 3                           # next bottom, top, next top
    if el.side == "left":                                   # normal (forward × up) points right, inwards
        tris = [np.stack([a, b, c], 1), np.stack([b, d, c], 1)]
    else:
        tris = [np.stack([a, c, b], 1), np.stack([b, c, d], 1)]
    return verts, np.concatenate(tris).astype(np.int64)
