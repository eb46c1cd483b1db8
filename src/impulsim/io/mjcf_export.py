"""Export of an impulsim model (at a state) to MJCF, so that MuJoCo can run the same system.

Each moving body becomes a MuJoCo body whose frame is impulsim's principal frame at the given state, with
its mass and principal moments given explicitly (``<inertial pos="0 0 0" diaginertia=...>``); bodies are
nested along a spanning tree of the joints. Joints: hinge → hinge, slider → slide, cylindrical → slide +
hinge, universal → two hinges (first axis on the parent, second on the child, as MuJoCo composes them),
ball → ball, fixed → no joint (the child is welded to its parent); a body with no joint to a parent gets a
free joint. Joints that close loops become ``connect`` (ball, hinge: the point) or ``weld`` (fixed)
equality constraints. Static bodies are bodies of the world without joints. Shapes: sphere, box, capsule,
cylinder, ellipsoid, convex hull and triangle mesh (MuJoCo meshes, collided as their hulls), half-space →
plane. Limits → joint ``range``; motors → ``motor`` actuators (ctrl = effort); angle/position servos
without integral gain → ``position`` actuators. Anything else (springs, kinematic bodies, velocity and
other constraint joints, integral servo gains) is refused with an error naming the element, never dropped.
"""
from __future__ import annotations

import numpy as np

from impulsim.errors import ModelError
from impulsim.geometry.shapes import ShapeKind
from impulsim.math import quat_mul, quat_conj, quat_rotate, quat_rotate_inv
from impulsim.model.kinds import Coordinate, JointKind, ServoMode

_TREE_KINDS = (JointKind.HINGE, JointKind.SLIDER, JointKind.CYLINDRICAL, JointKind.UNIVERSAL, JointKind.BALL,
               JointKind.FIXED)


def _f(v):
    return " ".join(f"{float(x):.17g}" for x in np.atleast_1d(v))


def _tree(model):
    """child -> (joint, parent) over a spanning forest rooted at the static bodies; cut joints."""
    nb = model.n_bodies
    fixed = [k for k in range(nb) if model.body_inv_mass[k] == 0]
    adjacency = {k: [] for k in range(nb)}
    for j in range(model.n_joints):
        a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
        adjacency[a].append((j, b))
        adjacency[b].append((j, a))
    parent = {}
    seen = set()
    used = set()
    for roots in (fixed, range(nb)):
        for r in roots:
            if r in seen:
                continue
            seen.add(r)
            queue = [r]
            for k in queue:
                for j, other in adjacency[k]:
                    if other in seen or model.body_inv_mass[other] == 0:
                        continue
                    seen.add(other)
                    parent[other] = (j, k)
                    used.add(j)
                    queue.append(other)
    cuts = [j for j in range(model.n_joints) if j not in used]
    return parent, cuts


def _on(model, j, k, what):
    """Joint j's anchor or axis on body k (principal frame)."""
    a = int(model.joint_body_a[j]) == k
    return getattr(model, f"joint_{what}_{'a' if a else 'b'}")[j]


def to_mjcf(model, state, h: float | None = None, integrator: str = "RK4") -> str:
    """MJCF text of ``model`` at ``state`` (its qpos0 is that state; velocities are not exported)."""
    _check(model)
    parent, cuts = _tree(model)
    children = {}
    for c, (j, p) in parent.items():
        children.setdefault(p, []).append(c)
    assets, meshes = [], {}
    for s in range(len(model.shape_kind)):
        if int(model.shape_kind[s]) in (ShapeKind.CONVEX, ShapeKind.MESH):
            v = model.shape_verts[model.shape_vert_start[s]:model.shape_vert_start[s + 1]]
            meshes[s] = f"mesh{s}"
            assets.append(f'  <mesh name="mesh{s}" vertex="{_f(v.reshape(-1))}"/>')

    def pose_in(k, p):
        if p is None or p == 0:
            return state.body_pos[k], state.body_quat[k]
        return (quat_rotate_inv(state.body_quat[p], state.body_pos[k] - state.body_pos[p]),
                quat_mul(quat_conj(state.body_quat[p]), state.body_quat[k]))

    def geoms(k, indent):
        out = []
        for s in np.nonzero(model.shape_body == k)[0]:
            out.append(indent + _geom(model, int(s), meshes))
        return out

    def body(k, p, indent):
        name = model.body_names[k]
        pos, quat = pose_in(k, p)
        lines = [f'{indent}<body name="{name}" pos="{_f(pos)}" quat="{_f(quat)}">']
        if model.body_inv_mass[k] > 0:
            lines.append(f'{indent}  <inertial pos="0 0 0" mass="{model.body_mass[k]:.17g}" '
                         f'diaginertia="{_f(model.body_inertia[k])}"/>')
        if k in parent:
            lines += _joint_xml(model, state, parent[k][0], k, indent + "  ")
        elif model.body_inv_mass[k] > 0:
            lines.append(f'{indent}  <freejoint name="{name}/free"/>')
        lines += geoms(k, indent + "  ")
        for c in children.get(k, []):
            lines += body(c, k, indent + "  ")
        lines.append(f"{indent}</body>")
        return lines

    opt = f' timestep="{h:.17g}"' if h else ""
    out = [f'<mujoco model="{model.name}">', '  <compiler angle="radian" inertiafromgeom="false"/>',
           f'  <option{opt} integrator="{integrator}" gravity="{_f(model.gravity)}"/>']
    if assets:
        out += ["  <asset>", *assets, "  </asset>"]
    out.append("  <worldbody>")
    out += geoms(0, "    ")
    for c in children.get(0, []):
        out += body(c, 0, "    ")
    for k in range(1, model.n_bodies):
        if k not in parent:          # static bodies and free bodies
            out += body(k, None, "    ")
    out.append("  </worldbody>")
    out += _equalities(model, cuts)
    out += _exclusions(model, parent, cuts)
    out += _actuators(model)
    out.append("</mujoco>")
    return "\n".join(out)


def _check(model):
    for k in range(1, model.n_bodies):
        if model.body_kinematic[k]:
            raise ModelError(f'bodies "{model.body_names[k]}": kinematic bodies have no MJCF counterpart here')
    for j in range(model.n_joints):
        kind = JointKind(int(model.joint_kind[j]))
        if kind not in _TREE_KINDS:
            raise ModelError(f'joints "{model.joint_names[j]}": {kind.name.lower()} joints are not exported to MJCF')
    if model.n_springs:
        raise ModelError(f'springs "{model.spring_names[0]}": springs are not exported to MJCF')


def _joint_xml(model, state, j, k, indent):
    """The joint elements of body k (child of joint j), in k's frame."""
    kind = JointKind(int(model.joint_kind[j]))
    name = model.joint_names[j]
    pos = _on(model, j, k, "anchor")
    axis = _on(model, j, k, "axis")
    lim = _limits(model, j)
    if kind == JointKind.HINGE:
        return [f'{indent}<joint name="{name}" type="hinge" pos="{_f(pos)}" axis="{_f(axis)}"{lim.get(0, "")}/>']
    if kind == JointKind.SLIDER:
        return [f'{indent}<joint name="{name}" type="slide" pos="{_f(pos)}" axis="{_f(axis)}"{lim.get(1, "")}/>']
    if kind == JointKind.CYLINDRICAL:
        return [f'{indent}<joint name="{name}/slide" type="slide" pos="{_f(pos)}" axis="{_f(axis)}"{lim.get(1, "")}/>',
                f'{indent}<joint name="{name}" type="hinge" pos="{_f(pos)}" axis="{_f(axis)}"{lim.get(0, "")}/>']
    if kind == JointKind.BALL:
        return [f'{indent}<joint name="{name}" type="ball" pos="{_f(pos)}"/>']
    if kind == JointKind.UNIVERSAL:
        a = int(model.joint_body_a[j])
        p_axis = model.joint_axis_a[j] if a != k else model.joint_axis_b[j]
        p_body = a if a != k else int(model.joint_body_b[j])
        # the parent's axis expressed in the child's frame at the exported pose (MuJoCo's first hinge)
        first = quat_rotate_inv(state.body_quat[k], quat_rotate(state.body_quat[p_body], p_axis))
        return [f'{indent}<joint name="{name}/1" type="hinge" pos="{_f(pos)}" axis="{_f(first)}"/>',
                f'{indent}<joint name="{name}/2" type="hinge" pos="{_f(pos)}" axis="{_f(axis)}"/>']
    return []   # fixed: welded


def _limits(model, j):
    out = {}
    for i in np.nonzero(model.limit_joint == j)[0]:
        lo, hi = model.limit_lower[i], model.limit_upper[i]
        lo = -1e10 if not np.isfinite(lo) else lo
        hi = 1e10 if not np.isfinite(hi) else hi
        out[int(model.limit_coord[i])] = f' limited="true" range="{lo:.17g} {hi:.17g}"'
    return out


def _geom(model, s, meshes):
    kind = ShapeKind(int(model.shape_kind[s]))
    p, q, par = model.shape_pos[s], model.shape_quat[s], model.shape_params[s]
    mu = model.material_dynamic_friction[model.shape_material[s]]
    common = f'pos="{_f(p)}" quat="{_f(q)}" friction="{mu:.17g} 0.005 0.0001"'
    if kind == ShapeKind.SPHERE:
        return f'<geom type="sphere" size="{par[0]:.17g}" {common}/>'
    if kind == ShapeKind.BOX:
        return f'<geom type="box" size="{_f(0.5 * par)}" {common}/>'
    if kind == ShapeKind.CAPSULE:
        return f'<geom type="capsule" size="{par[0]:.17g} {0.5 * par[1]:.17g}" {common}/>'
    if kind == ShapeKind.CYLINDER:
        return f'<geom type="cylinder" size="{par[0]:.17g} {0.5 * par[1]:.17g}" {common}/>'
    if kind == ShapeKind.ELLIPSOID:
        return f'<geom type="ellipsoid" size="{_f(par)}" {common}/>'
    if kind == ShapeKind.HALFSPACE:
        return f'<geom type="plane" size="0 0 1" {common}/>'
    # the model keeps hull and mesh vertices in the body's frame already: the geom sits at the body frame
    return f'<geom type="mesh" mesh="{meshes[s]}" pos="0 0 0" quat="1 0 0 0" friction="{mu:.17g} 0.005 0.0001"/>'


def _equalities(model, cuts):
    if not cuts:
        return []
    out = ["  <equality>"]
    for j in cuts:
        kind = JointKind(int(model.joint_kind[j]))
        a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
        na, nb = model.body_names[a], model.body_names[b]
        if kind in (JointKind.BALL, JointKind.HINGE):
            out.append(f'    <connect name="{model.joint_names[j]}" body1="{na}" body2="{nb}" '
                       f'anchor="{_f(model.joint_anchor_a[j])}"/>')
        elif kind == JointKind.FIXED:
            out.append(f'    <weld name="{model.joint_names[j]}" body1="{na}" body2="{nb}" '
                       f'anchor="{_f(model.joint_anchor_a[j])}"/>')
        else:
            raise ModelError(f'joints "{model.joint_names[j]}": a {kind.name.lower()} joint closing a loop is not '
                             f"exported to MJCF (ball, hinge and fixed are)")
    out.append("  </equality>")
    return out


def _exclusions(model, parent, cuts):
    """Body pairs impulsim never collides that MuJoCo would: every pair except MuJoCo's parent-child."""
    tree_pairs = {tuple(sorted((c, p))) for c, (j, p) in parent.items()}
    out = []
    for a, b in model.collision_exclude:
        a, b = int(a), int(b)
        if (a, b) in tree_pairs or a == 0 or b == 0:
            continue
        out.append(f'    <exclude body1="{model.body_names[a]}" body2="{model.body_names[b]}"/>')
    return ["  <contact>", *out, "  </contact>"] if out else []


def _actuators(model):
    out = []
    for m in range(model.n_motors):
        j = int(model.motor_joint[m])
        jname = _coord_joint_name(model, j, int(model.motor_coord[m]))
        out.append(f'    <motor name="{model.motor_names[m]}" joint="{jname}" gear="1"/>')
    for s in range(model.n_servos):
        kp, ki, kd = model.servo_gains[s]
        mode = ServoMode(int(model.servo_mode[s]))
        if ki != 0 or mode not in (ServoMode.ANGLE, ServoMode.POSITION):
            raise ModelError(f'servos "{model.servo_names[s]}": only angle/position servos without an integral '
                             f"gain are exported to MJCF (as position actuators)")
        coord = Coordinate.ANGLE if mode == ServoMode.ANGLE else Coordinate.POSITION
        jname = _coord_joint_name(model, int(model.servo_joint[s]), int(coord))
        lim = model.servo_limit[s]
        force = f' forcelimited="true" forcerange="{-lim:.17g} {lim:.17g}"' if np.isfinite(lim) else ""
        out.append(f'    <position name="{model.servo_names[s]}" joint="{jname}" kp="{kp:.17g}" kv="{kd:.17g}"{force}/>')
    return ["  <actuator>", *out, "  </actuator>"] if out else []


def _coord_joint_name(model, j, coord):
    name = model.joint_names[j]
    if JointKind(int(model.joint_kind[j])) == JointKind.CYLINDRICAL and coord == Coordinate.POSITION:
        return f"{name}/slide"
    return name


def export_mjcf(model, state, path, h: float | None = None) -> None:
    """Write :func:`to_mjcf` of ``model`` at ``state`` to ``path``."""
    from pathlib import Path
    Path(path).write_text(to_mjcf(model, state, h), encoding="utf-8")
