"""The scenes of Bender's contact experiments (Sec. 5.5) and of further checks, as builders.

Each builder returns ``(model, state)`` of a fresh scene; the numbers are the thesis's where it gives them
(German original, Sec. 5.5), and every value it leaves open is a named constant here with the reason for
the choice. The solver settings of each experiment sit beside its scene as ``*_SETTINGS`` dicts of
:class:`~impulsim.methods.impulse.method.ContactImpulseMethod` options; each includes the thesis's rules of
combining two materials (e = e₁ e₂, μ = μ₁ + μ₂, ``BENDER_RULES``), for which its materials are given.
"""
from __future__ import annotations

import math

import numpy as np

import impulsim as ims
from impulsim.geometry import HalfSpace
from impulsim.contact.materials import BENDER_RULES
from impulsim.math import quat_from_axis_angle

Y_AXIS = np.array([0.0, 1.0, 0.0])

# Newton's cradle (Sec. 5.5.3, Table 5.3) -------------------------------------------------------------------
CRADLE_BALLS = 5
CRADLE_RADIUS = 1.0             # [m], thesis
CRADLE_MASS = 1.0               # [kg], thesis
CRADLE_ROD = 4.0
"""Pivot to ball centre [m]. The thesis does not give it; any length leaves the impact itself unchanged
(equal pendulums arrive together at the bottom), it only sets the swing time (~1.05 s here)."""
CRADLE_DEFLECTION = np.radians(45.0)   # thesis
CRADLE_H = 1e-3                 # [s], thesis
# the thesis corrects a penetration in one step (no cap on the push-out speed): its experiments run so
THESIS_RECOVERY = math.inf

CRADLE_SETTINGS = dict(**BENDER_RULES, eps_d=1e-6, eps_v=1e-6, eps_vc=1e-6, eps_c=1e-3,
                       recovery_speed=THESIS_RECOVERY)   # thesis


def cradle(n_deflected: int):
    """Five 1 kg balls (r = 1 m) on massless rods hinged (axis y) to a static frame, touching in a row
    along x; the first ``n_deflected`` are swung out by 45° towards −x and released at rest.

    Each ball is one body whose hinge anchor is its pivot: the rods of the thesis carry no mass (it
    gives none), so the ball's inertia about the pivot is m L² + 2/5 m r². Perfectly elastic: e = 1.
    """
    if not 1 <= n_deflected < CRADLE_BALLS:
        raise ValueError(f"deflect 1 … {CRADLE_BALLS - 1} balls, not {n_deflected}")
    b = ims.ModelBuilder(f"cradle {n_deflected}")
    b.add_material("steel", restitution=1.0)
    swing = quat_from_axis_angle(Y_AXIS, -CRADLE_DEFLECTION)   # −x swing about +y is a negative angle
    for i in range(CRADLE_BALLS):
        pivot = np.array([2.0 * CRADLE_RADIUS * i, 0.0, CRADLE_ROD])
        out = i < n_deflected
        hang = np.array([-CRADLE_ROD * np.sin(CRADLE_DEFLECTION), 0.0, -CRADLE_ROD * np.cos(CRADLE_DEFLECTION)]) \
            if out else np.array([0.0, 0.0, -CRADLE_ROD])
        b.add_body(f"ball{i}", shapes=[ims.Sphere(radius=CRADLE_RADIUS, material="steel")], mass=CRADLE_MASS,
                   position=pivot + hang, orientation=swing if out else (1.0, 0.0, 0.0, 0.0))
        b.add_hinge(f"rod{i}", "world", f"ball{i}", anchor=pivot, axis=Y_AXIS)
    return b.build()


# Stacking (experiment 6) --------------------------------------------------------------------------
STACK_BOX = 1.0                 # edge [m] (the thesis's unit cubes)
STACK_MASS = 1.0                # [kg]
STACK_FRICTION = 0.25
"""Per-material μ_s = μ_d; the thesis's rule adds the two (μ = 0.5 box on box and box on ground)."""
STACK_H = 1e-2                  # [s]
STACK_SETTINGS = dict(**BENDER_RULES, eps_d=1e-5, eps_v=1e-5, eps_c=1e-3, warm_start=False,
                      recovery_speed=THESIS_RECOVERY)
"""The thesis's contact tolerances (Sec. 5.5.1.2). Without warm start: seeded with last step's impulses, the
sweeps stop as soon as every contact is within eps_vc = 1e-3 m/s, and on a 20-box column the tilt left within
that tolerance adds up (3.6 mm in 1 s); solved from zero they run on until far below it (0.07 mm in 1 s)."""


def _ground(b, material):
    b.add_body("ground", shapes=[HalfSpace(material=material)], static=True)


def _stack_builder(name):
    b = ims.ModelBuilder(name)
    b.add_material("wood", static_friction=STACK_FRICTION, dynamic_friction=STACK_FRICTION)
    _ground(b, "wood")
    return b


def _add_box(b, name, centre):
    b.add_body(name, shapes=[ims.Box(size=(STACK_BOX,) * 3, material="wood")], mass=STACK_MASS,
               position=centre)


def tower(n_boxes: int = 20):
    """``n_boxes`` cubes stacked exactly on top of each other on the ground, touching, at rest."""
    b = _stack_builder(f"tower {n_boxes}")
    for i in range(n_boxes):
        _add_box(b, f"box{i}", (0.0, 0.0, (i + 0.5) * STACK_BOX))
    return b.build()


def pyramid(n_base: int = 10):
    """A two-dimensional pyramid of cubes in the x-z plane: ``n_base`` on the ground, one fewer in each
    row above, each row shifted by half a cube (10 rows: 55 boxes), touching, at rest."""
    b = _stack_builder(f"pyramid {n_base}")
    add_pyramid(b, n_base)
    return b.build()


def add_pyramid(b, n_base: int = 10):
    """The cubes of :func:`pyramid` added to builder ``b`` (which defines the "wood" material), the base row
    standing on z = 0: for scenes that put the pyramid beside other things or on another floor."""
    for row in range(n_base):
        for i in range(n_base - row):
            x = (i - 0.5 * (n_base - row - 1)) * STACK_BOX
            _add_box(b, f"box{row}_{i}", (x, 0.0, (row + 0.5) * STACK_BOX))


# Incline (Sec. 5.5.2, Table 5.2) ---------------------------------------------------------------------------
INCLINE_SLOPE = np.radians(15.0)
INCLINE_MUS = np.array([0.535, 0.57, 0.605, 0.64, 0.675, 0.71, 0.745, 0.78, 0.815, 0.85])
INCLINE_THESIS_COMPUTED = np.array([31.8487, 28.1601, 25.2359, 22.8619, 20.8961, 19.2417, 17.8299, 16.6112,
                                    15.5484, 14.6135])
INCLINE_THESIS_SIMULATED = np.array([31.8508, 28.1535, 25.2308, 22.8550, 20.8919, 19.2420, 17.8295, 16.6136,
                                     15.5541, 14.6168])
INCLINE_H = 1e-3
INCLINE_SETTINGS = dict(**BENDER_RULES, eps_d=1e-5, eps_v=1e-5, eps_c=1e-3,
                        recovery_speed=THESIS_RECOVERY)   # thesis


def incline():
    """Ten 1 m, 1 kg cubes at rest on a plane tilted 15°, 2 m apart across the slope; cube i carries
    μ_s = μ_d = INCLINE_MUS[i] (the plane has μ = 0, and the thesis's rule adds the coefficients)."""
    from impulsim.math import quat_rotate
    q = quat_from_axis_angle(Y_AXIS, INCLINE_SLOPE)
    normal = quat_rotate(q, np.array([0.0, 0.0, 1.0]))
    b = ims.ModelBuilder("incline")
    b.add_material("plane")
    b.add_body("plane", shapes=[HalfSpace(material="plane")], static=True, orientation=q)
    for i, mu in enumerate(INCLINE_MUS):
        b.add_material(f"cube{i}", static_friction=mu, dynamic_friction=mu)
        b.add_body(f"cube{i}", shapes=[ims.Box(size=(1, 1, 1), material=f"cube{i}")], mass=1.0,
                   position=np.array([0.0, 2.0 * i, 0.0]) + 0.5 * normal, orientation=q)
    return b.build()


# Funnel (Sec. 5.5.1.1, Table 5.1) --------------------------------------------------------------------------
FUNNEL_CUBES = 1000
FUNNEL_CUBE = 1.0               # edge [m], thesis
FUNNEL_CUBE_MASS = 1.0
"""[kg]; the thesis gives none (the timing does not depend on it: every cube has the same mass)."""
FUNNEL_E = 0.8                  # thesis
FUNNEL_MU = 0.05                # thesis: μ_d = μ_s for the bodies' contacts
FUNNEL_H = 1e-3                 # [s], thesis
FUNNEL_DURATION = 8.0           # [s], thesis
FUNNEL_SETTINGS = dict(**BENDER_RULES, eps_vc=0.01, eps_d=1e-4, eps_v=1e-4, eps_c=1e-3,
                       restitution="newton", recovery_speed=THESIS_RECOVERY)   # thesis
FUNNEL_SOLVER = dict(skip_resolved=True)
"""Not the thesis's: the velocity sweeps pass over patches that stay within the tolerance (contact.memo). In
a pile most sweeps are for a handful of its patches; the stop criterion is kept (with the 4 m outlet's
jammed pile: 22.5 → 15.8 ms per step over the 8 s, contact handling 16.3 → 9.5 ms)."""
# The thesis's figure 5.7 is not in the text: the funnel below is ours. A square funnel whose walls slope
# at 45°, 16 m wide at the top and 8 m at the outlet (eight cubes abreast), its outlet 6 m above the ground;
# the cubes start in a 10 × 10 × 10 block, 1.4 m apart, its lowest layer 20 m up, 10 m above the funnel's
# rim, so the block reaches the funnel after ~1.4 s and squeezes through it during the following seconds;
# at 8 s 94 % of the cubes are below the outlet. The thesis's cubes fall through the funnel and come to rest
# on the plane below, their resting contacts rising to the end of the run. An outlet of 4 m (four cubes
# abreast), used before, jammed: 18 % of the cubes were through at 8 s, and the pile in the funnel had 5600
# contacts per step on average where the thesis reports 879.
FUNNEL_OUTLET = 8.0
FUNNEL_RIM = 16.0
FUNNEL_OUTLET_Z = 6.0
FUNNEL_WALL = 0.5               # plate thickness [m]
FUNNEL_SPACING = 1.4
FUNNEL_DROP_Z = 20.0


def funnel_plate_pose(side):
    """Centre and orientation of one 45° plate; ``side`` 0 … 3 turns it about z by multiples of 90°."""
    height = 0.5 * (FUNNEL_RIM - FUNNEL_OUTLET)           # 45°: as high as it is wide
    mid_r = 0.25 * (FUNNEL_RIM + FUNNEL_OUTLET)           # half-width at mid-height
    # shifted by half the thickness away from the inside (along (x, −z)/√2), so the inner face is the funnel
    r = mid_r + 0.5 * FUNNEL_WALL * np.sqrt(0.5)
    z = FUNNEL_OUTLET_Z + 0.5 * height - 0.5 * FUNNEL_WALL * np.sqrt(0.5)
    turn = quat_from_axis_angle(np.array([0.0, 0.0, 1.0]), 0.5 * np.pi * side)
    from impulsim.math import quat_mul, quat_rotate
    tilt = quat_from_axis_angle(Y_AXIS, -0.25 * np.pi)   # plate normal (0,0,1) -> (−x+z)/√2: faces inward
    return quat_rotate(turn, np.array([r, 0.0, z])), quat_mul(turn, tilt)


def funnel(n_cubes: int = FUNNEL_CUBES):
    """``n_cubes`` (≤ 1000) cubes above a four-plate funnel over the ground; e = 0.8, μ = 0.05."""
    b = ims.ModelBuilder(f"funnel {n_cubes}")
    # the thesis's rules combine per-body values: e = e1 e2 -> √0.8 each; μ = μ1 + μ2 -> 0.025 each
    b.add_material("cube", restitution=np.sqrt(FUNNEL_E), static_friction=0.5 * FUNNEL_MU,
                   dynamic_friction=0.5 * FUNNEL_MU)
    _ground(b, "cube")
    for side in range(4):
        pos, quat = funnel_plate_pose(side)
        b.add_body(f"plate{side}", shapes=[ims.Box(size=funnel_plate_size(), material="cube")], static=True,
                   position=pos, orientation=quat)
    for k, centre in enumerate(drop_grid(n_cubes)):
        b.add_body(f"cube{k}", shapes=[ims.Box(size=(FUNNEL_CUBE,) * 3, material="cube")], mass=FUNNEL_CUBE_MASS,
                   position=centre)
    return b.build()


def funnel_plate_size():
    """Edges of one funnel plate [m]: along the slope, across (as wide as the rim plus the walls, so that
    neighbouring plates close the corners), thickness."""
    return np.array([np.sqrt(2.0) * 0.5 * (FUNNEL_RIM - FUNNEL_OUTLET), FUNNEL_RIM + 2 * FUNNEL_WALL, FUNNEL_WALL])


def drop_grid(n):
    """Centres of the first ``n`` cells of the 10 × 10 × 10 drop block, layer by layer from the bottom."""
    side = 10
    cells = [(i, j, k) for k in range(side) for j in range(side) for i in range(side)][:n]
    idx = np.array(cells, float)
    xy = (idx[:, :2] - 0.5 * (side - 1)) * FUNNEL_SPACING
    z = FUNNEL_DROP_Z + idx[:, 2] * FUNNEL_SPACING
    return np.column_stack([xy, z])


# Wall (Sec. 5.5.1.2) ---------------------------------------------------------------------------------------
WALL_STONE = (1.0, 0.4, 0.3)    # length, width, height [m], thesis
WALL_STONE_MASS = 1.0           # [kg], thesis
WALL_ROWS = 24                  # thesis: up to 24 stones high
WALL_LONG_ROW = 11
"""Running bond: rows of 11 and 10 stones alternate, the short rows shifted by half a stone; 12 × (11 + 10)
= 252 stones, the thesis's count, and 24 rows, its height (its figure is not in the text)."""
WALL_BALL_RADIUS = 1.0          # [m], thesis
WALL_BALL_MASS = 10.0           # [kg], thesis
WALL_E, WALL_MU_S, WALL_MU_D = 0.1, 0.2, 0.1   # thesis
WALL_H = 5e-3                   # [s], thesis
WALL_DURATION = 5.0             # [s], thesis
WALL_SETTINGS = dict(**BENDER_RULES, eps_vc=1e-3, eps_d=1e-5, eps_v=1e-5, eps_c=1e-3, restitution="newton",
                     warm_start=False, recovery_speed=THESIS_RECOVERY)
"""The thesis's tolerances and law, and, as in the thesis, no warm start. Seeded with the last step's impulses
the standing wall creeps (0.60–1.38 mm before the impact over four starts moved by up to 1e-9 m) and its
collapse keeps more contacts; solved from zero each step it drifts 0.03–0.07 mm and runs 5 s in about 0.8 of
the time (docs/contact_experiments.md)."""
WALL_SHOCK_ITERATIONS = 10      # thesis: at most ten iterations, then shock propagation
WALL_SOLVER = dict(skip_resolved=True, skip_resolved_positions=True, shock_level_iterations=4)
"""Not the thesis's: the velocity and position sweeps pass over patches that stay within half the tolerance
(contact.memo), the stop criteria kept; a shock pass sweeps a level at most 4 times (default 6): 12 % fewer
patch visits over the 5 s with the drift before the impact as small (0.08–0.10 mm over four paths against
0.05–0.14 mm; 3 sweeps: 20 % fewer, 0.17–0.56 mm; docs/contact_experiments.md)."""
WALL_ROPE = 6.0
"""Pendulum length [m] (not in the thesis): pivot 10 m up, so the ball hangs 4 m up, at the wall's
upper half (the wall is 7.2 m high)."""
WALL_PIVOT_Z = 10.0
WALL_RELEASE = np.radians(60.0)
"""Release angle from the vertical (not in the thesis): the ball meets the wall at the bottom of its
swing after ~1.3 s at ~7.7 m/s."""
WALL_REACH = 0.3                # [m], see wall()


def wall_rows(rows: int = WALL_ROWS, long_row: int = WALL_LONG_ROW):
    """(x centre of each stone, row) for the running bond, row 0 on the ground."""
    out = []
    for row in range(rows):
        n = long_row if row % 2 == 0 else long_row - 1
        for i in range(n):
            out.append(((i - 0.5 * (n - 1)) * WALL_STONE[0], row))
    return out


def wall(rows: int = WALL_ROWS, long_row: int = WALL_LONG_ROW, ball: bool = True):
    """252 stones in a running bond along x on the ground, and a 10 kg ball on a massless rod hinged
    (axis x) above the wall's middle, released at 60° on the −y side so that it hits the wall face.
    ``rows``, ``long_row`` and ``ball`` make smaller walls (tests), with or without the pendulum."""
    b = ims.ModelBuilder("wall")
    # e = e1 e2 and μ = μ1 + μ2 over equal materials give the thesis's values
    b.add_material("stone", restitution=np.sqrt(WALL_E), static_friction=0.5 * WALL_MU_S,
                   dynamic_friction=0.5 * WALL_MU_D)
    _ground(b, "stone")
    for k, (x, row) in enumerate(wall_rows(rows, long_row)):
        b.add_body(f"stone{k}", shapes=[ims.Box(size=WALL_STONE, material="stone")], mass=WALL_STONE_MASS,
                   position=(x, 0.0, (row + 0.5) * WALL_STONE[2]))
    if not ball:
        return b.build()
    # the lowest point of the swing lies WALL_REACH inside the wall's face: the ball strikes just before it
    pivot = np.array([0.0, -(0.5 * WALL_STONE[1] + WALL_BALL_RADIUS) + WALL_REACH, WALL_PIVOT_Z])
    hang = WALL_ROPE * np.array([0.0, -np.sin(WALL_RELEASE), -np.cos(WALL_RELEASE)])
    b.add_body("ball", shapes=[ims.Sphere(radius=WALL_BALL_RADIUS, material="stone")], mass=WALL_BALL_MASS,
               position=pivot + hang)
    b.add_hinge("rope", "world", "ball", anchor=pivot, axis=(1.0, 0.0, 0.0))
    return b.build()


# Tippe top (Sec. 5.5.3, qualitative in the thesis) ---------------------------------------------------------
# The thesis gives no geometry. Ours follows the usual textbook top (Cohen, Am. J. Phys. 45, 1977): a
# ball of radius R whose centre of mass lies αR below its centre (α = 0.3, it is hollow above), moments
# A = 131/350 m R² (transverse) and C = 2/5 m R² (axial) about the centre of mass, so 1 − α < C/A < 1 + α,
# the condition under which spinning on the ball is unstable and the top inverts. The peg is a capsule on
# the axis whose tip lies 1.5 R from the centre, so the inverted top stands on it.
TOP_R = 0.025                   # [m]
TOP_MASS = 0.015                # [kg]
TOP_ALPHA = 0.3
TOP_SPIN = 150.0                # [rad/s] about the axis at the start (peg up)
TOP_TILT = 0.1                  # [rad] initial tilt of the axis from the vertical
TOP_MU = 0.3                    # ground–ball friction (per material 0.15 under the thesis's sum rule)
TOP_H = 2e-4                    # [s]: 0.03 rad of spin per step
# tolerances well below the ball's size
TOP_SETTINGS = dict(**BENDER_RULES, eps_d=1e-6, eps_v=1e-6, eps_c=1e-4, recovery_speed=THESIS_RECOVERY)


def tippe_top():
    """The top resting on its ball on the ground, axis tilted TOP_TILT about x, spinning TOP_SPIN about
    its own axis (body z, peg up)."""
    b = ims.ModelBuilder("tippe top")
    b.add_material("felt", static_friction=0.5 * TOP_MU, dynamic_friction=0.5 * TOP_MU)
    _ground(b, "felt")
    m, r = TOP_MASS, TOP_R
    a, c = 131.0 / 350.0 * m * r * r, 0.4 * m * r * r
    peg = ims.Capsule(radius=0.2 * r, length=0.6 * r, position=(0.0, 0.0, 1.0 * r), material="felt")
    tilt = quat_from_axis_angle(np.array([1.0, 0.0, 0.0]), TOP_TILT)
    from impulsim.math import quat_rotate
    axis = quat_rotate(tilt, np.array([0.0, 0.0, 1.0]))
    b.add_body("top", shapes=[ims.Sphere(radius=r, material="felt"), peg], mass=m, inertia=(a, a, c),
               com=(0.0, 0.0, -TOP_ALPHA * r), position=(0.0, 0.0, r), orientation=tilt,
               angular_velocity=TOP_SPIN * axis)
    return b.build()


# Rattleback (Sec. 5.5.3: half-ellipsoid and two spheres on it diagonally; reversal at 2.854 s) ---------------
# The thesis gives no sizes. Ours: the lower half of an ellipsoid with semi-axes 0.2 × 0.05 × 0.04 m (of the
# proportions common in the literature, e.g. Garcia & Hubbard, Proc. R. Soc. A 418, 1988), wood
# (500 kg/m³), with two steel balls (r = 1 cm) on its flat top at (±0.1, ±0.025) m, which turn its principal
# axes away from the geometric ones. It rolls on a smooth Ellipsoid shape (the whole ellipsoid: its upper
# half never comes near the ground), so the contact point moves continuously over the surface; its mass is
# that of the half only (half_ellipsoid_mass).
RATTLE_AXES = (0.2, 0.05, 0.04)     # semi-axes [m]
RATTLE_DENSITY = 500.0              # [kg/m³]
RATTLE_BALL = 0.01                  # [m]
RATTLE_BALL_DENSITY = 7800.0        # [kg/m³]
RATTLE_BALL_AT = (0.1, 0.025)       # [m] on the flat face, the second ball mirrored through the centre
RATTLE_SPIN = 3.0                   # [rad/s] about the vertical at the start
RATTLE_WOBBLE = 1.0                 # [rad/s] about the long axis at the start: the small disturbance whose
                                    # growth turns the spin (pure spin about the vertical is an equilibrium)
RATTLE_MU = 0.5                     # μ_s = μ_d of a contact (the sum rule: 0.25 per material)
RATTLE_H = 1e-3
RATTLE_SETTINGS = dict(**BENDER_RULES, eps_d=1e-6, eps_v=1e-6, eps_c=1e-4, recovery_speed=THESIS_RECOVERY)


def half_ellipsoid_mass(axes=RATTLE_AXES, density=RATTLE_DENSITY):
    """Mass properties of the lower half (z ≤ 0) of a solid ellipsoid with the given semi-axes [m]: mass
    ρ 2π abc / 3, centre of mass at z = −3c/8, inertia about it m (b² + c²)/5 − m (3c/8)² about x (likewise y),
    m (a² + b²)/5 about z (the half keeps the full ellipsoid's second moments per unit mass)."""
    from impulsim.geometry.mass import MassProperties
    a, b, c = axes
    m = density * 2.0 * np.pi * a * b * c / 3.0
    zc = -3.0 * c / 8.0
    inertia = np.diag([m * (b * b + c * c) / 5.0 - m * zc * zc, m * (a * a + c * c) / 5.0 - m * zc * zc,
                       m * (a * a + b * b) / 5.0])
    return MassProperties(m, np.array([0.0, 0.0, zc]), inertia)


def rattleback(spin: float = RATTLE_SPIN):
    """The rattleback on the ground, spinning ``spin`` [rad/s] about the vertical (+: counter-clockwise seen
    from above) and rocking slightly about its long axis (RATTLE_WOBBLE). The body's user frame is the centre
    of the flat face."""
    from impulsim.geometry.mass import combine_mass_properties, shape_mass_properties
    b = ims.ModelBuilder("rattleback")
    b.add_material("wood", static_friction=0.5 * RATTLE_MU, dynamic_friction=0.5 * RATTLE_MU)
    _ground(b, "wood")
    x, y = RATTLE_BALL_AT
    shell = ims.Ellipsoid(semi_axes=RATTLE_AXES, material="wood")
    balls = [ims.Sphere(radius=RATTLE_BALL, position=(sx * x, sx * y, RATTLE_BALL), material="wood")
             for sx in (1.0, -1.0)]
    # a body has one density; wood and steel parts are summed here (parallel-axis theorem)
    props = combine_mass_properties([half_ellipsoid_mass()] +
                                    [shape_mass_properties(s, RATTLE_BALL_DENSITY) for s in balls])
    b.add_body("rattleback", shapes=[shell] + balls, mass=props.mass, inertia=props.inertia, com=props.com,
               position=(0.0, 0.0, RATTLE_AXES[2]), angular_velocity=(RATTLE_WOBBLE, 0.0, spin))
    return b.build()


# Joint limits (Bender 5.4.3, Holck test 8) -----------------------------------------------------------------
LIMIT_ANGLE = 0.5               # [rad]: stops at ±0.5 rad
LIMIT_RATE = 1.0                # [rad/s] initial swing rate
LIMIT_H = 1e-3
LIMIT_SETTINGS = dict(**BENDER_RULES, eps_d=1e-8, eps_v=1e-8)


def limited_hinge(restitution: float):
    """A 1 kg, 1 m rod hinged (axis y) at one end to the world, without gravity, swinging at LIMIT_RATE
    between stops at ±LIMIT_ANGLE with the given restitution: between hits its rate is constant, so every
    hit shows the restitution law alone."""
    b = ims.ModelBuilder(f"limited hinge e={restitution:g}", gravity=(0.0, 0.0, 0.0))
    # the centre moves with ω × r about the pivot, so the hinge holds from the first step
    b.add_body("rod", shapes=[ims.Box(size=(0.05, 0.05, 1.0))], mass=1.0, position=(0.0, 0.0, -0.5),
               velocity=(-0.5 * LIMIT_RATE, 0.0, 0.0), angular_velocity=(0.0, LIMIT_RATE, 0.0))
    b.add_hinge("pivot", "world", "rod", anchor=(0.0, 0.0, 0.0), axis=Y_AXIS)
    b.add_limit("stops", "pivot", -LIMIT_ANGLE, LIMIT_ANGLE, restitution=restitution)
    return b.build()
