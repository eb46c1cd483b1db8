"""One model under several methods and under MuJoCo, from the same initial state.

``compare_file(path, methods)`` imports a URDF or MJCF file (or loads a scene file), runs it under each
impulsim method that accepts it and under MuJoCo (when installed: MuJoCo reads the URDF or MJCF file
itself; a scene file goes through :mod:`impulsim.io.mjcf_export`), all from the reference configuration at
rest, and measures per method: the largest difference of the centres of mass of same-named bodies and of
same-named joint coordinates (hinge angles unwrapped, slider positions) to MuJoCo's, and the median wall
time per step. MuJoCo runs with its RK4 integrator at the same step, everything else as the file says.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from impulsim.errors import ModelError
from impulsim.model.kinds import JointKind


@dataclass
class Trajectory:
    """Samples of a run: times [s], centres of mass [m] per named body, joint coordinates per named joint."""
    t: list = field(default_factory=list)
    com: dict = field(default_factory=dict)
    coord: dict = field(default_factory=dict)
    step_times: np.ndarray = field(default_factory=lambda: np.zeros(0))
    error: str = ""

    def add(self, t, com: dict, coord: dict):
        self.t.append(t)
        for k, v in com.items():
            self.com.setdefault(k, []).append(np.array(v, float))
        for k, v in coord.items():
            self.coord.setdefault(k, []).append(float(v))

    @property
    def step_time(self) -> float:
        """Median wall time of one step [s] (NaN when the run failed before any step)."""
        return float(np.median(self.step_times)) if self.step_times.size else float("nan")


def _coordinate_joints(model):
    """(joint index, name, 'angle' or 'position') of the joints with one coordinate (hinge, slider)."""
    out = []
    for j, name in enumerate(model.joint_names):
        kind = JointKind(int(model.joint_kind[j]))
        if kind == JointKind.HINGE:
            out.append((j, name, "angle"))
        elif kind == JointKind.SLIDER:
            out.append((j, name, "position"))
    return out


def _coordinates(model, state, joints, previous):
    from impulsim.dynamics.coordinates import joint_angle, joint_position
    out = {}
    for j, name, what in joints:
        a, b = int(model.joint_body_a[j]), int(model.joint_body_b[j])
        if what == "angle":
            v = joint_angle(state.body_quat[a], state.body_quat[b], model.joint_axis_a[j], model.joint_ref_a[j],
                            model.joint_ref_b[j])
            if name in previous:                  # unwrap: continuous angles
                v = previous[name] + (v - previous[name] + np.pi) % (2 * np.pi) - np.pi
        else:
            v = joint_position(state.body_pos[a], state.body_quat[a], state.body_pos[b], state.body_quat[b],
                               model.joint_anchor_a[j], model.joint_anchor_b[j], model.joint_axis_a[j])
        out[name] = float(v)
    return out


def run_impulsim(scene, method: str, h: float, duration: float, sample_every: int = 1, **options) -> Trajectory:
    """Run ``scene`` under ``method`` for ``duration`` [s] at step ``h`` [s], sampling every few steps."""
    from impulsim.simulation import Simulation
    model = scene.model
    traj = Trajectory()
    try:
        sim = Simulation(model, scene.state.copy(), method=scene.make_method(method, **options), h=h)
    except ModelError as exc:
        traj.error = " ".join(str(exc).split())
        return traj
    joints = _coordinate_joints(model)
    moving = [k for k in range(1, model.n_bodies) if model.body_inv_mass[k] > 0]
    last = _coordinates(model, sim.state, joints, {})
    traj.add(0.0, {model.body_names[k]: sim.state.body_pos[k] for k in moving}, last)
    n = int(round(duration / h))
    times = np.empty(n)
    for i in range(n):
        t0 = time.perf_counter()
        try:
            sim.step()
        except Exception as exc:      # a method's failure is a result of the comparison, not a crash
            traj.error = f"step {i + 1}: {' '.join(str(exc).split())}"
            traj.step_times = times[:i]
            return traj
        times[i] = time.perf_counter() - t0
        last = _coordinates(model, sim.state, joints, last)
        if (i + 1) % sample_every == 0:
            traj.add(sim.state.t, {model.body_names[k]: sim.state.body_pos[k] for k in moving}, last)
    traj.step_times = times
    return traj


def mujoco_model(path, scene, h, contacts: bool = True):
    """MuJoCo's model of the file (URDF or MJCF read by MuJoCo; a scene exported to MJCF), RK4 at ``h``;
    ``contacts=False`` turns MuJoCo's contacts off."""
    import mujoco
    from impulsim.io.formats import model_kind
    kind = model_kind(path)
    if kind == "scene":
        from impulsim.io.mjcf_export import to_mjcf
        m = mujoco.MjModel.from_xml_string(to_mjcf(scene.model, scene.state, h=h))
    elif kind == "urdf":
        m = mujoco.MjModel.from_xml_string(_urdf_with_mesh_paths(path))
    else:
        m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.timestep = h
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    if not contacts:
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    return m


def mujoco_model_from_xml(xml: str, h, contacts: bool = True):
    """MuJoCo's model of MJCF text, RK4 at ``h``, contacts on or off."""
    import mujoco
    m = mujoco.MjModel.from_xml_string(xml)
    m.opt.timestep = h
    m.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    if not contacts:
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
    return m


def _urdf_with_mesh_paths(path) -> str:
    """The URDF text with ``package://`` and relative mesh names replaced by the files impulsim resolves
    (MuJoCo's URDF reader knows no packages)."""
    from lxml import etree
    from impulsim.io.urdf import resolve_mesh
    root = etree.parse(str(path)).getroot()
    for mesh in root.iter("mesh"):
        if mesh.get("filename"):
            mesh.set("filename", str(resolve_mesh(mesh.get("filename"), Path(path).parent).resolve()))
    return etree.tostring(root, encoding="unicode")


def run_mujoco(m, names_body, names_joint, duration, sample_every=1) -> Trajectory:
    """Step MuJoCo's model from qpos0 at rest; sample centres of mass and joint coordinates by name."""
    import mujoco
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    bodies = {n: i for n in names_body if (i := mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, n)) >= 0}
    joints = {}
    for n in names_joint:
        j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, n)
        if j >= 0 and int(m.jnt_type[j]) in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
            joints[n] = int(m.jnt_qposadr[j])
    mujoco.mj_forward(m, d)
    traj = Trajectory()

    def sample():
        traj.add(d.time, {n: d.xipos[i].copy() for n, i in bodies.items()},
                 {n: d.qpos[a] - m.qpos0[a] for n, a in joints.items()})

    sample()
    n = int(round(duration / m.opt.timestep))
    times = np.empty(n)
    for i in range(n):
        t0 = time.perf_counter()
        mujoco.mj_step(m, d)
        times[i] = time.perf_counter() - t0
        if (i + 1) % sample_every == 0:
            sample()
    traj.step_times = times
    return traj


def differences(a: Trajectory, b: Trajectory) -> tuple[float, float, int, int]:
    """(largest COM distance [m], largest joint-coordinate difference [rad or m], bodies, joints compared)
    over the samples both runs have."""
    n = min(len(a.t), len(b.t))
    com = [np.max(np.linalg.norm(np.array(a.com[k][:n]) - np.array(b.com[k][:n]), axis=1))
           for k in a.com if k in b.com]
    crd = [np.max(np.abs(np.array(a.coord[k][:n]) - np.array(b.coord[k][:n]))) for k in a.coord if k in b.coord]
    return (max(com) if com else float("nan"), max(crd) if crd else float("nan"), len(com), len(crd))


def _takes_option(method: str, option: str) -> bool:
    from impulsim.io.settings import method_options
    try:
        return option in method_options(method)
    except Exception:
        return False


def _has_no_contacts(method: str) -> bool:
    """True when the method's capability declaration has no contacts at all."""
    from impulsim.methods import METHODS
    from impulsim.methods.capabilities import capabilities_of
    cap = capabilities_of(METHODS[method]) if method in METHODS else None
    return cap is not None and not cap.contacts


@dataclass
class Row:
    """One line of the comparison: a method (or MuJoCo) and what it measured."""
    method: str
    com_diff: float = float("nan")
    coord_diff: float = float("nan")
    step_time: float = float("nan")
    note: str = ""


def compare_file(path, methods=("impulse", "lagrange", "featherstone", "moreau"), *, h: float = 1e-3,
                 duration: float = 1.0, sample_every: int = 10, options: dict | None = None,
                 contacts: bool = False, limits: bool = True) -> list[Row]:
    """Run the model in ``path`` under each method and under MuJoCo; differences are to MuJoCo's run
    (to the first method's when MuJoCo is not installed). MuJoCo's contacts are off unless ``contacts``
    and then also for the methods that have a ``contacts`` option. ``limits=False`` removes the
    joint limits from both sides (MuJoCo's are soft constraints, impulsim's are stops: they differ by design)."""
    from impulsim.io.formats import load_model_file, model_kind
    from impulsim.bench.mujoco_peer import available
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scene = load_model_file(path)
    if not limits and scene.builder.limits:
        from impulsim.io.scene import Scene
        scene.builder.limits.clear()
        model, state = scene.builder.build()
        scene = Scene(scene.name, scene.file, scene.builder, model, state, scene.settings)
    runs = {}
    for name in methods:
        opts = dict((options or {}).get(name, {}))
        if not contacts:                                # as MuJoCo's: contacts off on both sides
            if _takes_option(name, "contacts"):
                opts.setdefault("contacts", False)
            elif _has_no_contacts(name):
                opts.setdefault("ignore", ("contacts",))
        runs[name] = run_impulsim(scene, name, h, duration, sample_every, **opts)
    reference = None
    rows = []
    if available():
        source = "impulsim's MJCF export" if model_kind(path) == "scene" else "the file"
        try:
            m = mujoco_model(path, scene, h, contacts)
        except ValueError as exc:       # MuJoCo cannot read it (ASCII STL, ...): it runs impulsim's export
            from impulsim.io.mjcf_export import to_mjcf
            m = mujoco_model_from_xml(to_mjcf(scene.model, scene.state, h=h), h, contacts)
            source = f"impulsim's MJCF export (MuJoCo cannot read the file: {' '.join(str(exc).split())[:80]})"
        if not limits:
            m.jnt_limited[:] = 0
        ref = run_mujoco(m, scene.model.body_names, scene.model.joint_names, duration, sample_every)
        reference = ref
        rows.append(Row("mujoco", 0.0, 0.0, ref.step_time,
                        f"reference: RK4 at the same step, contacts {'on' if contacts else 'off'}, joint limits "
                        f"{'on' if limits else 'off'}, the file's "
                        f"other options; model from {source}"))
    for name, traj in runs.items():
        if traj.error:
            rows.append(Row(name, note=traj.error))
            continue
        if reference is None:
            reference = traj
        com, crd, nb, nj = differences(traj, reference)
        rows.append(Row(name, com, crd, traj.step_time, f"{nb} bodies, {nj} joint coordinates compared"))
    return rows


def format_rows(rows, path, h, duration) -> list[str]:
    """The comparison as printable lines."""
    out = [f"{Path(path).name}: {duration:g} s at h = {h:g} s from the reference configuration at rest",
           f"{'method':<13}{'max |dCOM| [m]':>16}{'max |dq| [rad|m]':>18}{'step [us]':>11}  note"]
    for r in rows:
        out.append(f"{r.method:<13}{r.com_diff:>16.3e}{r.coord_diff:>18.3e}{r.step_time * 1e6:>11.1f}  {r.note}")
    return out
