"""The :class:`Track`: profile line, height profile, cross-sections and boundary elements in one object.

World frame: z up, the centre line starts along +y, s = 0 (the timing start) at the origin when the
line starts straight. All lengths in metres, angles in radians.
"""
from __future__ import annotations

import time
from typing import Optional

import numpy as np

from impulsim.apps.bobsleigh.track import section as sec
from impulsim.apps.bobsleigh.track import surface
from impulsim.apps.bobsleigh.track.height import HeightProfile
from impulsim.apps.bobsleigh.track.profile import ProfileLine, left, tangent

DS = 0.5
"""Spacing [m] of the discrete track profile on which sections are placed (thesis §3.1.3)."""


class Track:
    """An ice channel built from construction parameters (Rempfler 2015, chapter 3).

    ``length`` is the timed length finish_s − start_s [m] along the plan-view arc length s;
    ``timing_stations`` the stations s [m] of the split and finish timings; the modelled channel runs from
    ``s_min`` (the start area, s < 0) to ``s_max`` (the run-out after the finish).
    """

    def __init__(self, name: str, profile: ProfileLine, height: HeightProfile, sections: surface.SectionTable,
                 boundary: list, timing_stations, start_s: float = 0.0, finish_s: Optional[float] = None,
                 description: str = "", source: str = ""):
        self.name, self.description, self.source = name, description, source
        self.profile, self.height, self.sections = profile, height, sections
        self.boundary = list(boundary)
        self.timing_stations = np.asarray(timing_stations, float)
        self.start_s = float(start_s)
        self.finish_s = float(finish_s if finish_s is not None else self.timing_stations[-1])
        self.s_min, self.s_max = profile.s_start, profile.s_end
        self.curves = profile.curves
        self._mesh = None
        self._projector = None
        self.mesh_build_seconds = float("nan")

    @property
    def length(self) -> float:
        """Timed length [m]: plan-view arc length from the start to the finish line."""
        return self.finish_s - self.start_s

    # --- centre line -------------------------------------------------------------------------------
    def centerline(self, s) -> np.ndarray:
        """Points c(s) [N, 3] of the centre line (eq. 3.10) at stations ``s`` [m]."""
        p = self.profile.evaluate(s)
        h, _ = self.height.evaluate(s)
        return np.column_stack([p.xy, h])

    def heading(self, s) -> np.ndarray:
        """Plan-view heading β(s) [rad], counter-clockwise from +y."""
        return self.profile.evaluate(s).beta

    def curvature(self, s) -> np.ndarray:
        """Signed plan-view curvature κ(s) [1/m] (positive turning left)."""
        return self.profile.evaluate(s).kappa

    def frame(self, s):
        """Section frame at ``s``: origin c(s) [N, 3], unit tangent of c(s) [N, 3], lateral [N, 3] (horizontal,
        to the left of travel) and up [N, 3] (the section's up, world +z). lateral and up span the
        section's plane, which is vertical and perpendicular to the plan-view tangent; the 3-D tangent is
        perpendicular to lateral but leans on slopes."""
        p = self.profile.evaluate(s)
        h, m = self.height.evaluate(s)
        n = len(h)
        t = np.column_stack([tangent(p.beta), m]) / np.sqrt(1 + m * m)[:, None]
        lat = np.column_stack([left(p.beta), np.zeros(n)])
        up = np.tile([0.0, 0.0, 1.0], (n, 1))
        return np.column_stack([p.xy, h]), t, lat, up

    def curve_index(self, s) -> np.ndarray:
        """0-based index of the curve whose extent [s_b, s_e) holds each s, −1 between curves."""
        s = np.atleast_1d(np.asarray(s, float))
        out = np.full(s.shape, -1, np.int64)
        for k, cu in enumerate(self.curves):
            out[(s >= cu.s_b) & (s < cu.s_e)] = k
        return out

    def stations(self, ds: float = DS) -> np.ndarray:
        """The discrete track profile's stations from s_min to s_max, every ``ds`` [m] (ends included)."""
        n = int(np.floor((self.s_max - self.s_min) / ds + 1e-9))
        s = self.s_min + ds * np.arange(n + 1)
        return s if s[-1] >= self.s_max - 1e-9 else np.append(s, self.s_max)

    # --- sections --------------------------------------------------------------------------------------
    def _placed_nets(self, s):
        pts, w, hands = self.sections.at(s)
        origin, _, lat, _ = self.frame(s)
        return surface.place(pts, origin, lat), w, hands

    def section_points(self, s: float, n: int = 71) -> np.ndarray:
        """``n`` points [n, 3] across the section at ``s`` in world coordinates, left to right, evenly in the
        curve parameter (each of the seven segments gets (n − 1)/7 parameter steps)."""
        world, w, _ = self._placed_nets(np.atleast_1d(float(s)))
        return sec.evaluate(world[0], w[0], np.linspace(0.0, sec.N_SEGMENTS, n))

    def top_edge(self, s, side: str) -> np.ndarray:
        """The section's top point on ``side`` ("left" or "right") at stations ``s`` [N, 3]."""
        world, _, _ = self._placed_nets(np.atleast_1d(np.asarray(s, float)))
        return world[:, 0] if side == "left" else world[:, -1]

    # --- mesh --------------------------------------------------------------------------------------------
    def surface_mesh(self, ds: float = DS) -> surface.SurfaceMesh:
        """The running surface alone, lofted from sections placed every ``ds`` [m]."""
        s = self.stations(ds)
        world, w, hands = self._placed_nets(s)
        return surface.loft(world, w, hands, s)

    def mesh(self) -> tuple[np.ndarray, np.ndarray]:
        """Running surface and boundary elements: vertices [V, 3] float64, triangles [T, 3] int64, wound
        counter-clockwise seen from inside the channel. Built once and kept."""
        if self._mesh is None:
            t0 = time.perf_counter()
            run = self.surface_mesh()
            verts, tris = [run.vertices], [run.triangles]
            first = len(run.vertices)
            stations = self.stations()
            for el in self.boundary:
                v, t = surface.boundary_strip(el, self.top_edge, stations, first)
                verts.append(v)
                tris.append(t)
                first += len(v)
            self._mesh = (np.concatenate(verts), np.concatenate(tris))
            self.mesh_build_seconds = time.perf_counter() - t0
        return self._mesh

    def triangle_mesh(self, **pose):
        """The mesh as a static :class:`impulsim.TriangleMesh` shape (``pose``: position, orientation,
        material as for any shape)."""
        from impulsim.geometry import TriangleMesh
        v, t = self.mesh()
        return TriangleMesh(vertices=v, triangles=t, **pose)

    # --- queries -----------------------------------------------------------------------------------------
    def project(self, points, mode: str = "section"):
        """Stations s [N], lateral offsets b [N] (to the left) and heights h [N] above c(s) of world points
        [N, 3] (eqs. 7.1–7.2). ``mode="section"`` finds the section plane holding the point (so that
        point = c(s) + b lateral + h up exactly); ``mode="perpendicular"`` the nearest point on c(s)."""
        if self._projector is None:
            from impulsim.apps.bobsleigh.track.query import Projector
            self._projector = Projector(self)
        return self._projector.project(points, mode)

    def summary(self) -> str:
        """A few lines describing the track."""
        h0, _ = self.height.evaluate([self.start_s, self.finish_s])
        lines = [f"track {self.name}: {self.length:.1f} m timed (s = {self.start_s:g} .. {self.finish_s:g} m), "
                 f"modelled s = {self.s_min:g} .. {self.s_max:g} m",
                 f"  drop start to finish {h0[0] - h0[1]:.2f} m, {len(self.curves)} curves, "
                 f"{len(self.sections.s)} given sections, {len(self.boundary)} boundary elements",
                 "  timing stations s = " + ", ".join(f"{x:g}" for x in self.timing_stations) + " m"]
        for k, cu in enumerate(self.curves):
            hand = "left " if cu.c > 0 else "right"
            lines.append(f"  curve {k + 1:2d} {hand} s = {cu.s_b:7.1f} .. {cu.s_e:7.1f} m, r_c = {cu.r_c:6.1f} m, "
                         f"turn {np.degrees(abs(cu.turn)):6.1f} deg")
        return "\n".join(lines)
