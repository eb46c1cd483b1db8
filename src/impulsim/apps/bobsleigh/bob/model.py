"""The two-man bob as a tree in minimal coordinates (Rempfler 2015, ch. 4), built from a bob file.

Nine bodies: the rear hull on a free joint (position and unit quaternion), two rear runners and the crew's
upper bodies on revolute joints of the rear hull, the front hull on the centre separation joint α, the
steering head on the kinematically actuated steering joint β, the pendulum front axle γ, and two front runners:
13 degrees of freedom plus β. Forces: gravity, quadratic drag at the rear hull, joint springs and dampers
(α and γ preloaded double springs, eq. 4.2-4.4). 17 segment contacts: 8 runner points (anisotropic runner law
with load-dependent lateral coefficient, eq. 4.5), 4 bumpers and 5 rollover points (Coulomb, extended Newton
impact law).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from impulsim.apps.bobsleigh.bob.files import BobFileError, read_yaml
from impulsim.methods.moreau.laws import FrictionLaw
from impulsim.methods.moreau_minimal import SpringKind, TreeBuilder

CONTACT_KINDS = ("runner", "bumper", "rollover")


def steering_angle(i, beta_max, directness):
    """β = β_max sign(i) |i|^(1/d) [rad] for the normalised steering input i ∈ [−1, 1] (eq. 4.6); inputs
    beyond the end stops are clamped, so |β| ≤ β_max."""
    i = float(np.clip(i, -1.0, 1.0))
    return beta_max * math.copysign(abs(i) ** (1.0 / directness), i)


@dataclass
class Bob:
    """A bob read from a file: bodies, joints, contacts and force-law parameters (SI, radians)."""
    name: str
    source: str
    gravity: float
    air_density: float
    drag_area: float
    drag_body: str
    runner: dict
    bumper: dict
    rollover: dict
    beta_max: float
    directness: float
    steering_axis: tuple
    steering_point: tuple
    bodies: list = field(default_factory=list)
    contacts: list = field(default_factory=list)

    @property
    def mass(self) -> float:
        return sum(b["mass"] for b in self.bodies)

    def with_setup(self, **changes) -> "Bob":
        """A copy with some top-level parameters changed (e.g. directness, runner=dict(...))."""
        import copy
        out = copy.deepcopy(self)
        for k, v in changes.items():
            if not hasattr(out, k):
                raise ValueError(f"setup: unknown parameter {k!r}")
            if isinstance(getattr(out, k), dict):
                getattr(out, k).update(v)
            else:
                setattr(out, k, v)
        return out

    def steering(self, i):
        return steering_angle(i, self.beta_max, self.directness)

    def contact_indices(self, kind):
        return [k for k, c in enumerate(self.contacts) if c["kind"] == kind]

    def build(self, mesh, **options):
        """The :class:`MinimalSystem` of this bob on ``mesh`` ((vertices, triangles) or a built Mesh)."""
        tb = TreeBuilder()
        com = {b["name"]: np.array(b["com"]) for b in self.bodies}
        drag = 0.5 * self.air_density * self.drag_area          # F = −½ ρ c_d A |v| v
        for b in self.bodies:
            par = b.get("parent")
            point = np.array(b.get("point", b["com"]))
            tb.add_body(b["name"], parent=par, joint=b["joint"], mass=b["mass"], inertia=b["inertia"],
                        axis=b.get("axis", (1, 0, 0)),
                        parent_point=point - com[par] if par else (0, 0, 0), child_point=point - com[b["name"]],
                        actuated=b.get("actuated", False), spring=b.get("spring", (SpringKind.NONE,)),
                        drag=drag if b["name"] == self.drag_body else 0.0)
        r = self.runner
        runner_law = FrictionLaw.RUNNER_EXACT if r["prox"] == "exact" else FrictionLaw.RUNNER
        for c in self.contacts:
            origin = np.array(c["point"]) - com[c["body"]]
            if c["kind"] == "runner":
                tb.add_segment(c["body"], origin, c["direction"], law=runner_law,
                               par=(r["mu_t"], r["mu_r_ratio"] * r["mu_t"], r["mu_b_min"], r["mu_b_max"],
                                    r["lam_n_max"]), axis=(1.0, 0.0, 0.0), name=c["kind"])
            else:
                p = self.bumper if c["kind"] == "bumper" else self.rollover
                tb.add_segment(c["body"], origin, c["direction"], law=FrictionLaw.COULOMB, par=(p["mu"],),
                               eps_n=p["eps_n"], eps_f=p["eps_f"], name=c["kind"])
        return tb.build(gravity=(0.0, 0.0, -self.gravity), mesh=mesh, **options)


def _spring(rd):
    if rd is None:
        return (SpringKind.NONE,)
    rd.check_keys({"kind", "stiffness", "damping", "inner", "outer", "knee", "rest"})
    kind = rd.text("kind", "linear", ("linear", "double"))
    d = rd.number("damping", 0.0, low=0.0)
    rest = math.radians(rd.number("rest", 0.0))
    if kind == "linear":
        return (SpringKind.LINEAR, rd.number("stiffness", low=0.0), 0.0, 0.0, d, rest)
    return (SpringKind.DOUBLE, rd.number("inner", low=0.0), rd.number("outer", low=0.0),
            math.radians(rd.number("knee", low=0.0)), d, rest)


def _body(rd, names):
    rd.check_keys({"name", "parent", "joint", "point", "axis", "com", "mass", "inertia", "spring", "actuated"})
    b = {"name": rd.text("name"), "joint": rd.text("joint", choices=("free", "revolute", "fixed")),
         "com": rd.vector("com"), "mass": rd.number("mass", positive=True), "inertia": rd.vector("inertia")}
    if b["name"] in names:
        rd.fail(f'body "{b["name"]}" defined twice', key="name")
    if min(b["inertia"]) <= 0:
        rd.fail("inertia moments must be positive", key="inertia")
    if b["joint"] == "free":
        if "parent" in rd.data:
            rd.fail("a free body has no parent", key="parent")
        return b
    b["parent"] = rd.text("parent")
    if b["parent"] not in names:
        rd.fail(f'unknown parent "{b["parent"]}" (bodies are listed parents first)', key="parent")
    b["point"] = rd.vector("point")
    b["axis"] = rd.vector("axis", (1, 0, 0))
    if np.linalg.norm(b["axis"]) == 0:
        rd.fail("axis must not be zero", key="axis")
    b["actuated"] = bool(rd.data.get("actuated", False))
    b["spring"] = _spring(rd.sub("spring", required=False))
    return b


def _contact(rd, names):
    rd.check_keys({"body", "kind", "point", "direction"})
    c = {"body": rd.text("body"), "kind": rd.text("kind", choices=CONTACT_KINDS), "point": rd.vector("point"),
         "direction": rd.vector("direction")}
    if c["body"] not in names:
        rd.fail(f'unknown body "{c["body"]}"', key="body")
    if np.linalg.norm(c["direction"]) == 0:
        rd.fail("direction must not be zero", key="direction")
    return c


def load_bob(path="two_man") -> Bob:
    """Read a bob file (a path or a shipped name such as "two_man"); errors are one line,
    ``file:line: element: problem`` (:class:`BobFileError`)."""
    src, top = read_yaml(path)
    top.check_keys({"name", "gravity", "air", "runner_friction", "bumper", "rollover", "steering", "bodies",
                    "contacts"})
    air = top.sub("air")
    air.check_keys({"density", "drag_area", "body"})
    rf = top.sub("runner_friction")
    rf.check_keys({"mu_t", "mu_r_ratio", "mu_b_min", "mu_b_max", "lam_n_max", "prox"})
    runner = {"mu_t": rf.number("mu_t", positive=True), "mu_r_ratio": rf.number("mu_r_ratio", low=0.0, high=0.999),
              "mu_b_min": rf.number("mu_b_min", positive=True), "mu_b_max": rf.number("mu_b_max", positive=True),
              "lam_n_max": rf.number("lam_n_max", positive=True), "prox": rf.text("prox", "exact", ("exact", "scaled"))}
    if runner["mu_b_max"] < runner["mu_b_min"]:
        rf.fail("mu_b_max must not be below mu_b_min", key="mu_b_max")
    laws = {}
    for key in ("bumper", "rollover"):
        r = top.sub(key)
        r.check_keys({"mu", "eps_n", "eps_f"})
        laws[key] = {"mu": r.number("mu", low=0.0), "eps_n": r.number("eps_n", 0.0, low=0.0, high=1.0),
                     "eps_f": r.number("eps_f", 0.0, low=0.0, high=1.0)}
    st = top.sub("steering")
    st.check_keys({"beta_max", "directness", "axis", "point"})
    bodies, names = [], set()
    for rd in top.items("bodies"):
        b = _body(rd, names)
        bodies.append(b)
        names.add(b["name"])
    if sum(b["joint"] == "free" for b in bodies) != 1 or bodies[0]["joint"] != "free":
        top.fail("the first body, and only it, must have a free joint", key="bodies")
    if sum(b.get("actuated", False) for b in bodies) != 1:
        top.fail("exactly one joint (the steering joint) must be actuated", key="bodies")
    contacts = [_contact(rd, names) for rd in top.items("contacts")]
    drag_body = air.text("body", bodies[0]["name"])
    if drag_body not in names:
        air.fail(f'unknown body "{drag_body}"', key="body")
    return Bob(name=top.text("name", "bob"), source=src, gravity=top.number("gravity", 9.81, positive=True),
               air_density=air.number("density", low=0.0), drag_area=air.number("drag_area", low=0.0),
               drag_body=drag_body, runner=runner, bumper=laws["bumper"], rollover=laws["rollover"],
               beta_max=math.radians(st.number("beta_max", positive=True)),
               directness=st.number("directness", positive=True), steering_axis=st.vector("axis"),
               steering_point=st.vector("point"), bodies=bodies, contacts=contacts)


__all__ = ["Bob", "BobFileError", "load_bob", "steering_angle"]
