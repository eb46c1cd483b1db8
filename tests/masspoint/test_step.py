"""One step at a time: the prediction, the fin correction along OLD directions, the velocity correction
along NEW directions, threads, rails, kicks and the conservation laws the pair impulses guarantee."""
import itertools

import numpy as np
import pytest

from impulsim.experiments import schmitt as scenes
from impulsim.methods.masspoint import MassPointBuilder, MassPointMethod, point_system, record
from impulsim.methods.masspoint import diagnostics as dg
from impulsim.simulation import Simulation

ROUNDING = 1e-12
"""Relative bound for results that are exact in real arithmetic and only see float64 rounding
(a few hundred operations of relative size 1.1e-16 each)."""


def _one_point(position=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0), gravity=(0.0, 0.0, -9.81), **rail):
    b = MassPointBuilder("one", gravity=gravity)
    b.add_point("p", position, mass=2.0, velocity=velocity, **rail)
    return b


def test_free_point_follows_the_parabola_exactly():
    # P(t) = P0 + V0 t + g t²/2: the prediction is exact for constant acceleration (report §3.2 step 2)
    p0, v0, g = np.array([1.0, -2.0, 3.0]), np.array([0.5, 0.25, 4.0]), np.array([0.0, 0.0, -9.81])
    model, state = _one_point(p0, v0).build()
    h, n = 0.01, 100
    Simulation(model, state, "masspoint", h).run(n * h)
    t = n * h
    assert np.allclose(state.body_pos[1], p0 + v0 * t + 0.5 * g * t * t, rtol=0, atol=ROUNDING * 10)
    assert np.allclose(state.body_vel[1], v0 + g * t, rtol=0, atol=ROUNDING * 10)


BOB = 2
"""Body index of the bob (after the world and the pivot)."""


def _moving_pendulum(velocity_correction):
    b = MassPointBuilder("p")
    b.add_point("pivot", (0, 0, 0), fixed=True)
    b.add_point("bob", (0.6, 0.0, -0.8), mass=1.5, velocity=(2.4, 0.5, 1.8))  # V ⟂ rod: consistent start
    b.add_distance("pivot", "bob")
    model, state = b.build()
    method = MassPointMethod(model, eps=1e-13, velocity_correction=velocity_correction)
    return model, state, method


def test_fin_correction_acts_along_the_old_direction():
    model, state, method = _moving_pendulum(velocity_correction=False)
    p0, v0, h = state.body_pos[BOB].copy(), state.body_vel[BOB].copy(), 0.05
    predicted = p0 + v0 * h + 0.5 * model.gravity * h * h
    method.step(state, h)
    dp = state.body_pos[BOB] - predicted
    dv = state.body_vel[BOB] - (v0 + model.gravity * h)
    e_old = p0 / np.linalg.norm(p0)
    assert np.linalg.norm(np.cross(dp, e_old)) <= ROUNDING * np.linalg.norm(dp)
    # the position correction is h times the velocity correction: one impulse at t = 0⁻ (§3.1)
    assert np.allclose(dp, h * dv, rtol=0, atol=ROUNDING)
    assert abs(np.linalg.norm(state.body_pos[BOB]) - 1.0) < method.eps


def test_velocity_correction_acts_along_the_new_direction():
    _, plain, m_plain = _moving_pendulum(velocity_correction=False)
    _, corrected, m_corr = _moving_pendulum(velocity_correction=True)
    m_plain.step(plain, 0.05)
    m_corr.step(corrected, 0.05)
    assert np.array_equal(plain.body_pos, corrected.body_pos)   # positions are not touched
    e_new = corrected.body_pos[BOB] / np.linalg.norm(corrected.body_pos[BOB])
    dv = corrected.body_vel[BOB] - plain.body_vel[BOB]
    assert np.linalg.norm(np.cross(dv, e_new)) <= ROUNDING * np.linalg.norm(dv)
    # condition (1) of §3.3: (P_j − P_i)·(V_j − V_i) = 0, met to the tolerance eps_v [m/s]
    assert abs(corrected.body_vel[BOB] @ e_new) < m_corr.eps_v


def _spinning_box(eps):
    """A weightless box of eight unequal masses, all 28 pairs linked, moving as a rigid body."""
    b = MassPointBuilder("box", gravity=(0.0, 0.0, 0.0))
    w, v0 = np.array([0.3, -1.2, 2.0]), np.array([0.5, 0.1, -0.2])
    names = []
    for k, corner in enumerate(itertools.product((-1, 1), repeat=3)):
        p = np.array(corner) * np.array([1.0, 0.7, 0.4])
        names.append(b.add_point(f"c{k}", p, mass=1.0 + 0.1 * k, velocity=v0 + np.cross(w, p)))
    b.add_rigid_body("box", names)
    model, state = b.build()
    return model, state, Simulation(model, state, "masspoint", 0.05, eps=eps)


def test_pair_impulses_conserve_linear_and_angular_momentum():
    # Each impulse pair is equal and opposite along the line through the pair (old line for fin, new
    # line for the velocity correction), and P(h) = P(0) + h V(h) without external force, so Σ m V
    # and Σ m P × V are conserved exactly, whatever eps: only rounding remains.
    model, state, sim = _spinning_box(eps=1e-5)
    traj = record(sim, 200)
    momentum = dg.linear_momentum(model, traj.vel)
    spin = np.einsum("i,kij->kj", dg.masses(model), np.cross(traj.pos, traj.vel))
    assert np.abs(momentum - momentum[0]).max() <= ROUNDING * max(1.0, np.abs(momentum[0]).max())
    assert np.abs(spin - spin[0]).max() <= ROUNDING * np.linalg.norm(spin[0])


def test_positions_ignore_velocity_changes_along_the_links():
    # §3.3: the next fin solve absorbs any impulse pair along the (old) link directions, so such a
    # change of V(0) leaves P(h) unchanged up to the fin tolerance eps.
    eps = 1e-12
    model, state, sim = _spinning_box(eps)
    sim.run(0.5)
    other = state.copy()
    rng = np.random.default_rng(7)
    system = point_system(model, state)
    for c, mu in zip(range(system.n_constraints), rng.normal(size=system.n_constraints)):
        i, j = system.con_i[c], system.con_j[c]
        e = state.body_pos[j] - state.body_pos[i]
        e /= np.linalg.norm(e)
        other.body_vel[i] += mu * e / model.body_mass[i]
        other.body_vel[j] -= mu * e / model.body_mass[j]
    sim.method.step(state, 0.05)
    MassPointMethod(model, eps=eps).step(other, 0.05)
    # both solutions lie within eps of the same constraint manifold point; the box is 2 m across, so a
    # bound of 100 eps leaves room for the Gauss–Seidel sweeps stopping at different places
    assert np.abs(state.body_pos - other.body_pos).max() < 100 * eps


def test_slack_thread_exerts_no_force():
    b = MassPointBuilder("slack")
    b.add_point("a", (0, 0, 0), mass=1.0, velocity=(0.1, 0, 0))
    b.add_point("b", (0.5, 0, 0), mass=3.0, velocity=(0.1, 0, 0))
    b.add_thread("a", "b", length=1.0)
    model, state = b.build()
    Simulation(model, state, "masspoint", 0.01).run(1.0)
    t, g = 1.0, model.gravity
    free = np.array([[0.0, 0, 0], [0.5, 0, 0]]) + np.array([0.1, 0, 0]) * t + 0.5 * g * t * t
    assert np.allclose(state.body_pos[1:], free, rtol=0, atol=ROUNDING * 10)


def test_taut_thread_stops_a_falling_ball_dead():
    # §5.4: a ball falling 0.5 m onto an inextensible thread comes to rest at once; the fall's kinetic
    # energy m g 0.5 is absorbed
    b = MassPointBuilder("drop")
    b.add_point("hook", (0, 0, 0), fixed=True)
    b.add_point("ball", (0, 0, -0.5), mass=2.0)
    b.add_thread("hook", "ball", length=1.0)
    model, state = b.build()
    sim = Simulation(model, state, "masspoint", 0.001)
    sim.run(0.5)        # free fall of 0.5 m takes √(2·0.5/9.81) = 0.319 s
    ball = model.body("ball")
    assert abs(state.body_pos[ball, 2] + 1.0) < sim.method.eps
    assert np.abs(state.body_vel[ball]).max() < sim.method.eps_v
    energy = dg.total_energy(model, state.body_pos, state.body_vel)
    assert energy == pytest.approx(-2.0 * 9.81 * 1.0, abs=2.0 * 9.81 * sim.method.eps)


def test_point_on_a_plane_slides_with_the_projected_gravity():
    n = np.array([0.0, 0.6, 0.8])           # plane tilted 36.87° about x
    model, state = _one_point(plane=n).build()
    h, steps = 0.01, 100
    Simulation(model, state, "masspoint", h).run(steps * h)
    g = model.gravity
    a = g - (g @ n) * n                     # frictionless plane: normal part of g is taken up
    t = steps * h
    assert np.allclose(state.body_pos[1], 0.5 * a * t * t, rtol=0, atol=ROUNDING * 10)
    assert abs(state.body_pos[1] @ n) < ROUNDING


def test_suspension_point_never_moves():
    model, state = scenes.rigid_pendulum()
    p1 = model.body("p1")
    start = state.body_pos[p1].copy()
    Simulation(model, state, "masspoint", 0.01).run(2.0)
    assert np.array_equal(state.body_pos[p1], start) and not state.body_vel[p1].any()


def test_kick_impulse_is_exact_across_step_boundaries():
    # a kick of 3 N from t = 0.013 s for 0.05 s overlaps six steps of 0.01 s only partly;
    # the mean-force rule gives exactly the impulse 0.15 N s
    model_b = _one_point(gravity=(0.0, 0.0, 0.0))
    model_b.add_kick("p", (3.0, 0.0, 0.0), start=0.013, duration=0.05)
    model, state = model_b.build()
    Simulation(model, state, "masspoint", 0.01).run(0.1)
    assert model.body_mass[1] * state.body_vel[1, 0] == pytest.approx(0.15, rel=ROUNDING)


def test_held_user_force_accelerates_like_gravity():
    model, state = _one_point(gravity=(0.0, 0.0, 0.0)).build()
    state.body_force[1] = (0.0, 4.0, 0.0)          # 4 N on 2 kg: 2 m/s²
    Simulation(model, state, "masspoint", 0.01).run(1.0)
    assert state.body_pos[1, 1] == pytest.approx(0.5 * 2.0 * 1.0, rel=ROUNDING)


def test_over_relaxation_still_meets_every_link():
    model, state = scenes.rigid_pendulum()
    sim = Simulation(model, state, "masspoint", 0.01, weight=1.4)
    traj = record(sim, 300)
    assert traj.fin_converged.all()
    assert np.abs(dg.link_errors(traj.system, traj.pos)).max() < sim.method.eps
