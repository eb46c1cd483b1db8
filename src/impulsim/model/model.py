"""The compiled, immutable model: flat float64/int arrays with entity prefixes.

Frames: each body's local frame sits at its centre of mass on its principal axes ("principal frame").
All anchors and axes below are expressed in those principal frames; ``body_frame_*`` keeps the map back
to the frame the user defined the body in. Body 0 is the static ``world`` body.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np


@dataclass(frozen=True, eq=False)
class Model:
    """Everything that does not change during a run (see DESIGN.md, "Data")."""
    name: str
    gravity: np.ndarray
    """Gravitational acceleration [m/s²] in the world frame, shape [3]."""

    # bodies
    body_names: tuple
    body_mass: np.ndarray
    """Mass [kg], shape [n_bodies]; 0 for static and kinematic bodies is not used: see body_inv_mass."""
    body_inv_mass: np.ndarray
    """Inverse mass [1/kg], shape [n_bodies]; 0 for static and kinematic bodies."""
    body_inertia: np.ndarray
    """Principal moments of inertia [kg m²] in the principal frame, shape [n_bodies, 3]."""
    body_inv_inertia: np.ndarray
    """Inverse principal moments [1/(kg m²)], shape [n_bodies, 3]; 0 for static/kinematic bodies."""
    body_static: np.ndarray
    """1 for bodies that never move (world, ground), shape [n_bodies], int8."""
    body_kinematic: np.ndarray
    """1 for bodies moved by prescribed velocity only (infinite mass, can move), int8."""
    body_point: np.ndarray
    """1 for point masses (mass only: zero inertia and inverse inertia, orientation unused), int8."""
    body_frame_offset: np.ndarray
    """Centre of mass in the user frame [m], shape [n_bodies, 3]."""
    body_frame_quat: np.ndarray
    """Principal axes in the user frame (w, x, y, z), shape [n_bodies, 4]."""

    # user-level joints
    joint_names: tuple
    joint_kind: np.ndarray
    """JointKind per joint, shape [n_joints], int32."""
    joint_body_a: np.ndarray
    joint_body_b: np.ndarray
    joint_anchor_a: np.ndarray
    """Joint point on body A in A's principal frame [m], shape [n_joints, 3]."""
    joint_anchor_b: np.ndarray
    joint_axis_a: np.ndarray
    """Joint axis (unit) in A's principal frame, shape [n_joints, 3]; zero where unused."""
    joint_axis_b: np.ndarray
    joint_ref_a: np.ndarray
    """Unit reference vector ⟂ axis in A's frame, for measuring the joint angle, shape [n_joints, 3]."""
    joint_ref_b: np.ndarray
    joint_prim_start: np.ndarray
    """Primitives of joint j are prim_start[j] .. prim_start[j+1]-1, shape [n_joints + 1]."""

    # primitive constraints
    prim_kind: np.ndarray
    """Prim per row block, shape [n_prims], int32."""
    prim_joint: np.ndarray
    prim_body_a: np.ndarray
    prim_body_b: np.ndarray
    prim_anchor_a: np.ndarray
    """Point on A (ball/distance/velocity), line or plane point (line/plane), A's frame [m], [n_prims, 3]."""
    prim_anchor_b: np.ndarray
    prim_axis_a: np.ndarray
    """Line direction, plane normal or rotation axis on A (unit), A's frame, shape [n_prims, 3]."""
    prim_axis_b: np.ndarray
    prim_target: np.ndarray
    """Distance [m] (DISTANCE) or angle [rad] (DOUBLE_ROTATION) to hold, shape [n_prims]."""
    prim_qrel: np.ndarray
    """q_a⁻¹ ⊗ q_b to hold (ROTATION_LOCK), shape [n_prims, 4]."""
    prim_vel_target: np.ndarray
    """Prescribed relative velocity (B minus A) [m/s or rad/s], world frame, shape [n_prims, 3]."""

    # actuators
    motor_names: tuple
    motor_joint: np.ndarray
    motor_coord: np.ndarray
    """Coordinate (angle or position) the motor drives, shape [n_motors], int32."""
    motor_effort: np.ndarray
    """Initial torque [N m] or force [N] along the joint axis, applied + to B and − to A."""
    limit_names: tuple
    limit_joint: np.ndarray
    """Joint whose coordinate the limit bounds, shape [n_limits], int32."""
    limit_coord: np.ndarray
    """Coordinate bounded (Coordinate: angle [rad] or position [m]), shape [n_limits], int32."""
    limit_lower: np.ndarray
    """Lower bound [rad or m] (−inf: none), shape [n_limits]."""
    limit_upper: np.ndarray
    """Upper bound [rad or m] (+inf: none), shape [n_limits]."""
    limit_restitution: np.ndarray
    """Coefficient of restitution of the stops (Newton's law on the coordinate's rate), shape [n_limits]."""

    servo_names: tuple
    servo_joint: np.ndarray
    servo_mode: np.ndarray
    servo_gains: np.ndarray
    """PID gains (kp, ki, kd) in SI units of effort per error, shape [n_servos, 3]."""
    servo_limit: np.ndarray
    """Largest effort magnitude [N m or N], shape [n_servos]."""
    servo_sp_start: np.ndarray
    """Set-points of servo s are sp[sp_start[s] .. sp_start[s+1]-1], shape [n_servos + 1]."""
    servo_sp_time: np.ndarray
    servo_sp_value: np.ndarray
    servo_sp_linear: np.ndarray
    """1: interpolate set-points linearly, 0: hold each until the next, shape [n_servos], int8."""
    spring_names: tuple
    spring_body_a: np.ndarray
    spring_body_b: np.ndarray
    spring_anchor_a: np.ndarray
    spring_anchor_b: np.ndarray
    spring_stiffness: np.ndarray
    """Stiffness D [N/m], shape [n_springs]."""
    spring_damping: np.ndarray
    """Damping along the spring line [N s/m], shape [n_springs]."""
    spring_rest_length: np.ndarray

    # timed loads
    load_body: np.ndarray
    """Body each load acts on, shape [n_loads], int32."""
    load_force: np.ndarray
    """Force [N] at the centre of mass, world frame, shape [n_loads, 3]."""
    load_torque: np.ndarray
    """Torque [N m], world frame, shape [n_loads, 3]."""
    load_start: np.ndarray
    """Time [s] the load starts to act, shape [n_loads]."""
    load_end: np.ndarray
    """Time [s] from which it no longer acts (may be inf), shape [n_loads]; a step applies the load's
    mean over the step, so the impulse is exact."""

    # shapes (mass, display and, later, collision geometry)
    shape_kind: np.ndarray
    shape_body: np.ndarray
    shape_pos: np.ndarray
    """Shape centre in its body's principal frame [m], shape [n_shapes, 3]."""
    shape_quat: np.ndarray
    shape_params: np.ndarray
    """Size parameters per ShapeKind (radius / side lengths / radius, length), shape [n_shapes, 3]."""
    shape_material: np.ndarray
    """Material index per shape, shape [n_shapes], int32."""
    shape_vert_start: np.ndarray
    """Vertices of shape s are shape_verts[vert_start[s] .. vert_start[s+1]-1], shape [n_shapes + 1]."""
    shape_verts: np.ndarray
    """Point-set shape vertices (hulls, meshes) in their body's principal frame [m], shape [n_verts, 3]."""
    shape_tri_start: np.ndarray
    """Triangles of shape s are shape_tris[tri_start[s] .. tri_start[s+1]-1], shape [n_shapes + 1]."""
    shape_tris: np.ndarray
    """Triangle vertex indices, local to the shape's own vertex range, shape [n_tris, 3], int64."""

    # materials and collision filter
    material_names: tuple
    material_restitution: np.ndarray
    """Coefficient of restitution e per material, shape [n_materials]."""
    material_static_friction: np.ndarray
    """Static Coulomb coefficient μ_s per material."""
    material_dynamic_friction: np.ndarray
    """Dynamic Coulomb coefficient μ_d per material."""
    body_group: np.ndarray
    """Collision group bits per body, shape [n_bodies], int64."""
    body_mask: np.ndarray
    """Collision mask bits per body: shapes of a and b may collide if group[a] & mask[b] and vice versa."""
    collision_exclude: np.ndarray
    """Body pairs (a < b) that never collide: jointed pairs and pairs hinged to a common body at one point
    (unless allowed), and explicit exclusions, sorted, shape [n_pairs, 2], int32."""

    source: dict = field(default_factory=dict)
    """Element label -> where it was defined (e.g. "scene.yaml:12"), for error messages."""

    def __post_init__(self):
        self._freeze_arrays()

    def __setstate__(self, state: dict) -> None:
        """Unpickling and ``copy.deepcopy``: the copy's arrays are read-only too. NumPy hands them back
        writable, and Numba compiles a kernel once per argument type, read-only or not: a copied model
        (the second process of a compile on two cores, a copied method) compiled every kernel again instead
        of loading the ones compiled for the original."""
        self.__dict__.update(state)
        self._freeze_arrays()

    def _freeze_arrays(self) -> None:
        """Make every array field read-only: the model is constant once built."""
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                v.setflags(write=False)

    # counts -------------------------------------------------------------------------------------
    @property
    def n_bodies(self) -> int:
        return len(self.body_names)

    @property
    def n_joints(self) -> int:
        return len(self.joint_names)

    @property
    def n_prims(self) -> int:
        return int(self.prim_kind.shape[0])

    @property
    def n_motors(self) -> int:
        return len(self.motor_names)

    @property
    def n_limits(self) -> int:
        return len(self.limit_names)

    @property
    def n_servos(self) -> int:
        return len(self.servo_names)

    @property
    def n_springs(self) -> int:
        return len(self.spring_names)

    @property
    def n_loads(self) -> int:
        return int(self.load_body.shape[0])

    # names ----------------------------------------------------------------------------------------
    def body(self, name: str) -> int:
        """Index of the body called ``name``."""
        return _lookup(self.body_names, name, "body")

    def joint(self, name: str) -> int:
        """Index of the joint called ``name``."""
        return _lookup(self.joint_names, name, "joint")

    def with_params(self, **arrays) -> "Model":
        """A copy with some parameter arrays replaced (e.g. ``spring_stiffness``); shapes must match."""
        for key, value in arrays.items():
            old = getattr(self, key)
            new = np.asarray(value, dtype=old.dtype)
            if new.shape != old.shape:
                raise ValueError(f"{key}: shape {new.shape} differs from the model's {old.shape}")
            arrays[key] = new.copy()
        return replace(self, **arrays)


def _lookup(names, name, what):
    try:
        return names.index(name)
    except ValueError:
        raise KeyError(f"no {what} called {name!r}") from None
