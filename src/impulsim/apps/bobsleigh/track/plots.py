"""Plots of a track: plan view with curve numbers, height profile, cross-sections (PNG via matplotlib)."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from impulsim.apps.bobsleigh.track import section as sec


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plan_view(track, path: str | os.PathLike, ds: float = 0.5) -> None:
    """Plan view of the centre line and the channel's edges, curves numbered, timing stations marked."""
    plt = _pyplot()
    s = track.stations(ds)
    c = track.centerline(s)
    fig, ax = plt.subplots(figsize=(7, 8))
    edge_l, edge_r = track.top_edge(s, "left"), track.top_edge(s, "right")
    for e in (edge_l, edge_r):
        ax.plot(e[:, 0], e[:, 1], color="0.6", lw=0.6)
    k = track.curve_index(s)
    ax.plot(c[:, 0], c[:, 1], color="0.3", lw=1.0, label="straights")
    curved = np.where(k >= 0, c[:, 1], np.nan)
    ax.plot(c[:, 0], curved, color="tab:blue", lw=1.6, label="curves (s_b .. s_e)")
    gap = min(max(0.03 * float(np.ptp(c[:, :2], axis=0).max()), 5.0), 12.0)   # label distance [m]
    for i, cu in enumerate(track.curves):
        mid = 0.5 * (cu.s_c + cu.s_curved_end)
        p = track.centerline([mid])[0]
        n = track.frame([mid])[2][0]
        at = p[:2] - cu.c * gap * n[:2]             # outside of the curve
        ax.annotate(str(i + 1), at, ha="center", va="center", fontsize=9, color="tab:blue", weight="bold")
        ax.update_datalim([at])
    ts = track.centerline(np.concatenate([[track.start_s], track.timing_stations]))
    ax.plot(ts[:, 0], ts[:, 1], "o", ms=4, color="tab:red", label="start and timing stations")
    ax.set_aspect("equal")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(f"{track.name}: plan view (travel starts along +y at the origin)")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def height_profile(track, path: str | os.PathLike, ds: float = 0.5) -> None:
    """Height h(s) and slope over s, with the vertical-curve stations and curve extents shaded."""
    plt = _pyplot()
    s = track.stations(ds)
    h, m = track.height.evaluate(s)
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    a1.plot(s, h, color="tab:blue")
    for st in track.height.segments:
        a1.plot([st.s_c, st.s_e], [st.h_c, st.h_e], ".", color="tab:orange", ms=4)
    for i, cu in enumerate(track.curves):
        for ax in (a1, a2):
            ax.axvspan(cu.s_b, cu.s_e, color="0.9", lw=0)
        a1.text(0.5 * (cu.s_b + cu.s_e), h.max(), str(i + 1), ha="center", va="top", fontsize=8)
    for x in np.concatenate([[track.start_s], track.timing_stations]):
        a1.axvline(x, color="tab:red", lw=0.6, ls=":")
    a1.set_ylabel("h [m]")
    a1.set_title(f"{track.name}: height profile (orange: ends of the vertical curves; grey: curves; "
                 "red: timing)", fontsize=9)
    a2.plot(s, 100 * m, color="tab:green")
    a2.set_ylabel("slope dh/ds [%]")
    a2.set_xlabel("s [m]")
    a2.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def sections(track, path: str | os.PathLike, stations) -> None:
    """Cross-sections at ``stations`` [m] in section coordinates (b to the left of travel, h up)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for s in stations:
        pts, w, hands = track.sections.at([s])
        xy = sec.evaluate(pts[0], w[0], np.linspace(0, sec.N_SEGMENTS, 351))
        line, = ax.plot(xy[:, 0], xy[:, 1], label=f"s = {s:g} m ({'left' if hands[0] > 0 else 'right'} hand)")
        ax.plot(pts[0][0::2, 0], pts[0][0::2, 1], "o", ms=3, color=line.get_color())
        ax.plot(pts[0][1::2, 0], pts[0][1::2, 1], "x", ms=4, color=line.get_color())
    ax.invert_xaxis()                                   # left of travel on the left, as seen from behind
    ax.set_aspect("equal")
    ax.set_xlabel("b, to the left of travel [m] (seen in the direction of travel)")
    ax.set_ylabel("h above the centre line [m]")
    ax.set_title(f"{track.name}: cross-sections (o: points 0..7, x: inner control points)", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def surface_view(track, path: str | os.PathLike, s_from: float, s_to: float) -> None:
    """A 3-D view of the mesh between two stations (every third ring drawn as a line)."""
    plt = _pyplot()
    mesh = track.surface_mesh()
    sel = np.nonzero((mesh.ring_s >= s_from) & (mesh.ring_s <= s_to))[0]
    v = mesh.vertices.reshape(-1, 36, 3)[sel]
    fig = plt.figure(figsize=(8, 6))
    ax = fig.add_subplot(projection="3d")
    for ring in v[::3]:
        ax.plot(ring[:, 0], ring[:, 1], ring[:, 2], color="tab:blue", lw=0.5)
    for k in (0, 10, 15, 35):
        ax.plot(v[:, k, 0], v[:, k, 1], v[:, k, 2], color="0.3", lw=0.6)
    c = track.centerline(np.linspace(s_from, s_to, 200))
    ax.plot(c[:, 0], c[:, 1], c[:, 2], color="tab:red", lw=1.0)
    span = np.ptp(v.reshape(-1, 3), axis=0).max() / 2
    mid = v.reshape(-1, 3).mean(axis=0)
    ax.set_xlim(mid[0] - span, mid[0] + span)
    ax.set_ylim(mid[1] - span, mid[1] + span)
    ax.set_zlim(mid[2] - span / 3, mid[2] + span / 3)
    ax.set_box_aspect((1, 1, 1 / 3))                   # true scale in all three directions
    ax.set_title(f"{track.name}: running surface s = {s_from:g}..{s_to:g} m (red: centre line)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def profile_3d(track, path: str | os.PathLike, n_curves: int = 4) -> None:
    """The profile line p(s) (drawn at the lowest height) and the centre line c(s) above it, from the
    timing start to the end of curve ``n_curves``, with a vertical every 10 m."""
    plt = _pyplot()
    end = track.curves[min(n_curves, len(track.curves)) - 1].s_e if track.curves else track.finish_s
    s = np.arange(track.start_s, end, 0.5)
    c = track.centerline(s)
    base = c[:, 2].min()
    fig = plt.figure(figsize=(8, 6))
    ax = fig.add_subplot(projection="3d")
    ax.plot(c[:, 0], c[:, 1], np.full(len(s), base), color="0.4", lw=1.0, label="profile line p(s)")
    ax.plot(c[:, 0], c[:, 1], c[:, 2], color="tab:blue", lw=1.5, label="centre line c(s)")
    for k in range(0, len(s), 20):
        ax.plot([c[k, 0]] * 2, [c[k, 1]] * 2, [base, c[k, 2]], color="0.75", lw=0.5)
    span = np.ptp(c[:, :2], axis=0).max() / 2
    mid = c[:, :2].mean(axis=0)
    ax.set_xlim(mid[0] - span, mid[0] + span)
    ax.set_ylim(mid[1] - span, mid[1] + span)
    ax.set_zlim(base, c[:, 2].max())
    ax.set_box_aspect((1, 1, 0.6))
    ax.view_init(elev=18, azim=-35)
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_zlabel("h [m]")
    ax.legend(fontsize=8)
    ax.set_title(f"{track.name}: profile line and centre line up to curve {n_curves} (heights not to scale)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_all(track, folder: str | os.PathLike) -> list[Path]:
    """Plan view, height profile and sections of ``track`` into ``folder``; returns the files."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = [folder / f"{track.name}_plan.png", folder / f"{track.name}_height.png",
           folder / f"{track.name}_sections.png", folder / f"{track.name}_profile3d.png"]
    plan_view(track, out[0])
    height_profile(track, out[1])
    profile_3d(track, out[3])
    cu = track.curves[0] if track.curves else None
    stations = [track.start_s] + ([cu.s_c + cu.l_cl_en + 0.5 * cu.l_circ] if cu else [])
    sections(track, out[2], stations)
    return out
