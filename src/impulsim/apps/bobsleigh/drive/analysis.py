"""Line analysis (as in Rempfler's chapter 7): two runs compared along the track in one curve, against the
station s of the nose: Δv (speed difference to the reference run), Δt (time lost or gained since the start),
the height h_S of the bob above the centre line and its lateral offset b_S."""
from __future__ import annotations

import numpy as np


def _monotone(trace):
    """Station [m] made non-decreasing (a bob sliding back stays at its furthest station) and time, speed,
    h, b on it."""
    s = np.maximum.accumulate(np.asarray(trace["s"], float))
    keep = np.concatenate([[True], np.diff(s) > 1e-9])
    return {k: np.asarray(trace[k], float)[keep] for k in ("t", "speed", "h", "b")} | {"s": s[keep]}


def compare(run, ref, s_from: float, s_to: float, n: int = 400) -> dict:
    """Arrays on a grid of n stations in [s_from, s_to] [m] covered by both runs: ``s``, ``dv`` = v − v_ref
    [m/s], ``dt`` = t − t_ref [s] (positive: the run is slower), ``h``/``h_ref`` and ``b``/``b_ref`` [m]."""
    a, r = _monotone(run.trace), _monotone(ref.trace)
    lo = max(s_from, a["s"][0], r["s"][0])
    hi = min(s_to, a["s"][-1], r["s"][-1])
    if not hi > lo:
        raise ValueError(f"analyse: the runs do not both cover s = {s_from:.1f} … {s_to:.1f} m")
    s = np.linspace(lo, hi, n)
    at = lambda d, k: np.interp(s, d["s"], d[k])
    return {"s": s, "dv": at(a, "speed") - at(r, "speed"), "dt": at(a, "t") - at(r, "t"),
            "h": at(a, "h"), "h_ref": at(r, "h"), "b": at(a, "b"), "b_ref": at(r, "b")}


def curve_range(track, curve: int | None):
    """Stations [m] of curve ``curve`` (1-based, as the tracks name them), or start to finish for None."""
    if curve is None:
        return float(track.start_s), float(track.finish_s)
    curves = track.curves
    if not 1 <= curve <= len(curves):
        raise ValueError(f"analyse: --curve must be 1 … {len(curves)} on {track.name}")
    c = curves[curve - 1]
    return float(c.s_b), float(c.s_e)


def plot(cmp: dict, names, title: str, path) -> None:
    """Four panels against s: Δv, Δt, h_S and b_S of both runs; written as PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(4, 1, figsize=(8, 9), sharex=True)
    s = cmp["s"]
    ax[0].plot(s, cmp["dv"], "C0")
    ax[0].set_ylabel("Δv [m/s]")
    ax[1].plot(s, cmp["dt"], "C3")
    ax[1].set_ylabel("Δt [s]")
    for k, (key, label) in enumerate((("h", "h_S [m]"), ("b", "b_S [m]"))):
        ax[2 + k].plot(s, cmp[key], "C0", label=names[0])
        ax[2 + k].plot(s, cmp[key + "_ref"], "C1--", label=names[1])
        ax[2 + k].set_ylabel(label)
        ax[2 + k].legend(loc="best", fontsize=8)
    for a in ax:
        a.grid(alpha=0.3)
        a.axhline(0, color="k", lw=0.5)
    ax[-1].set_xlabel("s [m]")
    ax[0].set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def analyse(run_path, ref_path, track=None, curve=None, out=None) -> dict:
    """Compare two recorded runs (Parquet files) in ``curve`` (1-based; None: start to finish); write a PNG
    to ``out`` when given. The track is the one named in the runs' setup unless given."""
    from impulsim.apps.bobsleigh.drive.record import load_run
    from impulsim.apps.bobsleigh.track import load_track
    a, r = load_run(run_path), load_run(ref_path)
    track = track or a.setup.get("track") or r.setup.get("track")
    if not track:
        raise ValueError(f"{run_path}:1: run file: no track named; pass --track")
    if isinstance(track, str):
        track = load_track(track)
    s0, s1 = curve_range(track, curve)
    cmp = compare(a, r, s0, s1)
    if out:
        from pathlib import Path
        label = f"curve {curve}" if curve else "start to finish"
        plot(cmp, (Path(run_path).stem, Path(ref_path).stem), f"{track.name}, {label}: "
             f"{Path(run_path).stem} against {Path(ref_path).stem}", out)
    return cmp
