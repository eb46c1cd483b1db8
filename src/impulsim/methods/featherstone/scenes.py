"""Holck's test scenes (digest 002_holck.md, ch. 5) for the Featherstone method.

Each builder returns ``(model, state, options)``: ``options`` are the method options the scene needs (joint
limits are part of the model, ``ModelBuilder.add_limit``). Dimensions and masses are the thesis's where the
digest keeps them; where the extraction lost a value the choice made here is stated.
"""
from __future__ import annotations

import numpy as np

import impulsim as ims

LINK = (0.02, 0.02, 0.2)
"""Holck's standard link: a box 0.02 × 0.02 × 0.2 m [m]."""


def _ground(b, restitution, friction, name="ground"):
    b.add_material(name, restitution=restitution, static_friction=friction, dynamic_friction=friction)
    b.add_body(name, shapes=[ims.HalfSpace(material=name)], static=True)


def limit_arm(kind="hinge", restitution=1.0, speed=1.0):
    """Tests 8 (robot1) and 9 (armtrans): one 1 kg link, no gravity, starting at speed 1 towards its limits.

    Hinge: the link turns about z through its end at 1 rad/s between −2 and 2 rad. Slider: the link slides
    along x at 1 m/s between −0.18 and 0.09 m (the thesis's "18" and "9" in its scaled units, minus signs
    restored as the digest suggests).
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
    return model, state, {"contacts": False}


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
    return model, state, {}


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
    return model, state, {}


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
    return model, state, {"rest_speed": 0.0}


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
    return model, state, {}


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
    return model, state, {}


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
    return model, state, {}


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
    return model, state, {"contacts": False}
