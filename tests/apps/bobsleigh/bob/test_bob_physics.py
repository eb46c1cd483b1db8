"""The two-man bob on simple surfaces: point-mass motion on a straight slope, the runner friction law,
energy, and the steering moment induced by the contacts."""
import math

import numpy as np

from impulsim.apps.bobsleigh.bob import load_bob
from impulsim.apps.bobsleigh.bob.sim import BobSim
from tests.apps.bobsleigh.bob.planes import inclined_plane, slope_frame

H = 2e-4


def _bob_on_slope(slope, speed, **setup):
    bob = load_bob().with_setup(**setup)
    sim = BobSim(bob, inclined_plane(slope))
    t, l = slope_frame(slope)
    sim.place(np.zeros(3), t, l, speed=speed)
    return bob, sim


def test_straight_slope_matches_point_mass_with_friction_and_drag():
    """On a 5° slope, running straight: m v̇ = m g (sin θ − μ_t cos θ) − ½ ρ c_d A v², whose solution is
    v(t) = v∞ tanh(t/τ + atanh(v0/v∞)). Speed and distance after 8 s within 0.5 % (the multibody bob carries
    its whole weight on the runners, each sliding straight ahead at μ_t)."""
    slope, v0, T = 5.0, 10.0, 8.0
    bob, sim = _bob_on_slope(slope, v0)
    x0 = sim.position.copy()
    sim.run(H, int(round(T / H)), 0.0)
    m, g, th = bob.mass, bob.gravity, math.radians(slope)
    a = g * (math.sin(th) - bob.runner["mu_t"] * math.cos(th))
    k = 0.5 * bob.air_density * bob.drag_area / m
    vinf, tau = math.sqrt(a / k), 1.0 / math.sqrt(a * k)
    c = math.atanh(v0 / vinf)
    v_ref = vinf * math.tanh(T / tau + c)
    d_ref = vinf * tau * (math.log(math.cosh(T / tau + c)) - math.log(math.cosh(c)))
    v = np.linalg.norm(sim.velocity)
    d = np.linalg.norm(sim.position - x0)
    assert abs(v - v_ref) < 5e-3 * v_ref, (v, v_ref)
    assert abs(d - d_ref) < 5e-3 * d_ref, (d, d_ref)


def _flat_slide(velocity, T=0.5):
    bob, sim = _bob_on_slope(0.0, 0.0)
    sim.system.u[0:3] = velocity
    sim.run(H, 50, 0.0)                      # settle the contacts
    v0 = sim.momentum_velocity()
    sim.system.reset_accumulators()
    n = int(round(T / H))
    sim.run(H, n, 0.0)
    return bob, sim, v0, sim.momentum_velocity(), n


def test_runner_law_sliding_sideways_decelerates_with_the_lateral_coefficient():
    """Sliding sideways at 3 m/s on flat ice: every runner point sits at the lateral end of its set, so its
    lateral percussion is μ_b(P_n) P_n of its own normal percussion (eq. 4.5, percussion form), the bob
    decelerates by the sum of these (plus drag), between μ_b,min g and μ_b,max g."""
    bob, sim = _bob_on_slope(0.0, 0.0)
    sim.system.u[0:3] = (0.0, 3.0, 0.0)
    sim.run(H, 50, 0.0)                      # settle the contacts
    r = bob.runner
    C = sim.system.contacts
    v0 = sim.momentum_velocity()
    lateral, n = 0.0, 2500
    for _ in range(n):
        sim.run(H, 1, 0.0)
        for s in sim.runners[C.closed[sim.runners] == 1]:
            pn, pt, pb = C.P[s]
            mu_b = r["mu_b_min"] + (r["mu_b_max"] - r["mu_b_min"]) * min(pn, r["lam_n_max"] * H) / (r["lam_n_max"] * H)
            assert abs(abs(pb) - mu_b * pn) < 1e-4 + 1e-6 * pn      # on the set's lateral end
            assert pb < 0                                             # against the sliding
            lateral += mu_b * pn
    v1 = sim.momentum_velocity()
    drag = 0.5 * bob.air_density * bob.drag_area * (0.5 * (v0[1] + v1[1])) ** 2 / bob.mass
    dec = (v0[1] - v1[1]) / (n * H)
    expected = lateral / (bob.mass * n * H) + drag
    assert abs(dec - expected) < 0.01 * expected, (dec, expected)
    assert r["mu_b_min"] * bob.gravity < dec < r["mu_b_max"] * bob.gravity


def test_runner_law_sliding_forward_decelerates_with_mu_t():
    """Sliding straight ahead at 5 m/s on flat ice: the whole bob decelerates at μ_t g plus drag."""
    bob, sim, v0, v1, n = _flat_slide(np.array([5.0, 0.0, 0.0]))
    dec = (v0[0] - v1[0]) / (n * H)
    drag = 0.5 * bob.air_density * bob.drag_area * np.mean([v0[0], v1[0]]) ** 2 / bob.mass
    assert abs(dec - (bob.runner["mu_t"] * bob.gravity + drag)) < 0.01 * dec


def test_percussions_lie_in_the_friction_sets():
    """Sliding diagonally with steering: every closed contact's percussion satisfies P_n ≥ 0 and lies in its
    friction set to the solver's tolerance (e_a = 1e-4 N s plus e_r of the normal percussion)."""
    bob, sim = _bob_on_slope(3.0, 8.0)
    sim.system.u[1] = 1.5
    C = sim.system.contacts
    r = bob.runner
    worst = -np.inf
    for k in range(200):
        sim.run(H, 5, math.radians(5.0) * math.sin(k / 20))
        for s in np.nonzero(C.closed)[0]:
            pn, pt, pb = C.P[s]
            assert pn >= 0
            if s in sim.runners:
                mu_b = r["mu_b_min"] + (r["mu_b_max"] - r["mu_b_min"]) * min(pn, r["lam_n_max"] * H) / (r["lam_n_max"] * H)
                half, a, b = r["mu_r_ratio"] * r["mu_t"] * pn, (1 - r["mu_r_ratio"]) * r["mu_t"] * pn, mu_b * pn
                over = max(abs(pt) - half, 0.0)
                excess = math.sqrt((over / a) ** 2 + (pb / b) ** 2) - 1 if a > 0 else 0.0
                worst = max(worst, excess * b)          # in N s along b
    assert worst < 1e-4 + 1e-6


def test_energy_changes_only_by_the_work_of_gravity():
    """Friction and drag off, springs undamped: on a 5° slope the sum of kinetic, gravitational and spring
    energy stays within 0.5 % of the kinetic energy gained over 3 s."""
    bob = load_bob().with_setup(runner={"mu_t": 1e-12, "mu_b_min": 1e-12, "mu_b_max": 1e-12}, drag_area=0.0)
    for b in bob.bodies:
        if "spring" in b and len(b["spring"]) > 4:
            sp = list(b["spring"])
            sp[4] = 0.0
            b["spring"] = tuple(sp)
    sim = BobSim(bob, inclined_plane(5.0))
    t, l = slope_frame(5.0)
    sim.place(np.zeros(3), t, l, speed=10.0, clearance=0.0005)
    sim.run(H, 100, 0.0)
    e0 = np.array(sim.system.energy())
    sim.run(H, int(3.0 / H), 0.0)
    e1 = np.array(sim.system.energy())
    gained = e1[0] - e0[0]
    assert gained > 1000.0
    assert abs(e1.sum() - e0.sum()) < 5e-3 * gained, (e0, e1)


def test_induced_steering_moment_equals_moment_of_contact_percussions():
    """Eq. 2.48: the percussion induced in the steering joint, i = Hᵀ F, equals the moment about the
    steering axis (through the joint point) of the percussions on the bodies beyond the joint, to
    round-off; checked over steps with steering and sideways sliding."""
    bob, sim = _bob_on_slope(3.0, 8.0)
    sim.system.u[1] = 1.0
    head = sim.system.body("steering_head")
    beyond = [sim.system.body(n) for n in ("steering_head", "front_axle", "front_runner_left",
                                            "front_runner_right")]
    C, S, W = sim.system.contacts, sim.system.S, sim.system.work
    checked = 0
    for k in range(50):
        sim.system.reset_accumulators()
        sim.run(H, 1, math.radians(8.0) * math.sin(k / 7))
        axis, point = W.axis[head], W.point[head]
        moment = 0.0
        for s in np.nonzero(C.closed)[0]:
            if S.body[s] in beyond:
                F = C.P[s, 0] * C.normal[s] + C.P[s, 1] * C.tangent[s] + C.P[s, 2] * C.bitangent[s]
                moment += axis @ np.cross(C.point[s] - point, F)
        induced = sim.system.acc.i_sum[0]
        assert abs(induced - moment) <= 1e-12 + 1e-9 * abs(moment)
        checked += abs(moment) > 1e-6
    assert checked > 10
