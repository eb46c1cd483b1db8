"""The same model in MuJoCo (the ``bench`` extra), started from the same state, for speed and stability.

Conversion: the spanning tree of our connection graph becomes MuJoCo's body tree. Each body's frame is
our principal frame at the given state (so qpos0 is that state and all ball quaternions start at identity),
with its mass and principal moments given explicitly. Ball joints become "ball", hinges "hinge" (a hinge's
angle limit becomes its range, a soft constraint without restitution in MuJoCo); a joint that closes a loop
becomes an ``equality/connect`` constraint on its point (for the hinge loops of the benchmark
the hinge's rotational rows are redundant with the rest of the loop). Contacts are disabled. The state's
velocities are mapped to joint velocities (relative angular velocity in the child's frame).

Only ball and hinge joints are converted; other kinds raise NotImplementedError naming the joint.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from impulsim.math import quat_mul, quat_conj, quat_rotate, quat_rotate_inv
from impulsim.methods.impulse.graph import find_chains
from impulsim.model.kinds import JointKind


def available() -> bool:
    try:
        import mujoco  # noqa: F401
    except ImportError:
        return False
    return True


def _fmt(v):
    return " ".join(f"{x:.17g}" for x in v)


@dataclass
class PeerModel:
    """A compiled MuJoCo model plus how to map our state onto it."""
    mj_model: object
    body_ids: dict          # our body index -> MuJoCo body id
    joint_of_body: dict     # our body index -> (our joint index, kind, parent body or -1)
    connect_points: list    # (our body a, local point a, our body b, local point b) per cut joint


def _tree_edges(model):
    """(child -> (joint, parent), cut joints) over the spanning trees of all chains (parent −1: the world)."""
    edges, cuts = {}, []
    for ch in find_chains(model):
        order = {k: i for i, k in enumerate(ch.bodies)}
        for j in ch.tree_joints:
            a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
            for k in (a, b):
                if model.body_inv_mass[k] == 0 and k != 0:
                    raise NotImplementedError(f'joints[{j}] "{model.joint_names[j]}": only the world may be a '
                                              f"fixed body in the MuJoCo conversion")
            # the child is the body this edge is the parent edge of: the one later in traversal order
            if a not in order or (b in order and order[b] > order[a]):
                edges[b] = (j, -1 if a not in order else a)
            else:
                edges[a] = (j, -1 if b not in order else b)
        cuts += ch.cut_joints
    return edges, cuts


def _anchor_on(model, j, k):
    return model.joint_anchor_a[j] if model.joint_body_a[j] == k else model.joint_anchor_b[j]


def _axis_on(model, j, k):
    return model.joint_axis_a[j] if model.joint_body_a[j] == k else model.joint_axis_b[j]


def to_mjcf(model, state, h, integrator="Euler"):
    """(MJCF text, edges, cut joints) of ``model`` with body frames at ``state``'s poses."""
    edges, cuts = _tree_edges(model)
    ranges = _hinge_ranges(model, state)
    children: dict[int, list[int]] = {}
    for child, (_, parent) in edges.items():
        children.setdefault(parent, []).append(child)
    for j in [e[0] for e in edges.values()] + cuts:
        kind = JointKind(model.joint_kind[j])
        if kind not in (JointKind.BALL, JointKind.HINGE):
            raise NotImplementedError(f'joints[{j}] "{model.joint_names[j]}": {kind.name.lower()} joints are not '
                                      f"converted to MuJoCo (ball and hinge only)")

    def body_head(k, parent, indent):
        if parent < 0:
            pos, quat = state.body_pos[k], state.body_quat[k]
        else:
            pos = quat_rotate_inv(state.body_quat[parent], state.body_pos[k] - state.body_pos[parent])
            quat = quat_mul(quat_conj(state.body_quat[parent]), state.body_quat[k])
        j, _ = edges[k]
        kind = "ball" if JointKind(model.joint_kind[j]) == JointKind.BALL else "hinge"
        axis = f' axis="{_fmt(_axis_on(model, j, k))}"' if kind == "hinge" else ""
        if j in ranges:
            axis += f' limited="true" range="{_fmt(ranges[j])}"'
        out = [f'{indent}<body name="b{k}" pos="{_fmt(pos)}" quat="{_fmt(quat)}">',
               f'{indent} <inertial pos="0 0 0" mass="{model.body_mass[k]:.17g}" '
               f'diaginertia="{_fmt(model.body_inertia[k])}"/>',
               f'{indent} <joint name="j{j}" type="{kind}" pos="{_fmt(_anchor_on(model, j, k))}"{axis}/>']
        return out

    def body_xml(root):
        """Lines of the body ``root`` and its subtree (an explicit stack: chains nest a thousand deep)."""
        out, stack = [], [(root, -1, " ")]
        while stack:
            k, parent, indent = stack.pop()
            if k is None:
                out.append(f"{indent}</body>")
                continue
            out += body_head(k, parent, indent)
            stack.append((None, k, indent))
            stack += [(c, k, indent + " ") for c in reversed(children.get(k, []))]
        return out

    lines = [f'<mujoco model="{model.name}">',
             f'<option timestep="{h:.17g}" integrator="{integrator}" gravity="{_fmt(model.gravity)}">',
             ' <flag contact="disable" energy="enable"/>', "</option>", "<worldbody>"]
    for root in children.get(-1, []):
        lines += body_xml(root)
    lines.append("</worldbody>")
    if cuts:
        lines.append("<equality>")
        for j in cuts:
            a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
            if model.body_inv_mass[a] == 0:
                a, b = b, a
            b_name = "world" if model.body_inv_mass[b] == 0 else f"b{b}"
            lines.append(f' <connect body1="b{a}" body2="{b_name}" anchor="{_fmt(_anchor_on(model, j, a))}"/>')
        lines.append("</equality>")
    lines.append("</mujoco>")
    return "\n".join(lines), edges, cuts


def _hinge_ranges(model, state) -> dict:
    """Joint index -> MuJoCo's range [rad] of each hinge limit: the bounds less the angle at ``state``, which
    is MuJoCo's zero (qpos0 is that pose). A limit on another joint kind or coordinate raises
    NotImplementedError naming it. MuJoCo's limits are soft constraints without restitution."""
    from impulsim.contact.limits import limit_coordinates
    ranges = {}
    q = limit_coordinates(model, state)
    for i in range(model.n_limits):
        j = int(model.limit_joint[i])
        if JointKind(model.joint_kind[j]) != JointKind.HINGE or model.limit_coord[i] != 0:
            raise NotImplementedError(f'limits[{i}] "{model.limit_names[i]}": only hinge angle limits are '
                                      f"converted to MuJoCo")
        ranges[j] = np.array([model.limit_lower[i] - q[i], model.limit_upper[i] - q[i]])
    return ranges


def build(model, state, h, integrator="Euler") -> PeerModel:
    """Compile the MuJoCo model of ``model`` with its reference pose at ``state``."""
    import mujoco
    xml, edges, cuts = to_mjcf(model, state, h, integrator)
    mj = compile_mjcf(xml)
    body_ids = {k: mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, f"b{k}") for k in edges}
    joint_of_body = {k: (j, JointKind(model.joint_kind[j]), parent) for k, (j, parent) in edges.items()}
    connect = []
    for j in cuts:
        a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
        connect.append((a, model.joint_anchor_a[j], b, model.joint_anchor_b[j]))
    return PeerModel(mj, body_ids, joint_of_body, connect)


def compile_mjcf(xml: str):
    """MjModel of an MJCF text from :func:`to_mjcf`. MuJoCo's XML parser refuses elements nested more than
    500 deep (a chain of about 500 bodies); such a text is read with Python's parser and built as an MjSpec
    instead, element by element (only the elements :func:`to_mjcf` writes)."""
    import mujoco
    try:
        return mujoco.MjModel.from_xml_string(xml)
    except ValueError as exc:
        if "XML_ELEMENT_DEPTH_EXCEEDED" not in str(exc):
            raise
    return _spec_of(xml).compile()


def _floats(text):
    return [float(x) for x in text.split()]


def _spec_of(xml: str):
    """MjSpec of an MJCF text written by :func:`to_mjcf` (option, flags, nested bodies with explicit inertia,
    ball and hinge joints, connect equalities), walked with an explicit stack so any depth is fine."""
    import xml.etree.ElementTree as ET
    import mujoco
    root = ET.fromstring(xml)
    spec = mujoco.MjSpec()
    spec.modelname = root.get("model", "")
    opt = root.find("option")
    spec.option.timestep = float(opt.get("timestep"))
    spec.option.integrator = {"Euler": mujoco.mjtIntegrator.mjINT_EULER, "RK4": mujoco.mjtIntegrator.mjINT_RK4,
                              "implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT,
                              "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST}[opt.get("integrator")]
    spec.option.gravity = _floats(opt.get("gravity"))
    flag = opt.find("flag")
    if flag is not None and flag.get("contact") == "disable":
        spec.option.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    if flag is not None and flag.get("energy") == "enable":
        spec.option.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    kinds = {"ball": mujoco.mjtJoint.mjJNT_BALL, "hinge": mujoco.mjtJoint.mjJNT_HINGE}
    stack = [(spec.worldbody, el) for el in reversed(root.find("worldbody").findall("body"))]
    while stack:
        parent, el = stack.pop()
        inertial = el.find("inertial")
        body = parent.add_body(name=el.get("name"), pos=_floats(el.get("pos")), quat=_floats(el.get("quat")),
                               mass=float(inertial.get("mass")), ipos=_floats(inertial.get("pos")),
                               inertia=_floats(inertial.get("diaginertia")), explicitinertial=True)
        for j in el.findall("joint"):
            joint = body.add_joint(name=j.get("name"), type=kinds[j.get("type")], pos=_floats(j.get("pos")))
            if j.get("axis") is not None:
                joint.axis = _floats(j.get("axis"))
            if j.get("range") is not None:
                joint.limited = mujoco.mjtLimited.mjLIMITED_TRUE
                joint.range = _floats(j.get("range"))
        stack += [(body, c) for c in reversed(el.findall("body"))]
    for c in root.findall("equality/connect"):
        eq = spec.add_equality(type=mujoco.mjtEq.mjEQ_CONNECT, objtype=mujoco.mjtObj.mjOBJ_BODY,
                               name1=c.get("body1"), name2=c.get("body2"))
        data = eq.data.copy()           # MuJoCo's defaults for the rest (the XML reader keeps them too)
        data[:3] = _floats(c.get("anchor"))
        eq.data = data
    return spec


def initial_data(peer: PeerModel, model, state):
    """MjData at the reference pose with joint velocities from ``state`` (relative angular velocities)."""
    import mujoco
    d = mujoco.MjData(peer.mj_model)
    mujoco.mj_resetData(peer.mj_model, d)
    for k, (j, kind, parent) in peer.joint_of_body.items():
        adr = peer.mj_model.jnt_dofadr[mujoco.mj_name2id(peer.mj_model, mujoco.mjtObj.mjOBJ_JOINT, f"j{j}")]
        w_rel = state.body_omega[k] - (state.body_omega[parent] if parent >= 0 else 0.0)
        if kind == JointKind.BALL:
            d.qvel[adr:adr + 3] = quat_rotate_inv(state.body_quat[k], w_rel)
        else:
            axis = quat_rotate(state.body_quat[k], _axis_on(model, j, k))
            d.qvel[adr] = float(np.dot(w_rel, axis))
    mujoco.mj_forward(peer.mj_model, d)
    return d


def energy(d) -> float:
    """Potential (gravity) plus kinetic energy [J] as MuJoCo computes it."""
    return float(d.energy[0] + d.energy[1])


def connect_error(peer: PeerModel, d) -> float:
    """Largest distance [m] between the two points of a loop-closing joint (0 without loops)."""
    worst = 0.0
    for a, la, b, lb in peer.connect_points:
        pa = _world_point(peer, d, a, la)
        pb = _world_point(peer, d, b, lb)
        worst = max(worst, float(np.linalg.norm(pa - pb)))
    return worst


def _world_point(peer, d, k, local):
    if k not in peer.body_ids:       # a ground body: its frame is the world's at the reference pose
        return np.asarray(local, float)
    i = peer.body_ids[k]
    return d.xpos[i] + d.xmat[i].reshape(3, 3) @ local


def bad_qacc(d) -> int:
    """MuJoCo's count of 'Nan, Inf or huge value in QACC' warnings (it resets the state when it occurs)."""
    import mujoco
    return int(d.warning[mujoco.mjtWarning.mjWARN_BADQACC].number)


def run(peer: PeerModel, model, state, steps, kinetic_scale, check_every=1):
    """Step MuJoCo ``steps`` times from ``state``: per-step wall times, the step where it first reported
    an instability (or None), the energy drift relative to ``kinetic_scale`` and the largest loop error."""
    import mujoco
    d = initial_data(peer, model, state)
    m = peer.mj_model
    e0 = energy(d)
    times = np.empty(steps)
    failed_at = None
    worst = 0.0
    for i in range(steps):
        t = time.perf_counter()
        mujoco.mj_step(m, d)
        times[i] = time.perf_counter() - t
        if failed_at is None and (bad_qacc(d) > 0 or not np.isfinite(d.qpos).all()):
            failed_at = i + 1
        if peer.connect_points and i % check_every == 0:
            worst = max(worst, connect_error(peer, d))
    drift = (energy(d) - e0) / kinetic_scale if failed_at is None else float("nan")
    return times, failed_at, drift, worst
