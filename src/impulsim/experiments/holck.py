"""Holck's test scenes (Holck 2005, ch. 5) for the Featherstone method.

Each builder returns ``(model, state, options)``: ``options`` are the method options the scene needs (joint
limits are part of the model, ``ModelBuilder.add_limit``), with the thesis's rules of combining two
materials (``BENDER_RULES``: e = e₁ e₂, μ = μ₁ + μ₂), for which the materials here are given. Dimensions
and masses are the thesis's where it gives them; where it does not, the choice made here is stated.
"""
from __future__ import annotations

import numpy as np

import impulsim as ims
from impulsim.contact.materials import BENDER_RULES

LINK = (0.02, 0.02, 0.2)
"""Holck's standard link: a box 0.02 × 0.02 × 0.2 m [m]."""


def _ground(b, restitution, friction, name="ground"):
    b.add_material(name, restitution=restitution, static_friction=friction, dynamic_friction=friction)
    b.add_body(name, shapes=[ims.HalfSpace(material=name)], static=True)


def limit_arm(kind="hinge", restitution=1.0, speed=1.0):
    """Tests 8 (robot1) and 9 (armtrans): one 1 kg link, no gravity, starting at speed 1 towards its limits.

    Hinge: the link turns about z through its end at 1 rad/s between −2 and 2 rad. Slider: the link slides
    along x at 1 m/s between −0.18 and 0.09 m (the thesis's "18" and "9" in its scaled units, minus signs
    restored).
    """
    b = ims.ModelBuilder(f"{kind} limit", gravity=(0, 0, 0))
    half = 0.5 * LINK[2]
    if kind == "hinge":
        b.add_body("link", shapes=[ims.Box(size=(LINK[2], LINK[0], LINK[1]))], mass=1.0, position=(half, 0, 0),
                   velocity=(0, speed * half, 0), angular_velocity=(0, 0, speed))
        b.add_hinge("joint", "world", "link", anchor=(0, 0, 0), axis=(0, 0, 1))
        b.add_limit("stops", "joint", -2.0, 2.0, restitution=restitution)
    else:
        b.add_body("link", shapes=[ims.Box(size=(LINK[2], LINK[0], LINK[1]))], mass=1.0, position=(half, 0, 0),
                   velocity=(speed, 0, 0))
        b.add_slider("joint", "world", "link", anchor=(half, 0, 0), axis=(1, 0, 0))
        b.add_limit("stops", "joint", -0.18, 0.09, restitution=restitution)
    model, state = b.build()
    return model, state, {**BENDER_RULES, "contacts": False}


def bouncing_cube(restitution=1.0, friction=0.0, height=0.5):
    """Test 1 (default.nb): a 2 kg cube of side 0.2 m, orientation (1, 0.2, 0.4, 0.1), dropped at rest onto
    a static floor. ``height``: initial height of the centre [m] (lost in the extraction)."""
    b = ims.ModelBuilder("bouncing cube")
    _ground(b, 1.0, 0.0)
    b.add_material("cube", restitution=restitution, static_friction=friction, dynamic_friction=friction)
    q = np.array([1.0, 0.2, 0.4, 0.1])
    b.add_body("cube", shapes=[ims.Box(size=(0.2, 0.2, 0.2))], mass=2.0, position=(0, 0, height),
               orientation=q / np.linalg.norm(q), material="cube")
    model, state = b.build()
    return model, state, dict(BENDER_RULES)


def spinning_top(friction=0.6, spin=26.6, restitution=0.7):
    """Test 2 (spindleontable.nb): a 3 kg sphere of radius 0.05 m spinning at 26.6 rad/s about y, set down
    on a table with four barriers 0.3 m away. Friction turns the spin into rolling towards a barrier; with
    friction 0 the ball never moves sideways."""
    b = ims.ModelBuilder(f"top mu={friction}")
    _ground(b, restitution, 0.5 * friction)
    b.add_material("ball", restitution=1.0, static_friction=0.5 * friction, dynamic_friction=0.5 * friction)
    b.add_material("barrier", restitution=restitution, static_friction=0.5 * friction,
                   dynamic_friction=0.5 * friction)
    for k, (x, y, sx, sy) in enumerate([(0.35, 0, 0.1, 0.8), (-0.35, 0, 0.1, 0.8), (0, 0.35, 0.8, 0.1),
                                        (0, -0.35, 0.8, 0.1)]):
        b.add_body(f"barrier{k}", shapes=[ims.Box(size=(sx, sy, 0.1), material="barrier")], static=True,
                   position=(x, y, 0.05))
    b.add_body("top", shapes=[ims.Sphere(radius=0.05)], mass=3.0, position=(0, 0, 0.0505),
               angular_velocity=(0, spin, 0), material="ball")
    model, state = b.build()
    return model, state, dict(BENDER_RULES)


def newtons_cradle(n_balls=6, angle_deg=30.3, gap=2e-3):
    """Test 3 (energy.nb): six pendulums, each a 0.56 m rod (0.01 × 0.01, 0.5 kg) with a 3 kg ball of radius
    0.05 m, on parallel hinges; restitution 1, no friction. The right ball is pulled out ``angle_deg``.
    The balls hang ``gap`` [m] apart (impulses need separate bodies, Holck notes they cannot start in
    contact)."""
    b = ims.ModelBuilder("newtons cradle")
    b.add_material("steel", restitution=1.0, static_friction=0.0, dynamic_friction=0.0)
    rod, r = 0.56, 0.05
    pitch = 2 * r + gap
    for i in range(n_balls):
        x = (i - 0.5 * (n_balls - 1)) * pitch
        theta = np.radians(angle_deg) if i == n_balls - 1 else 0.0
        # pendulum pivot at (x, 0, 0); the body hangs along −z, turned by theta about y (towards +x)
        shapes = [ims.Box(size=(0.01, 0.01, rod), position=(0, 0, -0.5 * rod)),
                  ims.Sphere(radius=r, position=(0, 0, -rod - r))]
        q = np.array([np.cos(0.5 * theta), 0.0, -np.sin(0.5 * theta), 0.0])
        b.add_body(f"pendulum{i}", shapes=shapes, density=1000.0, material="steel", position=(x, 0, 0),
                   orientation=q)
        b.add_hinge(f"pivot{i}", "world", f"pendulum{i}", anchor=(x, 0, 0), axis=(0, 1, 0))
    model, state = b.build()
    # no resting contact here: every approach, however slow, is an elastic collision
    return model, state, {**BENDER_RULES, "rest_speed": 0.0}


def serial_arm(b, name, n_links, base, direction, link=LINK, mass=1.0, axis=(1, 0, 0), parent="world",
               material=None):
    """Add a chain of ``n_links`` boxes from point ``base`` along ``direction``, hinged about ``axis``."""
    d = np.asarray(direction, float) / np.linalg.norm(direction)
    length = link[2]
    z = np.array([0.0, 0.0, 1.0])
    # orient each box's long side (its z) along d
    v = np.cross(z, d)
    s, c = np.linalg.norm(v), z @ d
    q = np.array([1.0, 0, 0, 0]) if s < 1e-12 else np.concatenate([[np.cos(0.5 * np.arctan2(s, c))],
                                                                   np.sin(0.5 * np.arctan2(s, c)) * v / s])
    prev = parent
    for i in range(n_links):
        start = np.asarray(base, float) + i * length * d
        body = f"{name}{i}"
        b.add_body(body, shapes=[ims.Box(size=link)], mass=mass, position=start + 0.5 * length * d,
                   orientation=q, material=material)
        b.add_hinge(f"{name}_joint{i}", prev, body, anchor=start, axis=axis)
        prev = body
    return prev


def arm_against_bars(n_links=5):
    """Test 4 (robot5andstaticbar): a hanging arm of 1 kg links swings against static bars (restitution 0.5);
    it starts horizontal and falls onto two bars below it."""
    b = ims.ModelBuilder("arm against bars")
    b.add_material("bar", restitution=0.5, static_friction=0.2, dynamic_friction=0.2)
    b.add_material("link", restitution=1.0, static_friction=0.0, dynamic_friction=0.0)
    for k, y in enumerate((0.35, 0.75)):
        b.add_body(f"bar{k}", shapes=[ims.Box(size=(0.4, 0.04, 0.04), material="bar")], static=True,
                   position=(0, y, -0.25 - 0.1 * k))
    serial_arm(b, "link", n_links, base=(0, 0, 0), direction=(0, 1, 0), material="link")
    model, state = b.build()
    return model, state, dict(BENDER_RULES)


def arm_and_ball(n_links=4):
    """Test 5 (arm4andball): an arm of four 1 kg links with a 1 kg end cube (0.04 m) falls from the horizontal
    onto a free 1.5 kg ball of radius 0.1 m lying on the floor; restitution 0.5, friction 0.4 (Coulomb)."""
    b = ims.ModelBuilder("arm and ball")
    _ground(b, 0.5, 0.2)
    b.add_material("arm", restitution=1.0, static_friction=0.2, dynamic_friction=0.2)
    b.add_body("ball", shapes=[ims.Sphere(radius=0.1)], mass=1.5, position=(0, 0.45, 0.1), material="arm")
    last = serial_arm(b, "link", n_links, base=(0, 0, 0.35), direction=(0, 1, 0), material="arm")
    tip = np.array([0.0, 0.2 * n_links + 0.02, 0.35])
    b.add_body("hand", shapes=[ims.Box(size=(0.04, 0.04, 0.04))], mass=1.0, position=tip, material="arm")
    b.add_fixed("wrist", last, "hand", anchor=tip - np.array([0.0, 0.02, 0.0]))
    model, state = b.build()
    return model, state, dict(BENDER_RULES)


def merry_go_round(n_links=7, spin=0.5, speed_control=None):
    """Test 6 (merrygoround2): a disc turning at 0.5 rad/s about the vertical carries two arms of 7 links
    (boxes 0.02 × 0.02 × 0.10 m, 1 kg) hinged about horizontal axes; the arms swing out (centrifugal).

    ``speed_control`` = (kp, effort limit [N m]): Holck's key 'v', a servo holding the disc at ``spin``."""
    b = ims.ModelBuilder("merry-go-round")
    radius = 0.3
    b.add_body("disc", shapes=[ims.Cylinder(radius=radius, length=0.04)], mass=10.0, position=(0, 0, 0),
               angular_velocity=(0, 0, spin))
    b.add_hinge("spindle", "world", "disc", anchor=(0, 0, 0), axis=(0, 0, 1))
    if speed_control is not None:
        kp, limit = speed_control
        b.add_servo("drive", "spindle", "angular_velocity", kp=kp, ki=kp, limit=limit, setpoints=[(0.0, spin)])
    link = (0.02, 0.02, 0.1)
    for side, sign in (("left", 1.0), ("right", -1.0)):
        base = np.array([sign * radius, 0.0, -0.02])
        # hanging arms, hinged about the tangent of the disc so they can swing outwards
        serial_arm(b, side, n_links, base=base, direction=(0, 0, -1), link=link, axis=(0, 1, 0), parent="disc")
    model, state = b.build()
    # give every arm link the disc's rotation: v = ω × r, ω = (0, 0, spin)
    w = np.array([0.0, 0.0, spin])
    for k in range(1, model.n_bodies):
        state.body_omega[k] = w
        state.body_vel[k] = np.cross(w, state.body_pos[k])
    return model, state, dict(BENDER_RULES)


def prismatic_rotor(speed=1.1, effort=0.0):
    """Test 7 (testcase7): link L1 turns about the vertical axis at 1.1 rad/s; link L2 slides along L1
    (both 0.02 × 0.02 × 0.2 m, 1 kg). Moving L2 out raises the moment of inertia, so ω falls: the angular
    momentum about the axis is conserved. ``effort`` [N]: a motor force on the slider."""
    b = ims.ModelBuilder("prismatic rotor", gravity=(0, 0, -9.81))
    b.add_body("L1", shapes=[ims.Box(size=(0.2, 0.02, 0.02))], mass=1.0, position=(0.1, 0, 0),
               angular_velocity=(0, 0, speed), velocity=(0, speed * 0.1, 0))
    b.add_hinge("turn", "world", "L1", anchor=(0, 0, 0), axis=(0, 0, 1))
    b.add_body("L2", shapes=[ims.Box(size=(0.2, 0.02, 0.02))], mass=1.0, position=(0.1, 0, 0.02),
               angular_velocity=(0, 0, speed), velocity=(0, speed * 0.1, 0))
    b.add_slider("slide", "L1", "L2", anchor=(0.1, 0, 0.02), axis=(1, 0, 0))
    b.add_motor("push", "slide", effort=effort)
    b.add_limit("slide stops", "slide", -0.15, 0.15, restitution=0.5)
    model, state = b.build()
    return model, state, {**BENDER_RULES, "contacts": False}


# --- Holck's tests 10–14 -------------------------------------------------------------------------------

def set_joints(model, state, values):
    """Move ``state`` to the 1-DoF joint coordinates ``values`` {joint name: angle [rad] or position [m]}
    (the model's measure, 0 at the built pose); the other coordinates and all rates are kept."""
    from impulsim.methods.featherstone.method import FeatherstoneMethod
    method = FeatherstoneMethod(model, contacts=False, measure_joints=False)
    q, qd = method.coordinates(state)
    t = method.tree
    for name, value in values.items():
        i = int(t.joint_tree[model.joint(name)])
        q[int(t.q_start[i])] = float(t.sign[i]) * value        # q_model = sign · q (Tree)
    method.dyn.pose(q)
    method.dyn.velocities(qd)
    method.dyn.write(state)
    return state


def _axis_quat(axis, angle):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    return np.concatenate([[np.cos(0.5 * angle)], np.sin(0.5 * angle) * axis])


def multitransarm(tilt_deg=45.0, restitution=0.5, speed=1.4):
    """Test 10 (multitransarm): two 2 kg links (boxes 0.02 × 0.02 × 0.2 m) on prismatic joints in series,
    L1 against the world and L2 along L1, both along an axis tilted ``tilt_deg`` from the horizontal.

    Holck's world is y-up and he tilts about z (a quaternion with last component 0.5, about 45°); here z is
    up, so the tilt is about y. His q_max are 9.0 (L1) and 18.0 (L2) in the scaled units of test 9, i.e.
    0.09 and 0.18 m; the lost q_min are taken symmetric (−0.09, −0.18 m) and the lost q_0 as 0 with L1 (and
    L2 on it) pushed up the slope at ``speed`` [m/s], so both the upper and the lower stops are hit."""
    b = ims.ModelBuilder(f"multitransarm {tilt_deg:g} deg")
    th = np.radians(tilt_deg)
    a = np.array([np.cos(th), 0.0, np.sin(th)])
    q = _axis_quat((0, -1, 0), th)            # the boxes' long side (x) along a
    size = (LINK[2], LINK[0], LINK[1])
    v = speed * a
    b.add_body("L1", shapes=[ims.Box(size=size)], mass=2.0, position=0.1 * a, orientation=q, velocity=v)
    b.add_slider("S1", "world", "L1", anchor=(0, 0, 0), axis=a)
    b.add_body("L2", shapes=[ims.Box(size=size)], mass=2.0, position=0.1 * a + (0, 0.02, 0), orientation=q,
               velocity=v)
    b.add_slider("S2", "L1", "L2", anchor=0.1 * a + (0, 0.02, 0), axis=a)
    b.add_limit("L1 stops", "S1", -0.09, 0.09, restitution=restitution)
    b.add_limit("L2 stops", "S2", -0.18, 0.18, restitution=restitution)
    model, state = b.build()
    return model, state, {**BENDER_RULES, "contacts": False}


def robot2(q_min=(0.1, 0.3), restitution=0.3, damping=0.0, q0=0.5):
    """Test 11 (robot2): two links on horizontal hinges in a vertical plane, L1 10 kg (box 0.02 × 0.02 ×
    0.2 m), L2 8 kg (0.02 × 0.02 × 0.16 m), both starting at q = 0.5 rad (angles up from the horizontal;
    L2's relative to L1) and falling onto their lower limits ``q_min`` (Holck's run 3: 0.1 and 0.3, the case
    that self-oscillated with restitution 0.5 and stopped with damping or restitution 0.3). The lost upper
    limits are taken as 1.5 rad."""
    b = ims.ModelBuilder("robot2")
    axis = (0, -1, 0)                         # a positive angle lifts the link (+x towards +z)
    b.add_body("L1", shapes=[ims.Box(size=(0.2, 0.02, 0.02))], mass=10.0, position=(0.1, 0, 0))
    b.add_hinge("J1", "world", "L1", anchor=(0, 0, 0), axis=axis)
    b.add_body("L2", shapes=[ims.Box(size=(0.16, 0.02, 0.02))], mass=8.0, position=(0.28, 0, 0))
    b.add_hinge("J2", "L1", "L2", anchor=(0.2, 0, 0), axis=axis)
    b.add_limit("J1 stops", "J1", q_min[0], 1.5, restitution=restitution)
    b.add_limit("J2 stops", "J2", q_min[1], 1.5, restitution=restitution)
    model, state = b.build()
    set_joints(model, state, {"J1": q0, "J2": q0})
    return model, state, {**BENDER_RULES, "contacts": False, "damping": damping}


def testcase12(n_links=7, q_min=-0.2, restitution=0.5, damping=0.0):
    """Test 12 (testcase12): seven 1 kg links (boxes 0.02 × 0.02 × 0.1 m; width and depth lost, taken as
    Holck's 0.02 m) in series on horizontal hinges from a static base, starting straight out and at rest;
    gravity folds every joint down onto its minimum limit ``q_min`` (lost; −0.2 rad keeps every outboard
    centre of mass ahead of its joint, so each joint rests on its minimum). Upper limits 1.0 rad."""
    b = ims.ModelBuilder("testcase12")
    b.add_body("base", shapes=[ims.Box(size=(0.04, 0.04, 0.04))], static=True, position=(-0.02, 0, 0))
    prev = "base"
    for i in range(n_links):
        x0 = 0.1 * i
        b.add_body(f"L{i}", shapes=[ims.Box(size=(0.1, 0.02, 0.02))], mass=1.0, position=(x0 + 0.05, 0, 0))
        b.add_hinge(f"J{i}", prev, f"L{i}", anchor=(x0, 0, 0), axis=(0, -1, 0))
        b.add_limit(f"J{i} stops", f"J{i}", q_min, 1.0, restitution=restitution)
        prev = f"L{i}"
    model, state = b.build()
    return model, state, {**BENDER_RULES, "contacts": False, "damping": damping}


def complex_pendulum(restitution=0.7, friction=0.2, swing=0.4):
    """Test 13 (complexpendulum): a mobile of 30 bodies in one articulated tree hanging from a static top
    bar, and a free ball dropped onto the bar; restitution 0.7. The layout is lost in the extraction; built
    here as a binary mobile symmetric about its vertical rod: rod + cross bar (level 0), two rods + bars
    (level 1), four rods + bars (level 2), eight rods (level 3) each carrying a weight: 2 + 4 + 8 + 16 = 30
    bodies. Rods swing on horizontal hinges, bars turn on vertical hinges, the weights are fixed to their
    rods (a weight swinging on its own short lever would be a pendulum of ~18 rad/s, beyond RK4 at the
    thesis's 1/10 s). The whole mobile starts swung out by ``swing`` [rad] so its parts knock together."""
    b = ims.ModelBuilder("complex pendulum")
    b.add_material("mobile", restitution=restitution, static_friction=friction, dynamic_friction=friction)
    b.add_material("bar", restitution=1.0, static_friction=0.0, dynamic_friction=0.0)
    b.add_body("top bar", shapes=[ims.Box(size=(0.6, 0.04, 0.04), material="bar")], static=True,
               position=(0, 0, 0.02))
    b.add_body("ball", shapes=[ims.Sphere(radius=0.05, material="mobile")], mass=0.5, position=(0.12, 0, 0.2))
    rod = 0.15
    spans = (0.48, 0.24, 0.12)
    tops = [("top bar", np.array([0.0, 0.0, 0.0]))]
    count = 0
    for level in range(4):
        nxt = []
        for k, (parent, top) in enumerate(tops):
            name = f"rod{level}_{k}"
            axis = (1, 0, 0) if level % 2 == 0 else (0, 1, 0)
            b.add_body(name, shapes=[ims.Box(size=(0.01, 0.01, rod), material="mobile")], mass=0.1,
                       position=top - (0, 0, 0.5 * rod))
            b.add_hinge(f"swing{level}_{k}", parent, name, anchor=top, axis=axis)
            count += 1
            end = top - (0, 0, rod)
            if level < 3:
                bar = f"bar{level}_{k}"
                span = spans[level]
                along = np.array([1.0, 0, 0]) if level % 2 == 0 else np.array([0, 1.0, 0])
                size = (span, 0.01, 0.01) if level % 2 == 0 else (0.01, span, 0.01)
                b.add_body(bar, shapes=[ims.Box(size=size, material="mobile")], mass=0.1, position=end - (0, 0, 0.005))
                b.add_hinge(f"turn{level}_{k}", name, bar, anchor=end, axis=(0, 0, 1))
                count += 1
                for side in (-0.5, 0.5):
                    nxt.append((bar, end - (0, 0, 0.01) + side * span * along))
            else:
                weight = f"weight{k}"
                b.add_body(weight, shapes=[ims.Sphere(radius=0.025, material="mobile")], mass=0.2,
                           position=end - (0, 0, 0.03))
                b.add_fixed(f"hang{k}", name, weight, anchor=end)
                count += 1
        tops = nxt
    assert count == 30
    model, state = b.build()
    set_joints(model, state, {"swing0_0": swing})
    return model, state, dict(BENDER_RULES)


NICEARM_SETPOINTS = {"M1": 0.0, "M2": -0.5, "M3": -1.0, "M4": 1.2, "M5": 0.0, "M6": 0.0}
"""Holck's qpre of test 14 [rad], with the minus signs the extraction lost restored so that each lies
within its limits (M2: −0.5 in [−2.0, 0.0]; M3: −1.0 in [−2.2, 0.0]). M4 is 1.2 instead of his 2.8: with
the links straight up at q = 0 (his frames are lost), 2.8 rad folds the forearm back onto the upper arm
and the contact stops it at 2.95 rad."""


def nicearm(setpoints=None, ball=False):
    """Test 14 (nicearm): a six-link arm on a static pedestal, every joint driven by a PID position servo with
    an effort limit, towards Holck's qpre (``NICEARM_SETPOINTS``; ``setpoints`` {servo: [(t, q), …]} replaces
    some). Links: L1 cylinder r 0.04 l 0.18 m 2 kg (turntable about z), L2 box 1 kg (0.04 × 0.04 × 0.18 m,
    dimensions lost), L3 box 1 kg, length 0.2 m, L4 cylinder r 0.02 l 0.18 m 1 kg, L5 the same 0.5 kg
    (turning about its own axis), L6 the "scoop", r 0.02 l 0.18 m 1 kg; hinges 2, 3, 4, 6 about y.

    Limits: M2 [−2.0, 0.0], M3 [−2.2, 0.0], M4 [−3.0, 3.0] rad (Holck's 10.0 is no angle within ±π). Effort
    limits: Holck's Q_max (1.0, 1.0, 0.1, 0.1, 0.1 for M2–M6, M1 lost) are in his scaled units and cannot
    hold these SI masses against g; used here: 5, 30, 25, 10, 1, 2 N m (above the largest gravity loads,
    about 20, 13 and 7 N m on M2–M4). Gains: a critically damped response
    of ~20 rad/s on each joint's inertia with an integral term for the gravity load.

    ``ball``: test 14b, a 0.2 kg ball of radius 0.05 m lies on a small static ledge (``BALL``) in reach of
    the scoop when the arm stretches out (see examples/featherstone/nicearm.py)."""
    b = ims.ModelBuilder("nicearm" + (" and ball" if ball else ""))
    b.add_material("arm", restitution=0.3, static_friction=0.3, dynamic_friction=0.3)
    b.add_body("pedestal", shapes=[ims.Cylinder(radius=0.06, length=0.04, material="arm")], static=True,
               position=(0, 0, -0.02))
    links = [("L1", ims.Cylinder(radius=0.04, length=0.18, material="arm"), 2.0, 0.18, (0, 0, 1)),
             ("L2", ims.Box(size=(0.04, 0.04, 0.18), material="arm"), 1.0, 0.18, (0, 1, 0)),
             ("L3", ims.Box(size=(0.03, 0.03, 0.2), material="arm"), 1.0, 0.2, (0, 1, 0)),
             ("L4", ims.Cylinder(radius=0.02, length=0.18, material="arm"), 1.0, 0.18, (0, 1, 0)),
             ("L5", ims.Cylinder(radius=0.02, length=0.18, material="arm"), 0.5, 0.18, (0, 0, 1)),
             ("L6", ims.Cylinder(radius=0.02, length=0.18, material="arm"), 1.0, 0.18, (0, 1, 0))]
    gains = {"M1": (20.0, 5.0, 8.0, 5.0), "M2": (200.0, 200.0, 20.0, 30.0), "M3": (100.0, 100.0, 8.0, 25.0),
             "M4": (30.0, 30.0, 1.5, 10.0), "M5": (5.0, 5.0, 0.1, 1.0), "M6": (10.0, 10.0, 0.4, 2.0)}
    limits = {"M2": (-2.0, 0.0), "M3": (-2.2, 0.0), "M4": (-3.0, 3.0)}
    parent, z = "pedestal", 0.0
    for k, (name, shape, mass, length, axis) in enumerate(links):
        b.add_body(name, shapes=[shape], mass=mass, position=(0, 0, z + 0.5 * length))
        joint = f"Q{k + 1}"
        b.add_hinge(joint, parent, name, anchor=(0, 0, z), axis=axis)
        servo = f"M{k + 1}"
        kp, ki, kd, limit = gains[servo]
        points = (setpoints or {}).get(servo, [(0.0, NICEARM_SETPOINTS[servo])])
        b.add_servo(servo, joint, "angle", kp=kp, ki=ki, kd=kd, limit=limit, setpoints=points)
        if servo in limits:
            b.add_limit(f"{joint} stops", joint, *limits[servo], restitution=0.0)
        parent, z = name, z + length
    if ball:
        top = BALL[2] - 0.05
        b.add_body("ledge", shapes=[ims.Box(size=(0.12, 0.12, 0.04), material="arm")], static=True,
                   position=(BALL[0], BALL[1], top - 0.02))
        b.add_body("ball", shapes=[ims.Sphere(radius=0.05, material="arm")], mass=0.2,
                   position=(BALL[0], BALL[1], BALL[2] + 1e-4))
    model, state = b.build()
    return model, state, dict(BENDER_RULES)


BALL = (-0.73 * np.cos(0.5), -0.73 * np.sin(0.5), 0.24)
"""Centre of the ball of test 14b [m]: 0.73 m from the turntable axis, 0.5 rad from the arm's plane at
q1 = 0, on a 0.12 × 0.12 m ledge whose top is at 0.19 m."""
