"""The anisotropic runner law in full steps: a sled decelerates with μ_t along its runners and with the
load-dependent μ_b(λ_N) across them (thesis §4.3, eq. 4.5)."""
import numpy as np

from impulsim.methods.moreau import MoreauMethod, RunnerFriction
from impulsim.methods.moreau.laws import runner_lateral_coefficient
from impulsim.experiments.rempfler import G, runner_puck, runner_sled

H = 1e-3
E_A_TIGHT = 1e-9       # percussion tolerance far below the step's error (see test_contacts)
MASS = 10.0


def slide(velocity, runner, scene=runner_sled):
    """Distance [m] until the sled stops, and its final speed [m/s]."""
    model, state = scene(velocity, mass=MASS)
    method = MoreauMethod(model, runners={"sled": runner}, e_a=E_A_TIGHT)
    start = state.body_pos[2].copy()
    speed = np.linalg.norm(velocity)
    mu_low = min(runner.mu_t, runner.mu_b_min)
    for _ in range(int(1.1 * speed / (mu_low * G) / H)):
        method.step(state, H)
    return float(np.linalg.norm(state.body_pos[2] - start)), float(np.linalg.norm(state.body_vel[2]))


def test_sled_slides_forward_with_the_longitudinal_coefficient():
    runner = RunnerFriction(mu_t=4e-3, mu_r_ratio=0.66, mu_b_min=0.05, mu_b_max=0.05, axis=(1, 0, 0))
    distance, speed = slide((0.5, 0.0, 0.0), runner, scene=runner_puck)
    assert speed < 1e-5
    # d = v0² / (2 g μ_t); the midpoint scheme integrates the constant deceleration exactly and the last
    # step ends at most a h² short (a = μ_t g). (The four-cornered sled adds a start transient of up to
    # 2 g h² when rounding closes one runner end before the other; see test_contacts.)
    assert abs(distance - 0.5 ** 2 / (2 * G * runner.mu_t)) < G * H * H


def test_sled_slides_sideways_with_the_load_dependent_lateral_coefficient():
    runner = RunnerFriction(mu_t=4e-3, mu_r_ratio=0.66, mu_b_min=0.02, mu_b_max=0.1, lam_n_max=100.0,
                            axis=(1, 0, 0))
    distance, speed = slide((0.0, 0.5, 0.0), runner, scene=runner_puck)
    assert speed < 1e-5
    # the single contact carries m g, so μ_b = μ_b,min + (μ_b,max − μ_b,min) m g / λ_n,max
    mu_b = runner_lateral_coefficient(MASS * G, 0.02, 0.1, 100.0)
    expected = 0.5 ** 2 / (2 * G * mu_b)
    # constant deceleration: exact up to the last step (a h²) and the start (O(g h²), see test_contacts)
    assert abs(distance - expected) < G * H * H


def test_sled_pushed_diagonally_slides_mostly_along_its_runners():
    """Lateral friction is larger: a diagonal push loses its lateral part first (what makes steering work)."""
    runner = RunnerFriction(mu_t=4e-3, mu_r_ratio=0.66, mu_b_min=0.05, mu_b_max=0.05, axis=(1, 0, 0))
    model, state = runner_sled((1.0, 1.0, 0.0), mass=MASS)
    method = MoreauMethod(model, runners={"sled": runner}, e_a=E_A_TIGHT)
    for _ in range(int(2.0 / H)):       # lateral deceleration μ_b g ≈ 0.5 m/s² stops the side slip in 2 s
        method.step(state, H)
    v = state.body_vel[2]
    assert abs(v[1]) < 0.05 * abs(v[0])
    force, _ = method.contact_load("sled")
    # while sliding, the friction never exceeds the set's extreme values: |F_t| ≤ μ_t N, |F_b| ≤ μ_b N
    assert abs(force[0]) <= runner.mu_t * MASS * G * (1 + 1e-6)
    assert abs(force[1]) <= runner.mu_b_max * MASS * G * (1 + 1e-6)


def test_scaled_and_exact_runner_prox_have_the_same_solution():
    """Both proxes are projections onto the same set (in different metrics), so they share their fixed
    points: the converged percussions, hence the motion, agree to the solver tolerance."""
    finals = []
    for prox in ("scaled", "exact"):
        runner = RunnerFriction(mu_t=4e-3, mu_r_ratio=0.66, mu_b_min=0.02, mu_b_max=0.1, lam_n_max=100.0,
                                axis=(1, 0, 0), prox=prox)
        model, state = runner_sled((1.0, 1.0, 0.0), mass=MASS)
        method = MoreauMethod(model, runners={"sled": runner}, e_a=E_A_TIGHT)
        for _ in range(500):
            method.step(state, H)
        finals.append(np.concatenate([state.body_pos[2], state.body_vel[2]]))
    # e_a = 1e-9 N s on 10 kg: 1e-10 m/s per step at most, over 500 steps
    assert np.allclose(finals[0], finals[1], atol=500 * E_A_TIGHT / MASS)
