"""PyBullet as a peer (impulsim.bench.pybullet_peer): the converted scenes carry impulsim's bodies, a free fall
follows Bullet's integrator exactly, a bounce has the coefficient impulsim's rules give, the ball's hinge keeps
the rope's length, and the scan's choice keeps its own rule."""
import math

import numpy as np
import pytest

pb = pytest.importorskip("pybullet")

import impulsim as ims                                     # noqa: E402
from impulsim.bench import pybullet_peer as P              # noqa: E402
from impulsim.bench import mujoco_configs as MC            # noqa: E402
from impulsim.experiments import bender_contacts as S      # noqa: E402
from impulsim.geometry.pointsets import HalfSpace          # noqa: E402


def _dynamics(world, k):
    link = 0 if k in world.hinged else -1
    return pb.getDynamicsInfo(world.uids[k], link, physicsClientId=world.client)


@pytest.mark.parametrize("name", ["heap", "wall"])
def test_converted_scene_has_the_same_bodies(name):
    model, state, sc, world = P.scene_world(name)
    try:
        dyn = list(np.nonzero(model.body_inv_mass > 0)[0])
        assert world.dynamic == dyn
        np.testing.assert_allclose(world.positions(), state.body_pos[dyn], atol=1e-12)
        for k in dyn:
            info = _dynamics(world, k)
            assert info[0] == pytest.approx(model.body_mass[k], rel=1e-12)
            np.testing.assert_allclose(info[2], model.body_inertia[k], rtol=1e-12)
        # every contact pair gets impulsim's coefficients under the thesis's rules (e = e1 e2, μ = μ1 + μ2)
        e, mu = (S.WALL_E, S.WALL_MU_S) if name == "wall" else (0.0, 2 * S.STACK_FRICTION)
        assert world.restitution == pytest.approx(e) and world.friction == pytest.approx(mu)
        k = dyn[0]
        assert _dynamics(world, k)[1] ** 2 == pytest.approx(mu)          # Bullet multiplies the two bodies'
        assert _dynamics(world, k)[5] ** 2 == pytest.approx(e)
    finally:
        world.close()


def test_funnel_conversion_counts_and_positions():
    model, state, sc, world = P.scene_world("funnel")
    try:
        assert len(world.dynamic) == S.FUNNEL_CUBES
        np.testing.assert_allclose(world.positions(), S.drop_grid(S.FUNNEL_CUBES), atol=1e-12)
        assert P.count_through(world) == 0
        assert len(world.uids) == len(world.dynamic) + 5                 # ground and four plates
    finally:
        world.close()


def _one_body(shape, mass=1.0, z=10.0, restitution=0.0, vz=0.0):
    b = ims.ModelBuilder("one")
    b.add_material("m", restitution=restitution, static_friction=0.25, dynamic_friction=0.25)
    b.add_body("ground", shapes=[HalfSpace(material="m")], static=True)
    b.add_body("body", shapes=[shape], mass=mass, position=(0.0, 0.0, z))
    model, state = b.build()
    state.body_vel[-1] = (0.0, 0.0, vz)
    return model, state


def test_free_fall_follows_semi_implicit_euler():
    """Bullet integrates v += g h, x += v h: after n steps z = z0 − g h² n(n+1)/2 exactly, which differs from
    g t²/2 by g h t / 2 (0.020 m after 1 s at h = 1/240 s). A damping left on (Bullet's multibodies default to
    0.04 1/s) would change the velocity by 4 % per second and fail the 1e-9 m bound by orders of magnitude."""
    model, state = _one_body(ims.Box(size=(0.5, 0.5, 0.5), material="m"))
    h, n = 1.0 / 240.0, 240
    world = P.build(model, state, h)
    try:
        for _ in range(n):
            world.step()
        z = world.positions()[0, 2]
        g = 9.81
        assert z == pytest.approx(10.0 - g * h * h * n * (n + 1) / 2, abs=1e-9)
        t = n * h
        assert abs(z - (10.0 - 0.5 * g * t * t)) <= 0.5 * g * h * t + 1e-9
        assert world.velocities()[0, 2] == pytest.approx(-g * t, abs=1e-9)
    finally:
        world.close()


def test_bounce_has_the_combined_restitution():
    """A sphere touching the ground and moving into it at 5 m/s, per-material e = 0.8 (product rule: e = 0.64),
    leaves at 0.64 × 5 m/s after one step: Bullet's product rule and the square roots of the conversion give
    impulsim's coefficient. To 2 g h (0.02 m/s): gravity changes the speed by g h within the step. (Started
    from a distance, Bullet's speculative contacts at 1 ms steps take most of the bounce: docs/peers.md.)"""
    model, state = _one_body(ims.Sphere(radius=0.2, material="m"), z=0.2, restitution=0.8, vz=-5.0)
    h = 1e-3
    world = P.build(model, state, h, restitution_rule="product")
    try:
        assert world.restitution == pytest.approx(0.64)
        world.step()
        assert world.velocities()[0, 2] == pytest.approx(0.64 * 5.0, abs=2 * 9.81 * h)
    finally:
        world.close()


def test_speculative_contact_takes_the_bounce_at_small_steps():
    """The physics difference docs/peers.md names: started 0.1 m above the ground at 5 m/s and 1 ms steps,
    the sphere is caught by a contact within the 0.02 m breaking threshold before it touches, and leaves
    with less than a tenth of e v; with the threshold at 0.005 m (below the 5 mm travelled per step) the
    bounce is e v again, to the 5 % of position correction the penetrating step adds."""
    for breaking, low, high in ((None, 0.0, 0.1 * 3.2), (0.005, 3.2, 1.1 * 3.2)):
        model, state = _one_body(ims.Sphere(radius=0.2, material="m"), z=0.3, restitution=0.8, vz=-5.0)
        world = P.build(model, state, 1e-3, P.Config(breaking=breaking), restitution_rule="product")
        try:
            v = []
            for _ in range(60):
                world.step()
                v.append(world.velocities()[0, 2])
            assert low <= max(v) <= high
        finally:
            world.close()


def test_wall_ball_swings_on_its_hinge():
    """Without the wall the ball stays on its 6 m rope and in the plane x = 0, and its energy is kept to
    the first order of the step (0.5 % after 1 s at h = 5 ms); it is at the bottom of its swing at
    about a quarter of the large-amplitude period (60°: T = 2π √(L/g) × 1.073 = 5.27 s, bottom at 1.32 s)."""
    model, state = S.wall(rows=0, long_row=0)
    world = P.build(model, state, S.WALL_H, restitution_rule="product", friction_rule="sum")
    try:
        k = world.dynamic[0]
        pivot = world.hinged[k][0]
        low, t_low = 1e9, None
        for i in range(300):
            world.step()
            p = world.positions()[0]
            assert np.linalg.norm(p - pivot) == pytest.approx(S.WALL_ROPE, abs=1e-6)
            assert abs(p[0]) < 1e-9
            if p[2] < low:
                low, t_low = p[2], (i + 1) * S.WALL_H
        assert low == pytest.approx(pivot[2] - S.WALL_ROPE, abs=1e-3)
        assert t_low == pytest.approx(0.25 * 2 * math.pi * math.sqrt(S.WALL_ROPE / 9.81) * 1.0732, abs=0.02)
    finally:
        world.close()


def test_conversion_refuses_what_it_cannot_honour():
    b = ims.ModelBuilder("two")
    b.add_material("m")
    b.add_body("ground", shapes=[HalfSpace(material="m")], static=True)
    b.add_body("a", shapes=[ims.Box(size=(1, 1, 1), material="m")], mass=1.0, position=(0, 0, 1))
    b.add_body("b", shapes=[ims.Box(size=(1, 1, 1), material="m")], mass=1.0, position=(0, 0, 3))
    b.add_ball("j", "a", "b", anchor=(0, 0, 2))
    model, state = b.build()
    with pytest.raises(NotImplementedError, match='joints\\[0\\] "j"'):
        P.build(model, state, 1e-3)


def test_scan_choice_keeps_its_rule():
    """On a short window of the heap (30 steps, a few configurations) the choice is stable, within twice the
    default's penetration and drift (plus 0.1 mm), and the fastest such."""
    cfgs = [P.DEFAULT, P.Config("SI", 10, True, 0), P.Config("SI", 5, False, 0), P.Config("PGS", 10, True, 0)]
    results = P.scan("heap", configs=cfgs, steps=30, budget_s=float("inf"))
    assert [r.config for r in results] == cfgs
    for r in results:
        assert r.steps == 27 and r.stable and np.isfinite(r.cpu_ms)
        assert np.isfinite(r.penetration) and r.penetration >= 0.0
    assert results[0].penetration < 0.01       # the defaults hold resting 1 m cubes to millimetres (1.0 mm measured)
    best = P.best_reasonable(results)
    default = results[0]
    pen, drift = MC.quality_bound(default)
    assert best.stable and best.penetration <= pen and best.drift <= drift
    assert best.cpu_ms == min(r.cpu_ms for r in results if MC.acceptable(r, default))
    assert "(chosen)" in P.table(results, best)


def test_chain_multibody_starts_where_impulsim_is():
    """Bender's chain of 10 after impulsim's first step (velocities consistent with the joints): the PyBullet
    multibody's link centres and angular velocities are impulsim's (to the joints' 1e-6 tolerance, which
    separates the anchors impulsim leaves within it), and the joints hold exactly over 100 steps."""
    import impulsim as ims
    from impulsim.experiments import bender as B
    model, state = B.chain(10)
    ims.make_method("impulse", model, eps_d=1e-6, eps_v=1e-6, solver="lgs").step(state, 0.01)
    tree = P.build_tree(model, state, 0.01)
    try:
        np.testing.assert_allclose(tree.positions(), state.body_pos[tree.links], atol=1e-5)
        np.testing.assert_allclose(tree.angular_velocities(), state.body_omega[tree.links], atol=1e-9)
        for _ in range(100):
            tree.step()
        # reduced coordinates: each link's joint point is its parent's lower end after 100 steps, to 1e-6 m: the
        # link states differ from exact by ~4e-7 relative (single-precision rounding: 1.6e-8 m measured at
        # 0.04 m); a wrong joint frame would be off by the link's length
        from impulsim.math import quat_rotate
        states = [pb.getLinkState(tree.uid, i, computeForwardKinematics=1, physicsClientId=tree.client)
                  for i in range(10)]
        assert np.linalg.norm(states[0][4]) < 1e-12
        for i in range(1, 10):
            c, q = np.array(states[i - 1][0]), P._wxyz(states[i - 1][1])
            np.testing.assert_allclose(states[i][4], c + quat_rotate(q, np.array([0.0, 0.0, -0.5])), atol=1e-6)
    finally:
        tree.close()


def test_multibody_refuses_more_links_than_pybullet_holds():
    from impulsim.experiments import bender as B
    model, state = B.chain(P.MAX_SPHERICAL_LINKS + 1)
    with pytest.raises(NotImplementedError, match="at most 32 spherical links"):
        P.build_tree(model, state, 0.01)
    model, state = B.chain(P.MAX_SPHERICAL_LINKS)
    tree = P.build_tree(model, state, 0.01)
    try:
        assert np.isfinite(tree.positions()).all()
    finally:
        tree.close()
