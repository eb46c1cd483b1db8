"""Wagner's control elements together: a box led along a Bézier path at 0.4 m/s (PointToPath, turning
back at the end), a second box tied to it by a spring controller, a damping field, and the forces the
path constraint needs to drag the train (its λ per step).

    python examples/lagrange/path_follower.py [--plot DIR]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import impulsim as ims
from impulsim.methods.lagrange import (LagrangeMethod, PointToPath, BezierCurve, SpringForce, DampingField)

SPEED, H, SECONDS = 0.4, 1e-2, 12.0


def scene():
    b = ims.ModelBuilder("path follower", gravity=(0, 0, -9.81))
    b.add_body("leader", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(0, 0, 0))
    b.add_body("trailer", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=0.5, position=(-0.5, 0, 0))
    return b.build()


def main(argv=()) -> int:
    model, state = scene()
    path = BezierCurve([[0, 0, 0], [1, 1, 0], [2, -1, 0], [3, 0, 0]])
    method = LagrangeMethod(      # the Lagrange method has no contacts: the cars' shapes give mass only
        model, contacts=False, constraints=[PointToPath("rail", "leader", path, speed=SPEED, at_end="reverse")],
        forces=[SpringForce("tow", "leader", "trailer", stiffness=40.0, damping=4.0, rest_length=0.5),
                DampingField(k=0.2)])
    speeds, off_path, pulls, xs = [], [], [], []
    for _ in range(int(SECONDS / H)):
        method.step(state, H)
        p = state.body_pos[1]
        speeds.append(np.linalg.norm(state.body_vel[1]))
        off_path.append(np.linalg.norm(path.point(path.closest_parameter(p)) - p))
        pulls.append(np.linalg.norm(method.constraint_forces(state, H).element("rail")["force_b"]))
        xs.append(p[0])
    settled = slice(int(2.0 / H), None)
    turn = int(np.argmax(xs))
    ok_speed = abs(np.median(speeds[settled]) - SPEED) < 0.02
    # on the way out, once the start-up transient has died and until the end comes near, the point stays
    # on the path (Baumgarte keeps the drift of RK4 at h = 10 ms far below 1 mm)
    cruise = slice(int(2.0 / H), turn - int(1.0 / H))
    ok_path = max(off_path[cruise]) < 1e-3
    # at the end the target stops, then turns: its velocity jumps by up to 2 v, and a critically
    # damped error peaks at Δv/(e α)
    bound = 2 * SPEED / (np.e * 5.0)
    ok_turn = max(off_path[cruise.stop:]) < bound
    turned = max(xs) > 2.9 and xs[-1] < max(xs) - 0.5
    print(f"median speed {np.median(speeds[settled]):.4f} m/s (set {SPEED}); distance from the path up to "
          f"{max(off_path[cruise]):.2e} m while cruising, {max(off_path[cruise.stop:]):.2e} m near and after the turn "
          f"(bound {bound:.2e}); turned at x = {max(xs):.3f} m; path force up to {max(pulls):.2f} N")
    ok = ok_speed and ok_path and ok_turn and turned
    print("ok" if ok else "FAILED")
    if "--plot" in argv:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        out = Path(argv[argv.index("--plot") + 1])
        t = np.arange(1, len(pulls) + 1) * H
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.plot(t, pulls)
        ax.set_xlabel("t [s]")
        ax.set_ylabel("|force of the path constraint| [N]")
        fig.tight_layout()
        fig.savefig(out / "path_follower_force.png", dpi=110)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
