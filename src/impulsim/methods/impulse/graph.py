"""The connection graph of a model: independent chains, spanning trees and the joints that close loops.

Bender 3.3.2.3: nodes are bodies, edges are joints. A traversal from one node marks the bodies it reaches;
an edge that leads to a body already marked closes a loop and goes into the cut list; what one traversal
reaches is one chain, and bodies left unmarked start further, independent chains.

All bodies of infinite mass (static and kinematic) are merged into one ground node: they are never moved by
impulses, so they couple nothing, but a path through the ground still closes a loop (a four-bar linkage
whose fixed link is the world). Chains are therefore the connected components of the dynamic bodies.

The traversal is breadth-first and starts at the ground when the chain is attached to it, so every body
gets one parent edge; children always come after their parent. Eliminating the parent edges in the reverse
order (leaves first) is the no-fill order of a tree (Baraff 1996): when an edge is eliminated, all the
constraints it still touches share its parent body and are already coupled with each other.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from impulsim.errors import ModelError

GROUND = -1
"""Node id of the merged infinite-mass bodies."""


@dataclass
class Chain:
    """One independent chain: dynamic bodies coupled by joints, with its spanning tree and loop cuts."""
    bodies: list[int]
    """Dynamic bodies, in traversal order (every body after its parent)."""
    tree_joints: list[int]
    """Parent-edge joints, in elimination order (leaves first)."""
    cut_joints: list[int] = field(default_factory=list)
    """Joints that close a loop (through other bodies or through the ground)."""

    @property
    def joints(self) -> list[int]:
        return self.tree_joints + self.cut_joints


def _endpoints(model):
    """(node_a, node_b) of every joint, with infinite-mass bodies mapped to GROUND."""
    ground = model.body_inv_mass == 0.0
    a = np.where(ground[model.joint_body_a], GROUND, model.joint_body_a)
    b = np.where(ground[model.joint_body_b], GROUND, model.joint_body_b)
    return a.astype(int), b.astype(int)


def _check_joints(model):
    for j in range(model.n_joints):
        if model.joint_body_a[j] == model.joint_body_b[j]:
            k = int(model.joint_body_a[j])
            raise ModelError(f'joints[{j}] "{model.joint_names[j]}": connects body '
                             f'"{model.body_names[k]}" to itself')


def _incidence(model, ends_a, ends_b):
    """node -> list of (joint, other node), joints in index order; joints between ground nodes skipped."""
    adj: dict[int, list[tuple[int, int]]] = {GROUND: []}
    for k in np.nonzero(model.body_inv_mass > 0.0)[0]:
        adj[int(k)] = []
    for j in range(model.n_joints):
        a, b = int(ends_a[j]), int(ends_b[j])
        if a == GROUND and b == GROUND:
            continue
        adj[a].append((j, b))
        adj[b].append((j, a))
    return adj


def _component(adj, start) -> set[int]:
    """Dynamic bodies reachable from ``start`` without passing through the ground."""
    seen = {start}
    stack = [start]
    while stack:
        u = stack.pop()
        for _, v in adj[u]:
            if v != GROUND and v not in seen:
                seen.add(v)
                stack.append(v)
    return seen


def _spanning_tree(adj, bodies: set[int]) -> Chain:
    """Breadth-first traversal of one chain from the ground (or its lowest body): tree and cut joints."""
    grounded = any(v == GROUND for u in bodies for _, v in adj[u])
    start = GROUND if grounded else min(bodies)
    marked = {start}
    used: set[int] = set()
    order: list[int] = []
    parent_edge: dict[int, int] = {}
    cuts: list[int] = []
    queue = deque([start])
    while queue:
        u = queue.popleft()
        if u != GROUND:
            order.append(u)
        for j, v in adj[u]:
            if j in used or (u == GROUND and v not in bodies):
                continue
            used.add(j)
            if v in marked:
                cuts.append(j)          # reaches a marked node: this joint closes a loop
                continue
            marked.add(v)
            parent_edge[v] = j
            queue.append(v)
    tree = [parent_edge[u] for u in reversed(order) if u in parent_edge]
    return Chain(bodies=order, tree_joints=tree, cut_joints=sorted(cuts))


def find_chains(model) -> list[Chain]:
    """The independent chains of ``model``, each with its spanning tree and cut joints.

    Raises ModelError for a joint that connects a body to itself.
    """
    _check_joints(model)
    ends_a, ends_b = _endpoints(model)
    adj = _incidence(model, ends_a, ends_b)
    chains = []
    left = sorted(k for k in adj if k != GROUND and adj[k])
    done: set[int] = set()
    for k in left:
        if k in done:
            continue
        bodies = _component(adj, k)
        done |= bodies
        chains.append(_spanning_tree(adj, bodies))
    return chains


def joint_prims(model, joints) -> list[int]:
    """Primitive indices of the given joints, in order."""
    out = []
    for j in joints:
        out.extend(range(int(model.joint_prim_start[j]), int(model.joint_prim_start[j + 1])))
    return out
