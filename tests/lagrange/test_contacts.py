"""Contacts in the Lagrange method: each test checks a physical fact (Newton's restitution, Coulomb's
friction, resting contact, contacts acting through a joint) or a refusal."""
import numpy as np
import pytest

import impulsim as ims

G = 9.81
H = 1e-3


def ball(e, height, radius=0.1):
    """A 1 kg ball whose lowest point is ``height`` [m] above a floor, both of restitution e."""
    b = ims.ModelBuilder("ball")
    b.add_material("rubber", restitution=e)
    b.add_body("floor", static=True, shapes=[ims.HalfSpace()], material="rubber")
    b.add_body("ball", shapes=[ims.Sphere(radius=radius)], mass=1.0, position=(0, 0, height + radius),
               material="rubber")
    return b.build()


def apexes(z):
    """Heights of the local maxima of a sampled trajectory z [m]."""
    k = np.nonzero((z[1:-1] > z[:-2]) & (z[1:-1] >= z[2:]))[0] + 1
    return z[k]


@pytest.mark.parametrize("e", [0.8, 0.5])
def test_a_dropped_ball_bounces_back_to_e_squared_of_its_drop_height(e):
    height, radius = 1.0, 0.1
    model, state = ball(e, height, radius)
    m = ims.make_method("lagrange", model)
    k = model.body("ball")
    z = []
    for _ in range(int(1.6 / H)):               # fall 0.45 s, rise 0.36 s (e = 0.8), fall again
        m.step(state, H)
        z.append(state.body_pos[k, 2] - radius)
    top = apexes(np.array(z))
    assert len(top) >= 1
    # v h / height = 0.4 % bounds the error of finding the impact within a step
    assert top[0] == pytest.approx(e * e * height, rel=0.01)
    assert min(z) > -2e-3 - 1e-4                 # one step's travel (detection within eps_c) at most


def test_restitution_holds_for_a_fast_oblique_impact_on_a_frictionless_floor():
    model, state = ball(0.6, 0.05)
    k = model.body("ball")
    state.body_vel[k] = (3.0, -1.0, -12.0)
    m = ims.make_method("lagrange", model)
    for _ in range(30):
        before = state.body_vel[k].copy()
        info = m.step(state, H)
        if info.n_collisions:
            break
    assert info.n_collisions == 1
    v = state.body_vel[k]
    assert v[2] == pytest.approx(-0.6 * before[2], rel=1e-6)   # Newton's law at the end of the impact step
    assert v[:2] == pytest.approx(before[:2], abs=1e-9)         # no friction: the tangential velocity is kept


def incline(mu, theta, v0):
    """A 0.2 m cube on a floor with gravity tilted by theta about y (an incline of angle theta whose
    downhill direction is +x), sliding downhill at v0 [m/s]; both materials of friction mu."""
    g = G * np.array([np.sin(theta), 0.0, -np.cos(theta)])
    b = ims.ModelBuilder("incline", gravity=g)
    b.add_material("wood", static_friction=mu, dynamic_friction=mu)
    b.add_body("floor", static=True, shapes=[ims.HalfSpace()], material="wood")
    b.add_body("box", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=2.0, position=(0, 0, 0.1),
               velocity=(v0, 0, 0), material="wood")
    return b.build()


def test_a_box_sliding_down_an_incline_stops_at_the_coulomb_distance():
    mu, theta, v0 = 0.5, np.radians(15.0), 2.0
    model, state = incline(mu, theta, v0)
    k = model.body("box")
    m = ims.make_method("lagrange", model)
    decel = G * (mu * np.cos(theta) - np.sin(theta))
    t_stop = v0 / decel
    for _ in range(int((t_stop + 0.5) / H)):     # half a second at rest after the stop
        m.step(state, H)
    distance = v0 ** 2 / (2 * decel)
    assert state.body_pos[k, 0] == pytest.approx(distance, abs=1e-3)
    assert np.linalg.norm(state.body_vel[k]) < 1e-4
    assert state.body_pos[k, 2] == pytest.approx(0.1, abs=1e-3)


def test_a_box_on_a_steep_incline_slides_with_the_coulomb_acceleration():
    mu, theta, v0 = 0.2, np.radians(30.0), 0.5
    model, state = incline(mu, theta, v0)
    k = model.body("box")
    m = ims.make_method("lagrange", model)
    T = 1.0
    for _ in range(int(T / H)):
        m.step(state, H)
    a = G * (np.sin(theta) - mu * np.cos(theta))
    assert state.body_vel[k, 0] == pytest.approx(v0 + a * T, abs=1e-3)
    assert state.body_pos[k, 0] == pytest.approx(v0 * T + 0.5 * a * T * T, abs=1e-3)
    assert abs(state.body_omega[k]).max() < 1e-3       # it slides, it does not tip


def stack(n=5, size=0.2, mu=0.5):
    b = ims.ModelBuilder("stack")
    b.add_material("wood", static_friction=mu, dynamic_friction=mu)
    b.add_body("floor", static=True, shapes=[ims.HalfSpace()], material="wood")
    for i in range(n):
        b.add_body(f"box{i}", shapes=[ims.Box(size=(size, size, size))], mass=1.0,
                   position=(0, 0, size * (i + 0.5)), material="wood")
    return b.build()


def test_a_stack_of_five_boxes_stays_within_a_millimetre_for_five_seconds():
    model, state = stack(5)
    boxes = [model.body(f"box{i}") for i in range(5)]
    start = state.body_pos[boxes].copy()
    m = ims.make_method("lagrange", model)
    worst = 0.0
    for _ in range(int(5.0 / H)):
        info = m.step(state, H)
        worst = max(worst, float(np.abs(state.body_pos[boxes] - start).max()))
    assert worst < 1e-3
    assert info.n_contacts >= 5 * 4              # four corners on every face in touch


def hinged_arm(e):
    """An arm (1 m, 2 kg) on a hinge about y at 0.5 m above a frictionless floor, released horizontal: its
    free end strikes the floor about 30° below the horizontal."""
    b = ims.ModelBuilder("arm")
    b.add_material("m", restitution=e)
    b.add_body("floor", static=True, shapes=[ims.HalfSpace()], material="m")
    b.add_body("arm", shapes=[ims.Box(size=(1.0, 0.04, 0.04))], mass=2.0, position=(0.5, 0, 0.5),
               material="m")
    b.add_hinge("pivot", "world", "arm", anchor=(0, 0, 0.5), axis=(0, 1, 0))
    return b.build()


def test_a_hinged_arm_bounces_off_the_floor_with_its_joint_held():
    e = 0.5
    model, state = hinged_arm(e)
    k = model.body("arm")
    m = ims.make_method("lagrange", model)
    wy = []
    worst = 0.0
    for _ in range(int(0.8 / H)):
        info = m.step(state, H)
        wy.append(state.body_omega[k, 1])
        worst = max(worst, info.residual_pos)
    wy = np.array(wy)
    hit = int(np.argmax(np.diff(wy) < -1.0))      # the arm turns about +y downwards: ω_y > 0 falling
    assert hit > 0 and wy[hit] > 2.0
    # Newton's law at the struck end (a point at fixed distance from the hinge): ω⁺ = −e ω⁻
    assert wy[hit + 1] == pytest.approx(-e * wy[hit], rel=0.02)
    assert worst <= m.eps_d                       # the hinge held to eps_d through the impact


def test_contacts_false_runs_without_them():
    model, state = ball(0.8, 0.2)
    m = ims.make_method("lagrange", model, contacts=False)
    for _ in range(400):
        info = m.step(state, H)
    assert info.n_contacts == 0
    assert state.body_pos[model.body("ball"), 2] == pytest.approx(0.3 - 0.5 * G * 0.4 ** 2, abs=1e-6)


@pytest.mark.parametrize("law", ["poisson", "stronge"])
def test_other_impact_laws_are_refused_through_the_capabilities(law):
    model, _ = ball(0.8, 0.2)
    with pytest.raises(ims.UnsupportedFeatureError, match=f"{law} impact law.*methods that do: featherstone"):
        ims.make_method("lagrange", model, restitution=law)


def test_an_unknown_law_is_a_value_error():
    model, _ = ball(0.8, 0.2)
    with pytest.raises(ValueError, match="unknown restitution law"):
        ims.make_method("lagrange", model, restitution="bounce")


def pile(seed, n=6):
    """n boxes of random sizes, orientations, and spins dropped one above the other (seeded), e = 0.3, μ = 0.5."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("pile")
    b.add_material("m", restitution=0.3, static_friction=0.5, dynamic_friction=0.5)
    b.add_body("floor", static=True, shapes=[ims.HalfSpace()], material="m")
    for i in range(n):
        q = rng.normal(size=4)
        b.add_body(f"b{i}", shapes=[ims.Box(size=tuple(rng.uniform(0.1, 0.3, 3)))], density=500,
                   position=(rng.uniform(-0.15, 0.15), rng.uniform(-0.15, 0.15), 0.3 + 0.35 * i),
                   orientation=q / np.linalg.norm(q), velocity=rng.normal(size=3),
                   angular_velocity=3 * rng.normal(size=3), material="m")
    return b.build()


@pytest.mark.parametrize("seed", [3, 7])
def test_a_random_pile_loses_energy_and_comes_to_rest_without_sinking(seed):
    from impulsim.collision import Detector
    model, state = pile(seed)
    m = ims.make_method("lagrange", model)
    e0 = ims.diagnostics.total_energy(model, state)
    highest = e0
    for _ in range(int(4.0 / H)):
        m.step(state, H)
        highest = max(highest, ims.diagnostics.total_energy(model, state))
    # impacts with e < 1 and friction only take energy out (rounding aside)
    assert highest <= e0 * (1 + 1e-12)
    assert np.abs(state.body_vel).max() < 1e-4 and np.abs(state.body_omega).max() < 1e-3
    con = Detector(model, 1e-3).detect(state)
    assert con.count > 0 and -con.distance[:con.count].min() < 1e-3


def test_a_box_on_a_kinematic_lift_rides_with_it():
    """A lift (kinematic, infinite mass) rising at 1 m/s while moving sideways at 0.3 m/s carries a box
    resting on it by its normal force and static friction: the box keeps its place on the lift."""
    b = ims.ModelBuilder("lift")
    b.add_material("m", static_friction=0.5, dynamic_friction=0.5)
    b.add_body("lift", kinematic=True, shapes=[ims.Box(size=(1.0, 1.0, 0.1))], velocity=(0.3, 0, 1.0),
               material="m")
    b.add_body("box", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=1.0, position=(0, 0, 0.15),
               velocity=(0.3, 0, 1.0), material="m")
    model, state = b.build()
    m = ims.make_method("lagrange", model)
    box, lift = model.body("box"), model.body("lift")
    for _ in range(int(1.0 / H)):
        info = m.step(state, H)
    assert info.n_contacts >= 4
    assert state.body_pos[lift] == pytest.approx([0.3, 0, 1.0], abs=1e-12)    # the lift is not pushed
    assert state.body_pos[box] - state.body_pos[lift] == pytest.approx([0, 0, 0.15], abs=1e-6)
    assert state.body_vel[box] == pytest.approx([0.3, 0, 1.0], abs=1e-6)


def ball_chain(n=3, e=0.3, mu=0.3):
    """n links (0.4 m, 1 kg) on ball joints hanging from a world pivot 0.6 m above the floor, released
    horizontal: the chain swings down onto the floor, strikes it and comes to rest on it."""
    b = ims.ModelBuilder("chain")
    b.add_material("m", restitution=e, static_friction=mu, dynamic_friction=mu)
    b.add_body("floor", static=True, shapes=[ims.HalfSpace()], material="m")
    prev = "world"
    for i in range(n):
        b.add_body(f"l{i}", shapes=[ims.Box(size=(0.4, 0.05, 0.05))], mass=1.0, position=(0.2 + 0.4 * i, 0, 0.6),
                   material="m")
        b.add_ball(f"j{i}", prev, f"l{i}", anchor=(0.4 * i, 0, 0.6))
        prev = f"l{i}"
    return b.build()


def test_a_chain_falling_onto_the_floor_keeps_its_joints_and_comes_to_rest_on_it():
    model, state = ball_chain()
    m = ims.make_method("lagrange", model, contacts=True)      # contacts between the links as well
    e0 = ims.diagnostics.total_energy(model, state)
    highest, worst = e0, 0.0
    for _ in range(int(2.0 / H)):
        info = m.step(state, H)
        worst = max(worst, info.residual_pos)
        highest = max(highest, ims.diagnostics.total_energy(model, state))
    assert worst <= m.eps_d
    # a contact found only after a step pushes its body out by at most the step's travel v h (no time of
    # impact is searched for): the energy may rise by at most M g v_max h above its start
    v_max = np.sqrt(2 * G * 0.6)
    assert highest <= e0 + 3.0 * G * v_max * H
    links = [model.body(f"l{i}") for i in range(3)]
    assert np.abs(state.body_vel[links]).max() < 1e-3
    assert state.body_pos[links[2], 2] == pytest.approx(0.025, abs=1e-4)    # the last link lies on the floor


@pytest.mark.parametrize("option", [dict(slop=-1e-3), dict(rest_speed=-1.0), dict(contact_max_iter=0),
                                    dict(contact_eps_v=0.0)])
def test_bad_contact_options_are_refused_with_their_name(option):
    model, _ = ball(0.8, 0.2)
    name = next(iter(option))
    with pytest.raises(ValueError, match=name):
        ims.make_method("lagrange", model, **option)
