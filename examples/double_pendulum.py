"""The double pendulum of double_pendulum.yaml, written with the Python builder instead of a scene file.

Run it to simulate 5 s, print the energy drift and the largest joint error, and check that the builder
and the scene file describe the same model:

    python examples/double_pendulum.py
"""
from pathlib import Path

import numpy as np

import impulsim as ims
from impulsim.io import load_scene

ROD_SIDE = 0.05     # [m]
DENSITY = 1000.0    # [kg/m³]


def build():
    """(model, state) of two 1 m rods on parallel hinges about x, the upper one lying along +y."""
    b = ims.ModelBuilder("double_pendulum")
    b.add_body("upper", shapes=[ims.Box(size=(ROD_SIDE, 1.0, ROD_SIDE))], density=DENSITY,
               position=(0, 0.5, 0))
    b.add_body("lower", shapes=[ims.Box(size=(ROD_SIDE, ROD_SIDE, 1.0))], density=DENSITY,
               position=(0, 1.0, -0.5))
    b.add_hinge("shoulder", "world", "upper", anchor=(0, 0, 0), axis=(1, 0, 0))
    b.add_hinge("elbow", "upper", "lower", anchor=(0, 1, 0), axis=(1, 0, 0))
    return b.build()


def main(duration=5.0, h=1e-3):
    model, state = build()
    sim = ims.Simulation(model, state, method="impulse", h=h, eps_d=1e-6, eps_v=1e-6)
    e0 = ims.diagnostics.total_energy(model, sim.state)
    worst = 0.0
    for _ in range(int(round(duration / h))):
        sim.step()
        worst = max(worst, ims.diagnostics.constraint_errors(model, sim.state).max())
    drift = ims.diagnostics.total_energy(model, sim.state) - e0
    print(f"{duration:g} s in {sim.state.step_count} steps: energy drift {drift:.3g} J, "
          f"largest joint error {worst:.3g} m")
    scene = load_scene(Path(__file__).with_name("double_pendulum.yaml"))
    same = all(np.array_equal(getattr(model, k), getattr(scene.model, k))
               for k in ("body_mass", "body_inertia", "joint_anchor_a", "joint_anchor_b", "prim_axis_a"))
    print("the builder and double_pendulum.yaml give the same model:", same)


if __name__ == "__main__":
    main()
