"""Closed triangle meshes: validation and mass properties by Mirtich's algorithm.

B. Mirtich, "Fast and accurate computation of polyhedral mass properties", J. Graphics Tools 1(2), 1996:
the volume integrals ∫1, ∫x, ∫x², ∫xy over the solid are turned into surface integrals over the faces
(divergence theorem), and each face integral into a line integral over the face's edges projected onto
the coordinate plane where the face is largest (Green's theorem). The result is exact for polyhedra up to
rounding. Everything here works in the mesh's own frame; triangles must be wound counter-clockwise seen
from outside (outward normals).
"""
from __future__ import annotations

import numpy as np

from impulsim.errors import ModelError


def check_triangles(vertices, triangles, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Validated copies: vertices float64 [nv, 3] finite, triangles int64 [nt, 3] in range, non-degenerate."""
    v = np.asarray(vertices, dtype=float)
    if v.ndim != 2 or v.shape[1] != 3 or v.shape[0] < 3:
        raise ModelError(f"{what}: vertices must be an array of shape [n >= 3, 3], got {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ModelError(f"{what}: vertices must be finite")
    t = np.asarray(triangles)
    if t.ndim != 2 or t.shape[1] != 3 or t.shape[0] < 1 or not np.issubdtype(t.dtype, np.integer):
        raise ModelError(f"{what}: triangles must be an integer array of shape [n >= 1, 3], got {t.shape}")
    t = t.astype(np.int64)
    if t.min() < 0 or t.max() >= v.shape[0]:
        bad = int(np.argmax((t < 0).any(axis=1) | (t >= v.shape[0]).any(axis=1)))
        raise ModelError(f"{what}: triangle {bad} refers to a vertex outside 0..{v.shape[0] - 1}")
    area2 = np.linalg.norm(np.cross(v[t[:, 1]] - v[t[:, 0]], v[t[:, 2]] - v[t[:, 0]]), axis=1)
    scale = max(float(np.ptp(v, axis=0).max()), 1e-300)
    flat = np.nonzero(area2 <= 1e-14 * scale * scale)[0]
    if flat.size:
        raise ModelError(f"{what}: triangle {int(flat[0])} has zero area")
    return np.ascontiguousarray(v), np.ascontiguousarray(t)


def is_closed(triangles: np.ndarray) -> bool:
    """True if every directed edge appears once and its reverse once (closed, consistently wound)."""
    t = np.asarray(triangles, np.int64)
    directed = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    n = int(directed.max()) + 1
    keys = directed[:, 0] * n + directed[:, 1]
    reverse = directed[:, 1] * n + directed[:, 0]
    if np.unique(keys).size != keys.size:
        return False
    return bool(np.all(np.isin(reverse, keys)))


def _projection_integrals(a0, b0, a1, b1):
    """Mirtich's projection integrals over each face's boundary; arrays [nt, 3 edges] -> dict of [nt]."""
    da, db = a1 - a0, b1 - b0
    a0_2, a0_3 = a0 * a0, a0 * a0 * a0
    b0_2, b0_3 = b0 * b0, b0 * b0 * b0
    a1_2, a1_3 = a1 * a1, a1 * a1 * a1
    b1_2, b1_3 = b1 * b1, b1 * b1 * b1
    c1 = a1 + a0
    ca = a1 * c1 + a0_2
    caa = a1 * ca + a0_3
    caaa = a1 * caa + a0_2 * a0_2
    cb = b1 * (b1 + b0) + b0_2
    cbb = b1 * cb + b0_3
    cbbb = b1 * cbb + b0_2 * b0_2
    cab = 3 * a1_2 + 2 * a1 * a0 + a0_2
    kab = a1_2 + 2 * a1 * a0 + 3 * a0_2
    caab = a0 * cab + 4 * a1_3
    kaab = a1 * kab + 4 * a0_3
    cabb = 4 * b1_3 + 3 * b1_2 * b0 + 2 * b1 * b0_2 + b0_3
    kabb = b1_3 + 2 * b1_2 * b0 + 3 * b1 * b0_2 + 4 * b0_3
    s = lambda x: x.sum(axis=1)  # noqa: E731  (sum over the three edges)
    return dict(
        p1=s(db * c1) / 2, pa=s(db * ca) / 6, paa=s(db * caa) / 12, paaa=s(db * caaa) / 20,
        pb=-s(da * cb) / 6, pbb=-s(da * cbb) / 12, pbbb=-s(da * cbbb) / 20,
        pab=s(db * (b1 * cab + b0 * kab)) / 24, paab=s(db * (b1 * caab + b0 * kaab)) / 60,
        pabb=-s(da * (a1 * cabb + a0 * kabb)) / 60)


def _component(p, axis):
    """Coordinate ``axis[i]`` of every corner of triangle i: p [nt, 3, 3], axis [nt] -> [nt, 3]."""
    return np.take_along_axis(p, np.broadcast_to(axis[:, None, None], (len(axis), 3, 1)), axis=2)[..., 0]


def volume_integrals(vertices: np.ndarray, triangles: np.ndarray):
    """(T0, T1[3], T2[3], TP[3]): ∫dV, ∫(x, y, z), ∫(x², y², z²), ∫(xy, yz, zx) over the closed mesh."""
    p = vertices[triangles]                        # [nt, 3 corners, 3 coords]
    normal = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    normal /= np.linalg.norm(normal, axis=1)[:, None]
    w = -np.einsum("ij,ij->i", normal, p[:, 0])     # plane: n·x + w = 0
    c = np.argmax(np.abs(normal), axis=1)           # project along the largest normal component
    a = (c + 1) % 3
    b = (a + 1) % 3
    rows = np.arange(len(triangles))
    pa_ = _component(p, a)                          # [nt, 3 corners]
    pb_ = _component(p, b)
    P = _projection_integrals(pa_, pb_, np.roll(pa_, -1, axis=1), np.roll(pb_, -1, axis=1))
    na, nb, nc = normal[rows, a], normal[rows, b], normal[rows, c]
    k1 = 1.0 / nc
    k2, k3, k4 = k1 * k1, k1 * k1 * k1, k1 * k1 * k1 * k1
    F = dict(a=k1 * P["pa"], b=k1 * P["pb"], c=-k2 * (na * P["pa"] + nb * P["pb"] + w * P["p1"]),
             aa=k1 * P["paa"], bb=k1 * P["pbb"],
             cc=k3 * (na * na * P["paa"] + 2 * na * nb * P["pab"] + nb * nb * P["pbb"]
                      + w * (2 * (na * P["pa"] + nb * P["pb"]) + w * P["p1"])),
             aaa=k1 * P["paaa"], bbb=k1 * P["pbbb"],
             ccc=-k4 * (na ** 3 * P["paaa"] + 3 * na * na * nb * P["paab"] + 3 * na * nb * nb * P["pabb"]
                        + nb ** 3 * P["pbbb"]
                        + 3 * w * (na * na * P["paa"] + 2 * na * nb * P["pab"] + nb * nb * P["pbb"])
                        + w * w * (3 * (na * P["pa"] + nb * P["pb"]) + w * P["p1"])),
             aab=k1 * P["paab"], bbc=-k2 * (na * P["pabb"] + nb * P["pbbb"] + w * P["pbb"]),
             cca=k3 * (na * na * P["paaa"] + 2 * na * nb * P["paab"] + nb * nb * P["pabb"]
                       + w * (2 * (na * P["paa"] + nb * P["pab"]) + w * P["pa"])))
    # scatter the face integrals back from the (a, b, c) permutation to (x, y, z)
    T0 = 0.0
    T1, T2, TP = np.zeros(3), np.zeros(3), np.zeros(3)
    for axis, first, second, third in ((a, "a", "aa", "aaa"), (b, "b", "bb", "bbb"), (c, "c", "cc", "ccc")):
        n_axis = normal[rows, axis]
        T0 += float(np.sum(np.where(axis == 0, n_axis * F[first], 0.0)))
        np.add.at(T1, axis, n_axis * F[second])
        np.add.at(T2, axis, n_axis * F[third])
    np.add.at(TP, a, na * F["aab"])
    np.add.at(TP, b, nb * F["bbc"])
    np.add.at(TP, c, nc * F["cca"])
    return T0, T1 / 2, T2 / 3, TP / 2


def mesh_mass_properties(vertices, triangles, density: float = 1.0, what: str = "mesh"):
    """Mass [kg], centre of mass [m] and inertia about it [kg m²] of a closed, outward-wound mesh.

    ``vertices`` [nv, 3] and ``triangles`` [nt, 3] are in the mesh's frame; results are in that frame.
    Raises ModelError if the mesh is open, inconsistently wound or inside-out.
    """
    from impulsim.geometry.mass import MassProperties
    v, t = check_triangles(vertices, triangles, what)
    if not is_closed(t):
        raise ModelError(f"{what}: the triangle mesh is not closed (or not consistently wound), so it "
                         "has no volume; give the body mass and inertia, or make it static")
    T0, T1, T2, TP = volume_integrals(v, t)
    if not T0 > 0:
        raise ModelError(f"{what}: the mesh encloses a non-positive volume ({T0:g} m³): its triangles "
                         "must be wound counter-clockwise seen from outside")
    mass = density * T0
    com = T1 / T0
    ixx = density * (T2[1] + T2[2])
    iyy = density * (T2[2] + T2[0])
    izz = density * (T2[0] + T2[1])
    ixy, iyz, izx = -density * TP[0], -density * TP[1], -density * TP[2]
    inertia = np.array([[ixx, ixy, izx], [ixy, iyy, iyz], [izx, iyz, izz]])
    # parallel-axis shift from the mesh origin to the centre of mass
    inertia -= mass * (np.dot(com, com) * np.eye(3) - np.outer(com, com))
    return MassProperties(float(mass), com, inertia)
