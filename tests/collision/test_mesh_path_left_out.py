"""A model without triangle meshes compiles the narrow phase without its mesh path.

``narrow_phase`` and ``collide`` take ``meshes`` (None: the model has no mesh); Numba removes the branches on
``meshes is None`` when it compiles for a None argument. These tests check that removal on the kernel's own
code (the front end's IR after Numba's branch pruning, nothing compiled) and that the detector passes None
exactly when the model has no mesh; test_contact_region checks the mesh contacts themselves.
"""
import inspect

import numpy as np
from numba.core import compiler, ir, types
from numba.core.analysis import dead_branch_prune

import impulsim as ims
from impulsim.collision import Detector, pairs
from impulsim.geometry import HalfSpace, TriangleMesh


def _calls_of(kernel, callee, meshes_type):
    """How many references to ``callee`` the kernel's IR keeps after pruning for ``meshes`` of this type."""
    f = kernel.py_func
    names = list(inspect.signature(f).parameters)
    func_ir = compiler.run_frontend(f)
    dead_branch_prune(func_ir, [meshes_type if n == "meshes" else types.int64 for n in names])
    return sum(1 for blk in func_ir.blocks.values() for st in blk.body
               if isinstance(st, ir.Assign) and isinstance(st.value, ir.Global) and st.value.name == callee)


def test_the_mesh_path_is_pruned_only_without_meshes():
    assert _calls_of(pairs.collide, "_collide_mesh", types.none) == 0
    assert _calls_of(pairs.collide, "_collide_mesh", types.boolean) == 1
    # the convex paths stay in either way
    assert _calls_of(pairs.collide, "narrow", types.none) == 1


def _model(with_mesh):
    b = ims.ModelBuilder("floor", gravity=(0, 0, 0))
    if with_mesh:
        verts = np.array([[-5, -5, 0], [5, -5, 0], [5, 5, 0], [-5, 5, 0]], float)
        b.add_body("floor", shapes=[TriangleMesh(vertices=verts, triangles=np.array([[0, 1, 2], [0, 2, 3]]))],
                   static=True)
    else:
        b.add_body("floor", shapes=[HalfSpace()], static=True)
    b.add_body("box", shapes=[ims.Box(size=(1, 1, 1))], position=(0.2, 0.1, 0.5))
    return b.build()[0]


def test_the_detector_passes_none_exactly_without_meshes():
    assert Detector(_model(False))._meshes is None
    assert Detector(_model(True))._meshes is True
