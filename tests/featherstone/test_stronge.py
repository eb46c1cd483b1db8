"""Stronge's law with Coulomb friction integrated along the collision (Holck §2.3–2.4; stronge.py), and the
restitution laws of the Featherstone contact stage."""
import numpy as np
import pytest

import impulsim as ims
from impulsim.dynamics import diagnostics
from impulsim.methods.featherstone import FeatherstoneMethod
from impulsim.methods.featherstone.stronge import (JAMMED, SLIDING, STABLE_STICK, UNSTABLE_STICK,
                                                   ray_residuals, sliding_direction, stable_sticking,
                                                   stronge_collision)

STEPS = 16
SLIP_TOL = 1e-12

# Rounding only: the frictionless and sticking results are closed forms or RK4 on a linear (hence exactly
# integrated) system, a few dozen flops on numbers of order one.
EXACT = 1e-9

# Relative accuracy of the sliding integration at 16 RK4 steps per phase: measured below 5e-7 on the random
# matrices of these tests (convergence order 4 is checked separately); the energy balance is asserted to
# this fraction of the kinetic energy of the approach.
INTEGRATION = 1e-6


def _random_K(rng, coupled=True, floor=0.1):
    A = rng.normal(size=(3, 3))
    K = A @ A.T + floor * np.eye(3)
    if not coupled:
        K[0, 2] = K[2, 0] = K[1, 2] = K[2, 1] = 0.0
    return K


def _random_u0(rng):
    u0 = rng.normal(size=3)
    u0[2] = -abs(u0[2]) - 0.1
    return u0


def _collide(K, u0, mu, e, steps=STEPS):
    p, u = np.zeros(3), np.zeros(3)
    regime = stronge_collision(K, u0, mu, e, steps, SLIP_TOL, p, u)
    return regime, p, u


def _energy_change(u0, u, p):
    """ΔT = ½ (u0 + u)·p: the work of an impulse on a linear system with Δu = K p (any bodies behind K)."""
    return 0.5 * (u0 + u) @ p


def _approach_energy(K, u0):
    """½ u0ᵀ K⁻¹ u0: kinetic energy of the relative motion at the contact, the scale of ΔT."""
    return 0.5 * u0 @ np.linalg.solve(K, u0)


# --- single collisions ---------------------------------------------------------------------------

@pytest.mark.parametrize("coupled", [False, True])
def test_frictionless_stronge_gives_newtons_impulse_and_dissipates_one_minus_e_squared(coupled):
    """With μ = 0 the impulse stays normal, u_z = u_z0 + K_33 p_z, W_c = −u_z0²/(2 K_33), so Stronge's
    W_r = −e² W_c gives u_z⁺ = −e u_z0 (Newton) and ΔT = −(1 − e²) u_z0²/(2 K_33)."""
    rng = np.random.default_rng(1)
    for _ in range(20):
        K, u0, e = _random_K(rng, coupled), _random_u0(rng), rng.uniform()
        _, p, u = _collide(K, u0, 0.0, e)
        newton = np.array([0.0, 0.0, -(1.0 + e) * u0[2] / K[2, 2]])
        assert np.allclose(p, newton, rtol=EXACT, atol=EXACT * abs(newton[2]))
        assert u[2] == pytest.approx(-e * u0[2], rel=EXACT)
        loss = -(1.0 - e ** 2) * u0[2] ** 2 / (2.0 * K[2, 2])
        assert _energy_change(u0, u, p) == pytest.approx(loss, rel=EXACT, abs=EXACT * abs(u0[2]) ** 2 / K[2, 2])


def test_stronge_never_creates_energy_and_stays_in_the_friction_cone():
    """Every regime dissipates: W_z(end) = (1 − e²) W_c ≤ 0 and the friction work is ≤ 0. The friction
    impulse is an integral of ξ_t with |ξ_t| = μ per unit p_z (or a closed form inside the cone), so
    |p_t| ≤ μ p_z holds to rounding (RK4 adds stage increments with positive weights)."""
    rng = np.random.default_rng(2)
    regimes = np.zeros(4, int)
    for i in range(400):
        K, u0 = _random_K(rng), _random_u0(rng)
        if i % 4 == 0:
            u0[:2] = 0.0                           # starting at rest tangentially: sticking, often unstable
        mu, e = rng.uniform(0.0, 1.5), rng.uniform()
        regime, p, u = _collide(K, u0, mu, e)
        regimes[regime] += 1
        if regime == JAMMED:
            assert np.all(p == 0.0) and np.all(u == u0)
            continue
        assert _energy_change(u0, u, p) <= INTEGRATION * _approach_energy(K, u0)
        assert np.hypot(p[0], p[1]) <= mu * p[2] * (1.0 + EXACT)
        assert p[2] > 0.0 and u[2] >= -EXACT * np.linalg.norm(u0)       # it separates (or rests, e = 0)
    assert min(regimes[:3]) >= 5         # all three friction regimes were exercised


def test_newton_with_sticking_friction_can_create_energy_where_stronge_does_not():
    """Holck §2.4: Newton's u_z⁺ = −e u_z0 with a sticking tangential impulse (in the cone) gives
    ΔT = ½ (e² K⁻¹_33 u_z0² − u0ᵀ K⁻¹ u0) when u_t⁺ = 0, positive for e = 1 when the slip u_t0 couples
    negatively with the approach through K⁻¹_{13}, K⁻¹_{23}."""
    K = np.array([[1.0, 0.0, 0.6], [0.0, 1.0, 0.0], [0.6, 0.0, 1.0]])
    Kinv = np.linalg.inv(K)
    u0 = np.array([-0.3, 0.0, -1.0])
    mu, e = 1.0, 1.0
    u_newton = np.array([0.0, 0.0, -e * u0[2]])
    p_newton = Kinv @ (u_newton - u0)
    assert np.hypot(*p_newton[:2]) <= mu * p_newton[2]         # the sticking impulse is admissible
    assert _energy_change(u0, u_newton, p_newton) > 0.01 * _approach_energy(K, u0)
    regime, p, u = _collide(K, u0, mu, e)
    assert regime != JAMMED
    assert _energy_change(u0, u, p) <= INTEGRATION * _approach_energy(K, u0)


def test_stable_sticking_keeps_the_slip_at_zero():
    """Theorem 4 holds and u_t0 = 0: the contact sticks throughout, dp = K⁻¹ e_z du_z, so u_t⁺ = 0 and
    (W quadratic in u_z with one coefficient in both phases) u_z⁺ = −e u_z0."""
    rng = np.random.default_rng(3)
    done = 0
    while done < 20:
        K = _random_K(rng)
        mu = rng.uniform(0.2, 2.0)
        if not stable_sticking(np.linalg.inv(K), mu):
            continue
        u0, e = np.array([0.0, 0.0, -rng.uniform(0.5, 2.0)]), rng.uniform()
        regime, p, u = _collide(K, u0, mu, e)
        if regime == JAMMED:
            continue
        assert regime == STABLE_STICK
        assert np.hypot(u[0], u[1]) <= EXACT * abs(u0[2])
        assert u[2] == pytest.approx(-e * u0[2], rel=EXACT)
        done += 1


def test_unstable_sticking_slides_off_along_the_diverging_ray():
    """u_t0 = 0 where Theorem 4 fails: sliding starts along β, and stays on it (a constant direction),
    so the final slip points along (cos β, sin β)."""
    rng = np.random.default_rng(4)
    done = 0
    while done < 20:
        K = _random_K(rng)
        mu = rng.uniform(0.0, 1.0)
        if stable_sticking(np.linalg.inv(K), mu):
            continue
        u0 = np.array([0.0, 0.0, -1.0])
        regime, p, u = _collide(K, u0, mu, rng.uniform(0.1, 1.0))
        if regime == JAMMED:
            continue
        assert regime == UNSTABLE_STICK
        beta = sliding_direction(K, mu)
        slip = u[:2] / np.hypot(u[0], u[1])
        assert slip @ [np.cos(beta), np.sin(beta)] == pytest.approx(1.0, abs=EXACT)
        done += 1


@pytest.mark.parametrize("slip, e", [((1.0, 0.5), 0.5), ((3.0, 0.0), 0.8), ((0.5, 0.5), 0.5), ((0.3, -0.1), 0.0),
                                     ((0.9, 0.0), 1.0), ((0.0, 0.0), 0.3)])
def test_point_mass_slides_by_mu_per_unit_normal_impulse_or_stops(slip, e):
    """K = (1/m) 1: p_z = −(1 + e) m u_z0; while sliding dp_t = −μ û_t dp_z along a fixed direction, so the
    slip falls by μ p_z / m: it slides throughout if |u_t0| > μ (1 + e) |u_z0|, else stops and sticks."""
    m, mu, uz0 = 2.0, 0.3, -2.0
    u0 = np.array([slip[0], slip[1], uz0])
    regime, p, u = _collide(np.eye(3) / m, u0, mu, e)
    pz = -(1.0 + e) * m * uz0
    assert p[2] == pytest.approx(pz, rel=EXACT)
    s0 = np.hypot(*slip)
    if s0 > mu * (1.0 + e) * abs(uz0):
        assert regime == SLIDING
        assert np.allclose(p[:2], -mu * pz * np.array(slip) / s0, rtol=EXACT, atol=EXACT)
    else:
        assert regime == STABLE_STICK
        assert np.allclose(p[:2], -m * np.array(slip), atol=EXACT)
        assert np.allclose(u[:2], 0.0, atol=EXACT)


def test_sliding_integration_converges_at_fourth_order():
    """Sliding throughout (no stop): only the RK4 subdivision errs; halving the step divides the error by
    about 2⁴ = 16 (observed order above 3.5 from 4 → 8 → 16 steps against 1024 steps)."""
    checked = 0
    for seed in range(50):
        rng = np.random.default_rng(100 + seed)
        K = _random_K(rng, floor=0.5)
        u0 = np.array([rng.normal(), rng.normal(), -1.0])
        mu, e = 0.2, 0.7
        regime, ref, _ = _collide(K, u0, mu, e, steps=1024)
        if regime != SLIDING:
            continue
        errors = [np.linalg.norm(_collide(K, u0, mu, e, steps=n)[1] - ref) for n in (4, 8, 16)]
        if errors[-1] < 1e-13 * np.linalg.norm(ref):
            continue                               # already at rounding: nothing to measure
        orders = np.log2(np.array(errors[:-1]) / np.array(errors[1:]))
        assert orders.min() > 3.5, orders
        assert errors[-1] < INTEGRATION * np.linalg.norm(ref)
        checked += 1
    assert checked >= 5


def test_quartic_gives_the_one_diverging_ray_when_sticking_is_unstable():
    """Theorems 6 and 7: the β from the quartic in tan(β/2) keeps its direction (g(β) = 0), diverges, and is
    the only diverging constant-direction ray (checked against a scan of g over 20 000 angles)."""
    rng = np.random.default_rng(5)
    theta = np.linspace(0.0, 2.0 * np.pi, 20001)
    done = 0
    while done < 40:
        K = _random_K(rng)
        mu = rng.uniform(0.0, 1.5)
        if stable_sticking(np.linalg.inv(K), mu):
            continue
        beta = sliding_direction(K, mu)
        g, div = ray_residuals(K, mu, beta)
        assert abs(g) < EXACT * np.abs(K).max()
        assert div > 0.0
        scan = np.array([ray_residuals(K, mu, t) for t in theta])
        crossing = np.nonzero(np.sign(scan[:-1, 0]) != np.sign(scan[1:, 0]))[0]
        diverging = [theta[i] for i in crossing if scan[i, 1] > 0.0]
        assert len(diverging) == 1
        assert np.cos(diverging[0] - beta) == pytest.approx(1.0, abs=1e-6)
        done += 1


def test_jammed_contacts_are_reported_not_integrated():
    """κ = K_33 − μ |(K_31, K_32)| ≤ 0: u_z need not be monotone, Holck's parametrisation does not apply."""
    K = np.array([[1.0, 0.0, 0.9], [0.0, 1.0, 0.0], [0.9, 0.0, 1.0]])
    regime, p, u = _collide(K, np.array([0.5, 0.0, -1.0]), 1.5, 0.5)
    assert regime == JAMMED and np.all(p == 0.0)


# --- through the Featherstone method -------------------------------------------------------------

def _ball_scene(velocity, restitution=0.5, friction=0.3):
    b = ims.ModelBuilder("ball on ground")
    b.add_material("ground", restitution=1.0, static_friction=friction, dynamic_friction=friction)
    b.add_body("ground", shapes=[ims.HalfSpace(material="ground")], static=True)
    b.add_material("ball", restitution=restitution, static_friction=0.0, dynamic_friction=0.0)
    b.add_body("ball", shapes=[ims.Sphere(radius=0.1)], mass=1.0, position=(0, 0, 0.1 + 1e-4), velocity=velocity,
               material="ball")
    return b.build()


@pytest.mark.parametrize("law", ["stronge", "poisson", "newton"])
def test_ball_rebounds_at_e_times_its_approach_speed(law):
    """A sphere's contact normal passes through its centre, so K_31 = K_32 = 0 and all three laws give
    u_z⁺ = −e u_z⁻; a slip of 5 m/s exceeds what friction can stop, μ (1 + e) |u_z| · 7/2 = 3.15 m/s
    (K_tt = 1/m + r²/I), so the ball slides throughout, and the
    tangential impulse is μ p_z (sliding friction), all to rounding."""
    model, state = _ball_scene((5.0, 0.0, -2.0))
    sim = ims.Simulation(model, state, method=FeatherstoneMethod(model, restitution=law), h=1e-3)
    k = model.body("ball")
    v0 = state.body_vel[k].copy()
    info = sim.step()
    assert info.n_collisions == 1
    v = sim.state.body_vel[k]
    g_h = 9.81e-3                                   # gravity over the step, applied after the impulse
    assert v[2] + g_h == pytest.approx(0.5 * -v0[2], rel=1e-9)
    pz = 1.5 * -v0[2]                               # m (1 + e) |u_z|, m = 1 kg
    assert v[0] - v0[0] == pytest.approx(-0.3 * pz, rel=1e-9)


def test_unknown_restitution_law_is_refused_by_name():
    model, _ = _ball_scene((0.0, 0.0, -1.0))
    with pytest.raises(ValueError, match="unknown restitution law 'hooke'"):
        FeatherstoneMethod(model, restitution="hooke")


def _tilted_rod(law, friction=0.5, restitution=0.8):
    b = ims.ModelBuilder("rod")
    b.add_material("ground", restitution=1.0, static_friction=friction, dynamic_friction=friction)
    b.add_body("ground", shapes=[ims.HalfSpace(material="ground")], static=True)
    b.add_material("rod", restitution=restitution, static_friction=0.0, dynamic_friction=0.0)
    angle = np.radians(35.0)
    q = np.array([np.cos(angle / 2), np.sin(angle / 2), 0.0, 0.0])
    b.add_body("rod", shapes=[ims.Box(size=(0.04, 0.04, 0.4))], mass=1.0, position=(0, 0, 0.4), orientation=q,
               velocity=(0.0, 1.5, -1.0), angular_velocity=(0.0, 0.0, 0.0), material="rod")
    model, state = b.build()
    return model, state, FeatherstoneMethod(model, restitution=law)


def test_a_tilted_rod_bouncing_with_friction_never_gains_energy_under_stronge():
    """A rod landing on an end with sideways speed (μ = 0.5, e = 0.8): every Stronge collision dissipates,
    so the total energy never rises above its start by more than the integration error of the flight
    (RK4 at h = 1 ms: ~1e-12 J) and of the collisions (1e-6 of the approach energy, ≤ 1e-5 J here)."""
    model, state, method = _tilted_rod("stronge")
    sim = ims.Simulation(model, state, method=method, h=1e-3)
    e0 = diagnostics.total_energy(model, state)
    collisions, worst, previous = 0, 0.0, e0
    while sim.t < 1.5:
        info = sim.step()
        collisions += info.n_collisions
        energy = diagnostics.total_energy(model, sim.state)
        worst = max(worst, energy - previous)
        previous = energy
    assert collisions >= 3
    assert worst < 1e-5
    assert previous < e0 - 0.1 * e0 * 0.2     # and it did lose a good part (e² = 0.64 per impact, friction)


@pytest.mark.parametrize("rank", [1, 2])
def test_a_singular_collision_matrix_is_left_to_newton(rank):
    """A contact whose point can move only along a line (a link on a hinge: K of rank 1) or in a plane (a
    planar arm: rank 2) has no K⁻¹, so Holck's sticking analysis does not apply: the integrator reports
    JAMMED and applies nothing (the contact stage then gives the contact Newton's target)."""
    a, b = np.array([0.2, 0.1, 1.0]), np.array([1.0, 0.0, 0.1])
    K = np.outer(a, a) + (np.outer(b, b) if rank == 2 else 0.0)      # κ = K_33 − μ |K_3t| > 0 at μ = 0.5
    assert np.linalg.matrix_rank(K) == rank
    p, u = np.zeros(3), np.zeros(3)
    u0 = np.array([0.3, -0.2, -1.0])
    assert stronge_collision(K, u0, 0.5, 0.7, STEPS, SLIP_TOL, p, u) == JAMMED
    assert np.all(p == 0.0) and np.all(u == u0)


def _arm_and_cube(law):
    """A two-link arm on hinges about y (its links move in the x–z plane: singular collision matrices at
    their ground contacts) falls beside a tumbling cube onto the ground."""
    b = ims.ModelBuilder("arm and cube")
    b.add_material("g", restitution=0.6, static_friction=0.5, dynamic_friction=0.4)
    b.add_body("ground", shapes=[ims.HalfSpace(material="g")], static=True)
    q = np.array([np.cos(0.2), np.sin(0.2), 0.1, 0.0])
    b.add_body("cube", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(0, 0, 0.2),
               orientation=q / np.linalg.norm(q), velocity=(0.8, 0.3, -1.0), angular_velocity=(1.0, -2.0, 0.5),
               material="g")
    b.add_body("l0", shapes=[ims.Box(size=(0.4, 0.05, 0.05))], mass=1.0, position=(1.2, 0, 0.3), material="g")
    b.add_body("l1", shapes=[ims.Box(size=(0.4, 0.05, 0.05))], mass=1.0, position=(1.6, 0, 0.3), material="g")
    b.add_hinge("h0", "world", "l0", anchor=(1.0, 0, 0.3), axis=(0, 1, 0))
    b.add_hinge("h1", "l0", "l1", anchor=(1.4, 0, 0.3), axis=(0, 1, 0))
    model, state = b.build()
    return model, state, FeatherstoneMethod(model, restitution=law)


def test_an_arm_striking_the_ground_under_stronge_never_gains_energy():
    """The arm's links strike the ground (singular K, resolved by Newton's target) while the cube bounces
    (Stronge): 0.4 s run through without error, and the energy never rises by more than the collisions'
    integration error (1e-6 of the approach energy, ≤ 1e-5 J here) plus the flight's RK4 error."""
    model, state, method = _arm_and_cube("stronge")
    sim = ims.Simulation(model, state, method=method, h=1e-3)
    previous = e0 = diagnostics.total_energy(model, state)
    worst, collisions = 0.0, 0
    for _ in range(400):
        collisions += sim.step().n_collisions
        energy = diagnostics.total_energy(model, sim.state)
        worst, previous = max(worst, energy - previous), energy
    assert collisions >= 3
    assert worst < 1e-5
    assert previous < e0
