"""What each method is for, in one line, and the methods a scene file may name.

Used by the command line (``--method`` help, errors) and the viewer's method chooser;
docs/choose_a_method.md has the measured accuracy and cost behind these lines.
"""
from __future__ import annotations

SUMMARIES = {
    "impulse": "impulse-based (Bender): joints kept to eps_d at every step by impulses, no drift; "
               "contacts, friction, motors, servos, springs",
    "lagrange": "Lagrange multipliers (Wagner): accelerations from a linear system, Baumgarte "
                "stabilization; dense or linear-time solve",
    "featherstone": "reduced coordinates (Featherstone, Holck): joints exact by construction; trees of "
                    "revolute, prismatic and spherical joints",
    "moreau": "Moreau midpoint time-stepping (Rempfler): nonsmooth contacts and friction as prox "
              "functions, robust with large steps",
    "masspoint": "mass points held by distance links, threads and rails (Schmitt & Thuering); scene "
                 "files of point masses (point: true)",
    "moreau_minimal": "Moreau time-stepping in minimal coordinates (Rempfler): trees of revolute and "
                      "prismatic joints on a free base, segment contacts on a static mesh (the bob)",
}
"""One line per method (``impulsim run --help`` shows them)."""


def scene_methods() -> tuple[str, ...]:
    """The registered methods a scene file may name, sorted (each refuses the elements it cannot honour
    when it is built)."""
    from impulsim.methods import METHODS
    return tuple(sorted(METHODS))


def methods_for(model) -> tuple[str, ...]:
    """The registered methods that can run ``model`` as it is (none of its elements refused), sorted."""
    from impulsim.errors import UnsupportedFeatureError
    from impulsim.methods import METHODS
    from impulsim.methods.capabilities import refusals
    able = []
    for name in sorted(METHODS):
        try:
            refusals(METHODS[name], model, {})
        except UnsupportedFeatureError:
            continue
        able.append(name)
    return tuple(able)


def check_scene_method(name: str, flag: str = "--method") -> str:
    """``name`` if it can run a scene file; otherwise ValueError saying which can."""
    choices = ", ".join(scene_methods())
    if name not in scene_methods():
        raise ValueError(f"{flag}: unknown method {name!r} (available: {choices})")
    return name


def method_help() -> str:
    """``--method``'s help: the methods that run scene files."""
    return f"solver method: {', '.join(scene_methods())} (default: the scene's; see 'methods' below)"


def method_epilog() -> str:
    """The methods with their one-line summaries, one per line (the end of ``--help``)."""
    names = scene_methods()
    width = max(map(len, names))
    import textwrap
    lines = [textwrap.fill(SUMMARIES.get(name, ""), 96, initial_indent=f"  {name:<{width}}  ",
                           subsequent_indent=" " * (width + 4)) for name in names]
    return "methods:\n" + "\n".join(lines)
