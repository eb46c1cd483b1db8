"""Small scenes the physical-law tests share (built with the public builder API)."""
import numpy as np

import impulsim as ims

ROD_SIDE = 0.05   # rod cross-section [m]


def rod_pendulum(amplitude_rad, length=1.0, density=1000.0):
    """A uniform rod hanging from a hinge on the x axis at the origin, released at ``amplitude_rad``."""
    b = ims.ModelBuilder("rod pendulum")
    c, s = np.cos(amplitude_rad), np.sin(amplitude_rad)
    b.add_body("rod", shapes=[ims.Box(size=(ROD_SIDE, ROD_SIDE, length))], density=density,
               position=(0.0, 0.5 * length * s, -0.5 * length * c),
               orientation=(np.cos(amplitude_rad / 2), np.sin(amplitude_rad / 2), 0.0, 0.0))
    b.add_hinge("pivot", "world", "rod", anchor=(0, 0, 0), axis=(1, 0, 0))
    return b.build()


def double_rod_pendulum(theta1, theta2, lengths=(1.0, 1.0), density=1000.0):
    """Two uniform rods on parallel hinges (x axis); angles from the downward vertical [rad]."""
    b = ims.ModelBuilder("double rod pendulum")
    l1, l2 = lengths
    e1 = np.array([0.0, np.sin(theta1), -np.cos(theta1)])
    e2 = np.array([0.0, np.sin(theta2), -np.cos(theta2)])
    for name, length, centre, th in (("upper", l1, 0.5 * l1 * e1, theta1),
                                     ("lower", l2, l1 * e1 + 0.5 * l2 * e2, theta2)):
        b.add_body(name, shapes=[ims.Box(size=(ROD_SIDE, ROD_SIDE, length))], density=density,
                   position=centre, orientation=(np.cos(th / 2), np.sin(th / 2), 0.0, 0.0))
    b.add_hinge("shoulder", "world", "upper", anchor=(0, 0, 0), axis=(1, 0, 0))
    b.add_hinge("elbow", "upper", "lower", anchor=l1 * e1, axis=(1, 0, 0))
    return b.build()


def bender_chain(n_links, gap=0.0, seed=0, speed=2.0):
    """Bender's ball-joint chain (Sec. 3.3.3.1): links 1 m × 0.1 m × 0.1 m, 1 kg, hanging straight down
    from a fixed point; every link's centre gets ``speed`` m/s in a different (seeded) direction.
    ``gap`` [m] moves every link down so that each joint starts broken by that distance."""
    rng = np.random.default_rng(seed)
    b = ims.ModelBuilder(f"chain {n_links}")
    for i in range(n_links):
        direction = rng.normal(size=3)
        direction /= np.linalg.norm(direction)
        b.add_body(f"link{i}", shapes=[ims.Box(size=(0.1, 0.1, 1.0))], mass=1.0,
                   position=(0, 0, -(i + 0.5) - (i + 1) * gap), velocity=speed * direction)
        parent = "world" if i == 0 else f"link{i - 1}"
        b.add_ball(f"ball{i}", parent, f"link{i}", anchor_a=(0, 0, 0 if i == 0 else -0.5),
                   anchor_b=(0, 0, 0.5))
    return b.build()
