"""Coulomb's law and unilaterality in every phase of the contact solver, on a tumbling heap: the
accumulated normal impulse never pulls and the friction impulse never leaves the friction cone."""
import numpy as np

import impulsim as ims
from impulsim.math import quat_from_axis_angle
from impulsim.methods import make

H = 1e-3


def heap_on_incline(seed=3):
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("heap")
    b.add_material("ground", static_friction=0.3, dynamic_friction=0.2, restitution=0.5)
    b.add_material("box", static_friction=0.2, dynamic_friction=0.15, restitution=0.6)
    b.add_body("ground", shapes=[ims.HalfSpace(material="ground")], static=True,
               orientation=quat_from_axis_angle(np.array([0.0, 1.0, 0.0]), 0.3))
    for k in range(8):
        axis = rng.normal(size=3)
        b.add_body(f"box{k}", shapes=[ims.Box(size=rng.uniform(0.2, 0.5, 3), material="box")], mass=1.0,
                   position=(rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4), 0.6 + 0.45 * k),
                   orientation=quat_from_axis_angle(axis / np.linalg.norm(axis), rng.uniform(0, np.pi)),
                   angular_velocity=rng.normal(size=3))
    return b.build()


def check_phase(stage, seen):
    """Impulses of the phase just finished: λ_n ≥ 0 and |λ_t| ≤ μ λ_n (rounding: 1e-12 relative)."""
    r, n = stage.rows, stage.count
    lam_n, lam_t = r.lam_n[:n], np.linalg.norm(r.lam_t[:n], axis=1)
    mu = np.maximum(r.mu_s[:n], r.mu_d[:n])
    assert np.all(lam_n >= 0.0)
    assert np.all(lam_t <= mu * lam_n * (1 + 1e-12) + 1e-15)
    seen.append(int(np.count_nonzero(lam_t > 0)))


def test_impulses_stay_in_the_friction_cone():
    model, state = heap_on_incline()
    method = make("impulse", model)
    stage, seen = method.contacts, []
    for name in ("begin_positions", "end_positions", "end_velocities"):   # after collisions, positions, velocities
        original = getattr(stage, name)

        def checked(*args, _original=original, **kw):
            check_phase(stage, seen)
            return _original(*args, **kw)
        setattr(stage, name, checked)
    collisions = 0
    for _ in range(1500):
        collisions += method.step(state, H).n_collisions
    # the heap really tumbled: collisions happened and friction acted in many phases
    assert collisions > 20 and sum(1 for s in seen if s > 0) > 500
