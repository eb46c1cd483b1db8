"""The package's shape: imports point down the layers of docs/architecture.md, and that page names every
package. A new package must be placed on a tier here and described on the page."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "impulsim"
PAGE = ROOT / "docs" / "architecture.md"

# the tiers of docs/architecture.md; "impulsim" is the facade, src/impulsim/__init__.py
TIERS = {"kernel_cache": 0, "kernel": -1, "compiling": 0, "errors": 0, "limits": 0, "progress": 0, "math": 0, "geometry": 1, "forked_compile": 1, "model": 2, "collision": 2, "dynamics": 3, "contact": 4,
         "methods": 5, "simulation": 6, "impulsim": 7, "experiments": 8, "io": 8, "editing": 9, "bench": 10,
         "viewer": 10, "sweep": 10, "warmup": 10, "apps": 11, "cli_extras": 12, "cli": 13, "__main__": 14}
# upward imports the page declares: ModelBuilder.from_urdf / from_mjcf are thin lazy entry points into io
ALLOWED_UPWARD = {("model/builder.py", "impulsim.io.urdf"), ("model/builder.py", "impulsim.io.mjcf")}
# imports between two methods' packages that the page declares
ALLOWED_BETWEEN_METHODS = {("moreau", "lagrange"), ("moreau_minimal", "moreau"), ("moreau_minimal", "featherstone")}


def _unit(parts: tuple) -> str:
    """The top-level unit of a module path inside impulsim ("impulsim" for the facade)."""
    return "impulsim" if parts[0] in ("__init__", "__init__.py") else parts[0].removesuffix(".py")


def _imports(path: Path):
    """(line, imported module) of every absolute import of an impulsim module in the file."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "impulsim")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] == "impulsim":
            if node.module == "impulsim":   # "from impulsim import io" names a package, not the facade
                yield from ((node.lineno, "impulsim." + a.name if a.name in TIERS else "impulsim")
                            for a in node.names)
            else:
                yield node.lineno, node.module


def _modules():
    return sorted(p for p in SRC.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_unit_has_a_tier():
    units = {_unit(p.relative_to(SRC).parts) for p in _modules()}
    assert units - set(TIERS) == set(), "place new packages on a tier here and in docs/architecture.md"


def test_imports_point_down_the_layers():
    upward = []
    for path in _modules():
        rel = path.relative_to(SRC).parts
        unit = _unit(rel)
        for line, module in _imports(path):
            target = _unit(tuple(module.split(".")[1:]) or ("__init__",))
            if target == unit or ("/".join(rel), module) in ALLOWED_UPWARD:
                continue
            if TIERS[target] >= TIERS[unit]:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {unit} (tier {TIERS[unit]}) imports "
                              f"{module} (tier {TIERS[target]})")
    assert upward == []


def test_methods_do_not_import_each_other():
    crossing = []
    for path in (SRC / "methods").rglob("*.py"):
        rel = path.relative_to(SRC / "methods").parts
        if len(rel) < 2:
            continue
        own = rel[0]
        for line, module in _imports(path):
            parts = module.split(".")
            if len(parts) > 3 and parts[1] == "methods" and parts[2] not in (own, "base") \
                    and (own, parts[2]) not in ALLOWED_BETWEEN_METHODS:
                crossing.append(f"{path.relative_to(ROOT)}:{line}: {own} imports {module}")
    assert crossing == []


def _packages():
    """Every package directory below impulsim, as a path relative to it ("methods/impulse")."""
    return sorted(str(p.parent.relative_to(SRC)) for p in SRC.rglob("__init__.py") if p.parent != SRC)


@pytest.mark.parametrize("package", _packages())
def test_the_architecture_page_names_the_package(package):
    text = PAGE.read_text()
    name = package.split("/")[-1]
    assert f"{name}/" in text, f"docs/architecture.md does not describe {package}/"


MAX_KERNEL_ARGS = 19
"""Most positional arguments a compiled kernel may take: past that, arrays go in the groups of the package's
groups.py (docs/architecture.md, "grouped arguments"), so that call sites read as a few named groups."""


def _kernels():
    """(path:line, name, positional arguments) of every function decorated with a Numba jit."""
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.FunctionDef) and any("jit" in ast.unparse(d) for d in node.decorator_list):
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node.name, len(node.args.args)


def test_kernels_take_their_arrays_in_groups():
    kernels = list(_kernels())
    assert len(kernels) > 300                 # the walk finds the kernels at all
    wide = [f"{where}: {name} takes {n} arguments" for where, name, n in kernels if n > MAX_KERNEL_ARGS]
    assert not wide, "group these kernels' arguments:\n" + "\n".join(wide)

