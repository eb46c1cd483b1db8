"""Time from an edit to the next step of a running simulation (compile the document, carry the state,
build the method, take the step): Bender's 255-body tree and 1000 cubes on the ground.

    python benchmarks/edit_latency.py [--repeat 5]

Prints the median over the repeats for each edit: a mass change (the model changes, every body keeps its
motion), a removal (a body and its joints go) and an added body.
"""
from __future__ import annotations

import argparse
import statistics
import time

import yaml

from impulsim.editing import LiveScene, SceneDocument
from impulsim.experiments.bender import TREE_DENSITY, TREE_SECTION, quat_z_to, tree_bodies


def tree_text(levels: int = 8) -> str:
    bodies, joints = [], []
    for name, parent, _, top, d, length in tree_bodies(levels):
        bodies.append({"name": name, "shapes": [{"box": {"size": [TREE_SECTION, TREE_SECTION, float(length)]}}],
                       "density": TREE_DENSITY, "position": [float(x) for x in top + 0.5 * length * d],
                       "orientation": [float(x) for x in quat_z_to(d)]})
        joints.append({"name": f"j_{name}", "type": "ball", "bodies": [parent, name],
                       "anchor": [float(x) for x in top]})
    return yaml.safe_dump({"settings": {"h": 1 / 30, "eps_d": 1e-6, "eps_v": 1e-6}, "bodies": bodies,
                           "joints": joints}, sort_keys=False)


def cubes_text(n: int = 1000) -> str:
    side = int(round(n ** 0.5))
    bodies = [{"name": "ground", "shapes": [{"half_space": {}}], "static": True}]
    bodies += [{"name": f"c{i}", "shapes": [{"box": {"size": [0.2, 0.2, 0.2]}}], "mass": 1.0,
                "position": [0.3 * (i % side), 0.3 * (i // side), 0.1]} for i in range(n)]
    return yaml.safe_dump({"settings": {"h": 0.005}, "bodies": bodies}, sort_keys=False)


def timed(live: LiveScene, edit) -> float:
    start = time.perf_counter()
    edit(live)
    live.step()
    return time.perf_counter() - start


def measure(name: str, text: str, edits: dict, repeat: int) -> None:
    live = LiveScene(SceneDocument.from_text(text, f"{name}.yaml"))
    live.run(3 * live.sim.h)                      # compiled kernels, a running state
    step = statistics.median(timed(live, lambda s: None) for _ in range(repeat))
    print(f"{name}: {len(live.model.body_names) - 1} bodies, a step alone {1e3 * step:.1f} ms")
    for label, (edit, undo) in edits.items():
        times = []
        for _ in range(repeat):
            times.append(timed(live, edit))
            undo(live)
        print(f"  {label:<28s} edit to next step {1e3 * statistics.median(times):8.1f} ms (median of {repeat})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    undo = lambda s: s.undo()
    measure("tree 255", tree_text(8), {
        "mass of a leaf": (lambda s: s.set("bodies.d7_5.mass", 0.5), undo),
        "remove a leaf": (lambda s: s.remove("bodies", "d7_5"), undo),
        "add a body": (lambda s: s.add("bodies", {"name": "extra", "shapes": [{"sphere": {"radius": 0.1}}],
                                                  "mass": 1.0, "position": [3, 0, 0]}), undo)}, args.repeat)
    measure("1000 cubes", cubes_text(1000), {
        "mass of a cube": (lambda s: s.set("bodies.c17.mass", 2.0), undo),
        "remove a cube": (lambda s: s.remove("bodies", "c17"), undo),
        "add a cube": (lambda s: s.add("bodies", {"name": "extra", "shapes": [{"box": {"size": [0.2, 0.2, 0.2]}}],
                                                  "mass": 1.0, "position": [0, 0, 2]}), undo)}, args.repeat)


if __name__ == "__main__":
    main()
