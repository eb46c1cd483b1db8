"""What each method honours, declared once per method class, and the check that refuses the rest.

Every rigid-body method class carries ``capabilities = Capabilities(...)``. From that one declaration:

* the constructor refuses a model element or option the method cannot honour with one
  :class:`UnsupportedFeatureError` naming the element and the methods that do honour it
  (:func:`refusals`, called by ``Method.__init__``);
* ``ignore=("contacts", "limits")`` runs without such elements on the user's explicit request: a warning
  once at construction, and ``StepInfo.ignored`` counts the dropped elements in every step;
* ``impulsim methods`` prints the matrix and docs/methods_capabilities.md holds the same table
  (:func:`matrix_markdown`); the verification tests pick their methods from it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from impulsim.contact.default import contact_pair
from impulsim.errors import UnsupportedFeatureError
from impulsim.model.kinds import JointKind
from impulsim.model.model import Model

ALL_JOINTS = frozenset(k.name.lower() for k in JointKind if k not in (JointKind.VELOCITY, JointKind.THREAD))
"""The joint kinds of rigid bodies ("all" in the matrix); threads hold point masses (the mass-point method)."""

IMPACT_LAWS = ("newton", "poisson", "stronge")

IGNORABLE = ("contacts", "limits")
"""Features a method without them can run without when the user asks (``ignore=``)."""


@dataclass(frozen=True)
class Capabilities:
    """What a method honours. Booleans say yes or no; tuples list the variants it has (empty: none)."""
    joints: frozenset = ALL_JOINTS
    """Joint kinds (lower-case JointKind names) without velocity-only joints."""
    velocity_joints: bool = False
    """Velocity-only joints (prescribed relative velocity), also beside other joints of the same pair."""
    loops: bool = False
    """Closed kinematic loops (a joint whose bodies are already connected through others or the world)."""
    kinematic_bodies: bool = False
    """Bodies moving with a prescribed velocity."""
    contacts: tuple = ()
    """Impact laws of collisions and resting contacts (with Coulomb friction); () = no contacts."""
    limits: bool = False
    """Joint limits (unilateral stops on a joint coordinate, with restitution)."""
    constraints: bool = False
    """Wagner's path, function and velocity constraints (option ``constraints``)."""
    force_elements: bool = False
    """Wagner's force elements (option ``forces``)."""
    springs: bool = True
    motors: bool = True
    servos: bool = True
    schemes: tuple = ()
    """Higher-order step schemes (option ``scheme``) beyond the standard step."""
    point_masses: bool = False
    """Point masses (bodies with mass only, ``point: true``), held by distances, threads and rails."""


# the matrix's rows: (field, label)
ROWS = (("joints", "joint kinds"), ("velocity_joints", "velocity joints"), ("loops", "closed loops"),
        ("kinematic_bodies", "kinematic bodies"), ("contacts", "contacts (impact laws)"),
        ("limits", "joint limits"), ("constraints", "Wagner's constraints"),
        ("force_elements", "Wagner's force elements"), ("springs", "springs"), ("motors", "motors"),
        ("servos", "PID servos"), ("schemes", "higher-order schemes"), ("point_masses", "point masses"))


def capabilities_of(cls) -> Capabilities | None:
    """The declaration of a method class (None: the class steps its own kind of model)."""
    return cls.__dict__.get("capabilities") or getattr(cls, "capabilities", None)


def _methods():
    from impulsim.methods import METHODS      # the registry imports every method; resolved on call
    return METHODS


def _others(field: str, value=None) -> str:
    """Names of the registered methods that honour ``field`` (``value``: a joint kind or a law)."""
    names = []
    for name, cls in sorted(_methods().items()):
        cap = capabilities_of(cls)
        if cap is None:
            continue
        have = getattr(cap, field)
        if (value in have) if value is not None else bool(have):
            names.append(name)
    return ", ".join(names) if names else "none"


# what a model and the options ask for -------------------------------------------------------------------
def _loop_joint(model) -> int:
    """The first joint that closes a loop (static and kinematic bodies count as one ground), or -1."""
    ground = (model.body_static + model.body_kinematic) > 0
    parent = np.arange(model.n_bodies)
    first_ground = int(np.argmax(ground)) if ground.any() else 0
    parent[ground] = first_ground

    def root(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for j in range(model.n_joints):
        if int(model.joint_kind[j]) == JointKind.VELOCITY:
            continue                         # a velocity row does not fix a position: no loop
        ra, rb = root(int(model.joint_body_a[j])), root(int(model.joint_body_b[j]))
        if ra == rb:
            return j
        parent[ra] = rb
    return -1


def _joint(model, j) -> str:
    return f'joint "{model.joint_names[j]}" ({JointKind(int(model.joint_kind[j])).name.lower()})'


def demands(model: Model, options: dict) -> list[tuple[str, str, int, object]]:
    """What the model and options need: (feature, element named, number of elements, variant) each."""
    out = []
    kinds = [int(k) for k in model.joint_kind]
    for kind in sorted(set(kinds) - {int(JointKind.VELOCITY)}):
        j = kinds.index(kind)
        out.append(("joints", _joint(model, j), kinds.count(kind), JointKind(kind).name.lower()))
    if int(JointKind.VELOCITY) in kinds:
        j = kinds.index(int(JointKind.VELOCITY))
        out.append(("velocity_joints", _joint(model, j), kinds.count(int(JointKind.VELOCITY)), None))
    j = _loop_joint(model)
    if j >= 0:
        out.append(("loops", f"{_joint(model, j)} closes a loop", 1, None))
    points = np.nonzero(getattr(model, "body_point", np.zeros(0)))[0]
    if len(points):
        out.append(("point_masses", f'point mass "{model.body_names[points[0]]}"', len(points), None))
    kin = np.nonzero(model.body_kinematic)[0]
    if len(kin):
        out.append(("kinematic_bodies", f'kinematic body "{model.body_names[kin[0]]}"', len(kin), None))
    contacts = options.get("contacts")
    pair = contact_pair(model) if contacts is None else None
    if contacts or pair is not None:
        what = (f'shapes of "{model.body_names[pair[0]]}" and "{model.body_names[pair[1]]}" may collide'
                if pair is not None else "contacts=True")
        law = options.get("restitution")
        law = str(law).lower() if str(law).lower() in IMPACT_LAWS else None   # others: the method names them
        out.append(("contacts", what, int(len(np.unique(model.shape_body))), law))
    if model.n_limits:
        out.append(("limits", f'limit "{model.limit_names[0]}"', int(model.n_limits), None))
    for option, field in (("constraints", "constraints"), ("forces", "force_elements")):
        given = options.get(option) or ()
        if len(given):
            out.append((field, f"option {option}= ({len(given)} given)", len(given), None))
    for field, n, names in (("springs", model.n_springs, model.spring_names),
                            ("motors", model.n_motors, model.motor_names),
                            ("servos", model.n_servos, model.servo_names)):
        if n:
            out.append((field, f'{field[:-1]} "{names[0]}"', int(n), None))
    scheme = options.get("scheme")
    if scheme not in (None, "standard"):
        out.append(("schemes", f"scheme={scheme!r}", 1, scheme))
    return out


def _honours(cap: Capabilities, field: str, variant) -> bool:
    have = getattr(cap, field)
    if field == "joints":
        return variant in have
    if field == "contacts":
        return bool(have) and (variant is None or str(variant).lower() in have)
    if field == "schemes":
        return variant in have
    return bool(have)


def refusals(cls, model, options: dict, ignore=()) -> dict:
    """Check a model and options against ``cls.capabilities``: raise UnsupportedFeatureError on the first
    element the method does not honour, unless its feature is in ``ignore``; return {feature: number of
    elements} of what is ignored."""
    cap = capabilities_of(cls)
    ignore = (ignore,) if isinstance(ignore, str) else tuple(ignore or ())
    for f in ignore:
        if f not in IGNORABLE:
            raise ValueError(f"ignore: {f!r} cannot be ignored (only {', '.join(IGNORABLE)})")
    if cap is None or not isinstance(model, Model):
        return {}
    ignored = {}
    for field, element, count, variant in demands(model, options):
        if _honours(cap, field, variant):
            continue
        if field in ignore:
            ignored[field] = count
            continue
        if field in ("joints", "contacts", "schemes") and variant is not None:
            what = {"joints": f"{variant} joints", "contacts": f"the {variant} impact law",
                    "schemes": f"scheme {variant!r}"}[field]
            who = _others(field, variant)
        else:
            what, who = dict(ROWS)[field], _others(field)
        hint = f"; or pass ignore=({field!r},) to run without them" if field in IGNORABLE else ""
        raise UnsupportedFeatureError(
            f"method {cls.name!r} does not honour {what}: {element} (methods that do: {who}){hint}")
    return ignored


# the matrix ----------------------------------------------------------------------------------------------
def _cell(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "—"
    if isinstance(value, frozenset):
        if value == ALL_JOINTS:
            return "all"
        return ", ".join(sorted(value)) if value else "—"
    return ", ".join(value) if value else "—"


def matrix() -> tuple[list[str], list[list[str]]]:
    """(method names, rows of [label, cell per method]) from the registered classes' declarations."""
    methods = _methods()
    names = sorted(methods)
    rows = []
    for field, label in ROWS:
        cells = []
        for n in names:
            cap = capabilities_of(methods[n])
            cells.append("—" if cap is None else _cell(getattr(cap, field)))
        rows.append([label] + cells)
    return names, rows


def matrix_markdown() -> str:
    """The matrix as a Markdown table (the body of docs/methods_capabilities.md)."""
    names, rows = matrix()
    lines = ["| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def matrix_text() -> str:
    """The matrix as plain text columns (``impulsim methods``)."""
    names, rows = matrix()
    table = [[""] + names] + rows
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table) + "\n"


PAGE_HEAD = """# What each method honours

Every method runs over the same `Model` and `State`, but not every method honours every element a model
can hold. Each method class declares what it honours; this table is generated from those declarations
(`impulsim methods` prints it, `impulsim methods --markdown` writes this table).

A method given a model element or option it does not honour refuses it when it is built, with one
`UnsupportedFeatureError` that names the element and the methods that honour it:

```
method 'moreau_minimal' does not honour contacts (impact laws): shapes of "floor" and "ball" may collide
(methods that do: featherstone, impulse, lagrange, moreau); or pass ignore=('contacts',) to run without them
```

Contacts and joint limits may be dropped on request where a method does not honour them:
`make_method(name, model, ignore=("contacts",))` warns once and then reports the dropped elements in every
step's `StepInfo.ignored` (`{"contacts": 2}`). Nothing else is ever dropped. A method that honours contacts
runs without them when given `contacts=False`.

"""

PAGE_TAIL = """
Rows: *joint kinds* are the model's joint kinds other than velocity joints ("all": ball, distance,
point on line, point on plane, rotation lock, direction, double rotation, hinge, cylindrical, slider,
universal, fixed); *velocity joints* prescribe a relative velocity, also beside other joints between the
same two bodies (the Lagrange method takes such dependent rows with its SVD solvers and refuses them with
the others); *closed loops* are joints whose bodies are already connected through other joints or the
ground; *contacts* lists the impact laws of collisions and resting contacts with Coulomb friction;
*Wagner's constraints* are the path, function-of-time and velocity constraints passed as
`constraints=`; *Wagner's force elements* those passed as `forces=`; *higher-order schemes* the step
schemes selectable with `scheme=`; *point masses* are bodies with mass only (`point: true`), held by
distances, threads and rails, which only the mass-point method steps (it honours nothing with rotation).
Moreau in minimal coordinates steps trees of hinges and sliders on a free or fixed base; its contacts are
the bob's segment contacts against a static mesh, not shape contacts.
"""


def page() -> str:
    """The whole of docs/methods_capabilities.md."""
    return PAGE_HEAD + matrix_markdown() + PAGE_TAIL
