"""The impulse kernels compiled without reference counts (methods/impulse/jit.py): Numba passes the option on
to every function they call, so none of those may hand back an array (a view returned without its count
would be freed by a counting caller). Checked in a fresh process with an empty cache, where the compiled run
loop is the first to compile, so every function it reaches is compiled its way."""
import os
import subprocess
import sys

import pytest

from impulsim.methods.impulse.jit import NO_REFCOUNT

SCRIPT = r"""
import sys
import numba
from numba.core import types
import impulsim as ims
from impulsim.methods.impulse import run_path
from tests.impulse.random_models import random_model
from tests.impulse.test_limit_run import limited_model
from impulsim.experiments import bender as scenes

from impulsim.io import scene_from_string
from impulsim.methods.impulse import contact_run
from tests.contact.test_contact_run import limited_pile

run_path.COMPILE_PAYS_STEPS = 0
contact_run.COMPILE_PAYS_STEPS = 0
sim = scene_from_string(limited_pile(21)).simulation(method="impulse")
sim.method.run(sim.state, sim.h, 3)      # the contact loop with joints and limits: it compiles first


def balance(name, advance):
    # Numba's own counts of the arrays it allocated and freed over more steps (NUMBA_NRT_STATS=1): an uncounted
    # kernel that allocated would never free
    from numba.core.runtime import rtsys
    before = rtsys.get_allocation_stats()
    advance()
    after = rtsys.get_allocation_stats()
    print("balance", name.replace(" ", "_"), after.alloc - before.alloc, after.free - before.free)


balance("contact loop", lambda: sim.method.run(sim.state, sim.h, 60))
elements = dict(springs=2, motors=1, servos=4, loads=1)
cases = [(lambda: random_model(21, 6, kinds=("hinge", "slider", "cylindrical"), elements=elements), dict(solver="lgs")),
         (lambda: random_model(3, 12, loops=1), dict(solver="lgs", loops="cut")),
         (lambda: random_model(14, 6, kinds=("ball", "hinge")), dict(solver="lgs", integrator="rk45")),
         (lambda: scenes.chain(5), dict(solver="lgs", integrator="euler")),
         (lambda: random_model(13, 8), dict(solver="iterative")),
         (lambda: limited_model(5, 6), dict(solver="lgs"))]           # the limits' loop, limits solved together
for build, options in cases:
    model, state = build()
    start = state.copy()
    method = ims.make_method("impulse", model, contacts=False, **options)
    method.run(state, 0.005, 3)          # the compiled loop first (where the model takes it; the cut loops'
                                         # staged step otherwise): it compiles what it reaches
    method.step(state, 0.005)
    balance(f"{options}", lambda: method.run(start, 0.005, 3))   # the steps that passed above, again

def holds_array(t):
    return isinstance(t, types.Array) or (isinstance(t, types.BaseTuple) and any(holds_array(x) for x in t.types))

for name, module in list(sys.modules.items()):
    if not name.startswith("impulsim"):
        continue
    for attr, f in vars(module).items():
        if isinstance(f, numba.core.registry.CPUDispatcher) and f.__module__ == name:
            # the versions Python calls and, where kernels call it, the internal copy (impulsim.kernel)
            for d in (f, f.__dict__.get("_internal")):
                for cres in (d.overloads.values() if d is not None else ()):
                    if not cres.target_context.enable_nrt:
                        print("uncounted", name, attr, holds_array(cres.signature.return_type))
"""


@pytest.mark.slow
@pytest.mark.skipif(not NO_REFCOUNT, reason="this Numba compiles every kernel with reference counts")
def test_kernels_without_reference_counts_return_no_arrays(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # all compiled in this process: a version loaded from the cache (one a second process compiled) reads as
    # uncounted whatever it was compiled as (Numba rebuilds it in the dispatcher's base context)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), IMPULSIM_PARALLEL_COMPILE="0",
               NUMBA_NRT_STATS="1",
               PYTHONPATH=os.pathsep.join([os.path.join(root, "src"), root, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=800,
                         cwd=root)
    assert out.returncode == 0, out.stderr[-3000:]
    # every loop frees as many arrays as it allocates (the contact loop's sorts, the rows' update)
    balances = [line.split() for line in out.stdout.splitlines() if line.startswith("balance")]
    assert len(balances) == 7 and all(b[2] == b[3] for b in balances), balances
    assert int(balances[0][2]) > 0          # the contact loop's roll-over allocates: the counts are kept
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("uncounted")]
    names = {r[2] for r in rows}
    # the loops and the step's kernels are among them (else the option had no effect) ...
    assert {"lgs_run", "lgs_corrections", "correct_positions_lgs", "factorize", "assemble", "limits_run",
            "limits_step", "classify_limits", "predicted_distance", "contact_run", "_contact_step", "iterative_run",
            "correct_velocities_of"} <= names
    # ... and none of the functions compiled their way returns an array, but helpers that hand uncounted kernels
    # of their own module views of those kernels' arrays: the contact loop's three (contact_run's docstring)
    # and the contact stage's level start (the stage's kernels are all uncounted: collision.vec.KERNEL)
    helpers = {("impulsim.methods.impulse.contact_run", name) for name in ("_phase", "_levels", "_shock")}
    helpers.add(("impulsim.contact.stage", "_begin_level"))
    assert [r for r in rows if r[3] == "True" and (r[1], r[2]) not in helpers] == []
    # the loads of springs, motors and servos allocate: the loops call them compiled with the counts
    assert not names & {"element_loads", "add_springs", "add_motors_and_servos", "to_accelerations"}
    # as do the rows of primitives corrected one by one (their 3×3 scratch), which the loops call through the
    # uncounted update of the rows
    assert "update_rows" in names and "compute_rows_of" not in names
