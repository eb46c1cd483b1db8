"""Scene files shared by the editing tests (tests/editing) and the browser tests of editing (tests/viewer)."""

TWO_BALLS = """\
# two free balls apart in the air, the right one drifting away (they never touch: no collision tests)
settings: {h: 0.005, eps_d: 1.0e-6, eps_v: 1.0e-6}
bodies:
  - {name: a, shapes: [sphere: {radius: 0.1}], mass: 1, position: [0, 0, 20], collision_mask: 0}
  - {name: b, shapes: [sphere: {radius: 0.1}], mass: 2, position: [0.6, 0, 20.2], velocity: [0.3, 0, 0],
     collision_mask: 0}
"""
