"""Seeded random multibody models for the LGS tests: trees of mixed joint kinds, loops added on top."""
import numpy as np

import impulsim as ims
from impulsim.math import quat_rotate_inv

# joint kinds with the frame parameters they need; all are built from one world anchor and axis
TREE_KINDS = ("ball", "hinge", "universal", "slider", "cylindrical", "fixed", "point_on_line",
              "point_on_plane", "distance")


def _unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def _quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _perpendicular(rng, axis):
    v = np.cross(axis, _unit(rng))
    return v / np.linalg.norm(v)


def _joint(b, rng, kind, name, parent, child, anchor, q_parent, q_child):
    """One joint of ``kind`` at the world point ``anchor`` with a random axis (universal: two perpendicular
    world axes, given in the bodies' own frames as the builder expects)."""
    axis = _unit(rng)
    if kind in ("ball", "fixed"):
        b.add_joint(kind, name, parent, child, anchor=anchor)
    elif kind == "universal":
        other = _perpendicular(rng, axis)
        b.add_joint(kind, name, parent, child, anchor=anchor, axis_a=quat_rotate_inv(q_parent, axis),
                    axis_b=quat_rotate_inv(q_child, other))
    elif kind == "distance":
        b.add_joint(kind, name, parent, child, anchor_a=0.1 * rng.normal(size=3), anchor_b=0.1 * rng.normal(size=3))
    else:
        b.add_joint(kind, name, parent, child, anchor=anchor, axis=axis)


def random_model(seed, n_bodies, kinds=TREE_KINDS, loops=0, loop_kind="ball", gravity=(0.0, 0.0, -9.81),
                 elements=None, chain=False):
    """A random tree of ``n_bodies`` boxes hanging from the world (a chain, each body on the one before, with
    ``chain``), plus ``loops`` loop-closing joints of ``loop_kind`` between random pairs of bodies.
    Velocities are random (they violate the joints). ``elements``: a dict of :func:`add_force_elements`'s
    counts to add springs, motors, servos and timed loads (drawn after everything else, so the bodies and
    joints are those of the same seed without)."""
    b = random_builder(seed, n_bodies, kinds, loops, loop_kind, gravity, chain)
    if elements is not None:
        add_force_elements(b, np.random.default_rng(seed + 1_000_003), **elements)
    return b.build()


SERVO_MODES = {"hinge": ("angle", "angular_velocity"), "slider": ("position", "velocity"),
               "cylindrical": ("angle", "position", "angular_velocity", "velocity"),
               "point_on_line": ("position", "velocity")}
"""The servo modes each joint kind of the random models can take (the coordinates it measures)."""


def add_force_elements(b, rng, springs=0, motors=0, servos=0, loads=0, duration=0.3):
    """Add random force elements to the random tree of builder ``b``: ``springs`` spring-dampers between
    random bodies (or the world) at random anchors; ``motors`` motors and ``servos`` PID servos on random
    joints that have an axis coordinate (a cylindrical joint's coordinate drawn), the servos' modes taken in
    turn (angle, position, angular velocity, velocity) on joints that measure them, so that four servos on
    a model with both coordinates have every mode, with 1 to 4
    set-points over ``duration`` [s] (a repeated time among them), held or interpolated, some efforts
    limited; ``loads`` timed loads whose windows do not line up with the steps."""
    names = [body.name for body in b.bodies]
    driven = [j for j in b.joints if j.kind.name.lower() in SERVO_MODES]
    for i in range(springs):
        a, c = rng.choice(["world"] + names, size=2, replace=False)
        b.add_spring(f"spring{i}", str(a), str(c), stiffness=float(rng.uniform(5.0, 300.0)),
                     damping=float(rng.choice([0.0, rng.uniform(0.0, 4.0)])),
                     rest_length=float(rng.uniform(0.2, 1.0)), anchor_a=0.1 * rng.normal(size=3),
                     anchor_b=0.1 * rng.normal(size=3))
    for i in range(motors):
        joint = driven[int(rng.integers(len(driven)))]
        coordinate = str(rng.choice(["angle", "position"])) if joint.kind.name == "CYLINDRICAL" else "auto"
        b.add_motor(f"motor{i}", joint.name, effort=float(rng.normal(0.0, 2.0)), coordinate=coordinate)
    every_mode = ("angle", "position", "angular_velocity", "velocity")
    for i in range(servos):
        mode = every_mode[i % 4]
        able = [j for j in driven if mode in SERVO_MODES[j.kind.name.lower()]] or driven
        joint = able[int(rng.integers(len(able)))]
        mode = mode if mode in SERVO_MODES[joint.kind.name.lower()] else SERVO_MODES[joint.kind.name.lower()][0]
        times = np.sort(rng.uniform(0.0, duration, int(rng.integers(1, 5))))
        if len(times) > 2:
            times[2] = times[1]                              # a jump: two set-points at one time
        values = rng.normal(0.0, 0.5, len(times))
        limit = float(rng.choice([np.inf, rng.uniform(1.0, 20.0)]))
        b.add_servo(f"servo{i}", joint.name, mode, kp=float(rng.uniform(5.0, 60.0)), ki=float(rng.uniform(0.0, 40.0)),
                    kd=float(rng.uniform(0.0, 2.0)), limit=limit, setpoints=list(zip(times, values)),
                    interpolate=bool(rng.integers(2)))
    for _ in range(loads):
        start = float(rng.uniform(0.0, duration / 2))
        b.add_load(str(rng.choice(names)), force=rng.normal(0.0, 20.0, 3), torque=rng.normal(0.0, 2.0, 3),
                   start=start, end=start + float(rng.uniform(0.01, duration)))


def random_builder(seed, n_bodies, kinds=TREE_KINDS, loops=0, loop_kind="ball", gravity=(0.0, 0.0, -9.81),
                   chain=False):
    """The builder of :func:`random_model` before it is built."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder(f"random {seed}", gravity=gravity)
    centres = [np.zeros(3)]
    quats = [np.array([1.0, 0.0, 0.0, 0.0])]
    for k in range(n_bodies):
        parent = int(rng.integers(0, k + 1))            # 0 is the world
        parent = k if chain else parent                  # (drawn all the same: the same draws follow)
        centre = centres[parent] + 0.6 * _unit(rng)
        centres.append(centre)
        quats.append(_quat(rng))
        b.add_body(f"b{k}", shapes=[ims.Box(size=rng.uniform(0.1, 0.5, 3))], density=rng.uniform(300, 3000),
                   position=centre, orientation=quats[-1], velocity=rng.normal(size=3),
                   angular_velocity=rng.normal(size=3))
        pname = "world" if parent == 0 else f"b{parent - 1}"
        _joint(b, rng, str(rng.choice(kinds)), f"j{k}", pname, f"b{k}", 0.5 * (centre + centres[parent]),
               quats[parent], quats[-1])
    for l in range(loops):
        i, j = sorted(int(v) for v in rng.choice(n_bodies, size=2, replace=False))
        _joint(b, rng, loop_kind, f"loop{l}", f"b{i}", f"b{j}", 0.5 * (centres[i + 1] + centres[j + 1]),
               quats[i + 1], quats[j + 1])
    return b


def four_bar(tilt=0.3, seed=0):
    """A planar four-bar linkage of hinges (axes along x) whose fixed link is the world; one link is
    longer, so the loop cannot stretch into a line. Its 20 rows have rank 17 (3 redundant rows)."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder("four bar")
    q1, q2 = np.zeros(3), np.array([0.0, 1.0, 0.0])
    p1 = q1 + np.array([0.0, np.sin(tilt), -np.cos(tilt)])
    # p2: |p2 - p1| = 1, |p2 - q2| = 1.3, below
    d = np.linalg.norm(q2 - p1)
    a = (1.0 - 1.3 ** 2 + d * d) / (2 * d)
    e = (q2 - p1) / d
    perp = np.array([0.0, -e[2], e[1]])
    perp = perp if perp[2] < 0 else -perp
    p2 = p1 + a * e + np.sqrt(1.0 - a * a) * perp
    x = (1.0, 0.0, 0.0)
    for name, (p, q) in (("left", (q1, p1)), ("bottom", (p1, p2)), ("right", (p2, q2))):
        b.add_body(name, shapes=[ims.Box(size=(0.05, 0.05, float(np.linalg.norm(q - p))))], density=1000,
                   position=0.5 * (p + q), velocity=0.1 * rng.normal(size=3))
    # the boxes above are axis-aligned, not along their links; that changes only their inertia
    b.add_hinge("top_left", "world", "left", anchor=q1, axis=x)
    b.add_hinge("left_bottom", "left", "bottom", anchor=p1, axis=x)
    b.add_hinge("bottom_right", "bottom", "right", anchor=p2, axis=x)
    b.add_hinge("right_top", "right", "world", anchor=q2, axis=x)
    return b.build()
