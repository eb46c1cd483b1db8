"""Build the API reference (HTML, from the docstrings) with pdoc:  python docs/build_api.py [OUT]

Writes OUT (default docs/api/, not committed) with one page per module; open OUT/index.html.
pdoc comes with the test extra (pip install -e '.[test]'). Any warning pdoc gives (a docstring or an
annotation it cannot read, a module that fails to import) is an error: the build stops and names it.
"""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

SKIP = ("impulsim.bench.", "impulsim.collision.benchmark", "impulsim.methods.masspoint.benchmark",
        "impulsim.methods.lagrange.benchmark")
"""Modules left out: the benchmarks' internals (``impulsim bench`` documents them by running)."""


def modules() -> list[str]:
    """Every module of the package (packages list their public names in ``__all__``, which hides their
    submodules from pdoc's own walk, so each is named here), without :data:`SKIP`."""
    import pkgutil

    import impulsim
    from pdoc.extract import walk_specs
    names = ["impulsim"] + [m.name for m in pkgutil.walk_packages(impulsim.__path__, "impulsim.")]
    specs, covered = [], set()
    for name in names:
        if name in covered or name.startswith(SKIP) or name.endswith("__main__"):
            continue
        specs.append(name)
        covered |= set(walk_specs([name]))        # a package without __all__ brings its submodules
    return specs


def _namedtuple_globals() -> None:
    """Let pdoc read the annotations of NamedTuple constructors.

    ``typing.NamedTuple`` builds ``__new__`` with the module name ``namedtuple_<Class>``, a module that
    does not exist, so pdoc evaluates its annotations (``np.ndarray``) in an empty namespace. Give each
    such constructor its class's module (in this build process only)."""
    import inspect
    import sys
    for name, module in list(sys.modules.items()):
        if not name.startswith("impulsim"):
            continue
        for cls in list(vars(module).values()):
            new = getattr(cls, "__new__", None) if inspect.isclass(cls) else None
            if hasattr(cls, "_fields") and str(getattr(new, "__module__", "")).startswith("namedtuple_"):
                new.__module__ = cls.__module__


def build(out: Path) -> list[Path]:
    """Render the reference into ``out``; returns the pages written. Raises on any pdoc warning."""
    import pdoc
    import pdoc.render
    pdoc.render.configure(docformat="restructuredtext", show_source=False,
                          footer_text="impulsim API reference")
    specs = modules()
    for name in specs:
        __import__(name)
    _namedtuple_globals()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pdoc.pdoc(*specs, output_directory=out)
    return sorted(out.rglob("*.html"))


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent / "api"
    pages = build(target)
    print(f"wrote {len(pages)} pages to {target} (open {target / 'index.html'})")
