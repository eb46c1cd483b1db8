"""Time from an edit to the next step of a running simulation (compile the document, carry the state,
build the method, take the step): Bender's 255-body tree and 1000 cubes on the ground.

    python benchmarks/edit_latency.py [--repeat 5] [--no-viewer]

Prints the median over the repeats for each edit: a mass change (the model changes, every body keeps its
motion), a removal (a body and its joints go), an added body and an added joint. Then the same edits sent
to the live view's simulation thread while it plays in real time (no browser needed): how long the view
stands still, from the edit command to the first new step published after it (this includes waiting for
the batch of steps under way, at most one step plus 50 ms), with the edit's own share (``edit_seconds``).
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
        try:
            for _ in range(repeat):
                times.append(timed(live, edit))
                undo(live)
        except Exception as exc:                 # the step after the edit failed: say so, go on
            print(f"  {label:<28s} FAILED: {str(exc).splitlines()[0]}")
            undo(live)
            continue
        print(f"  {label:<28s} edit to next step {1e3 * statistics.median(times):8.1f} ms (median of {repeat})")


def joint_between(live: LiveScene, a: str, b: str) -> dict:
    """A ball joint between two bodies at the midpoint of their centres in the document (a loop in a
    tree, a link between two cubes)."""
    pa, pb = (live.doc.get(f"bodies.{n}.position") for n in (a, b))
    return {"name": "extra_joint", "type": "ball", "bodies": [a, b],
            "anchor": [0.5 * (float(x) + float(y)) for x, y in zip(pa, pb)]}


def viewer_pause(name: str, text: str, edits: dict, repeat: int) -> None:
    """The same edits through the live view's simulation thread while it plays in real time."""
    from impulsim.viewer.edit_panel import live_simulations
    from impulsim.viewer.engine import SimulationThread
    live = LiveScene(SceneDocument.from_text(text, f"{name}.yaml"))
    engine = SimulationThread(live_simulations(live), live.sim.h, live.scene.settings.method)
    engine.live = live
    engine.start()
    try:
        engine.send("step", 3, wait=True, timeout=600)
        engine.send("play", wait=True)
        time.sleep(0.5)
        print(f"{name} in the live view: {engine.snapshot().steps_per_second:.0f} steps/s while playing")
        for label, (edit, undo) in edits.items():
            pauses, own = [], []
            for _ in range(repeat):
                engine.error = None
                start = time.perf_counter()
                engine.send("edit", edit, wait=True, timeout=600)
                step = engine.sim.state.step_count
                while engine.snapshot().step <= step and time.perf_counter() - start < 60:
                    time.sleep(0.0005)
                pauses.append(time.perf_counter() - start)
                own.append(live.edit_seconds)
                failed = engine.error
                engine.send("edit", undo, wait=True, timeout=600)
                if failed:
                    break
                engine.send("play", wait=True)
                time.sleep(0.2)
            if failed:
                print(f"  {label:<28s} FAILED: {failed}")
                engine.error = None
                engine.send("play", wait=True)
                continue
            print(f"  {label:<28s} view stands still {1e3 * statistics.median(pauses):8.1f} ms, "
                  f"the edit itself {1e3 * statistics.median(own):8.1f} ms (medians of {repeat})")
    finally:
        engine.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-viewer", action="store_true", help="skip the live view's pauses")
    args = parser.parse_args()
    undo = lambda s: s.undo()
    tree_edits = {
        "mass of a leaf": (lambda s: s.set("bodies.d7_5.mass", 0.5), undo),
        "remove a leaf": (lambda s: s.remove("bodies", "d7_5"), undo),
        "add a body": (lambda s: s.add("bodies", {"name": "extra", "shapes": [{"sphere": {"radius": 0.1}}],
                                                  "mass": 1.0, "position": [3, 0, 0]}), undo),
        "add a joint (a loop)": (lambda s: s.add("joints", joint_between(s, "d7_4", "d7_5")), undo)}
    cube_edits = {
        "mass of a cube": (lambda s: s.set("bodies.c17.mass", 2.0), undo),
        "remove a cube": (lambda s: s.remove("bodies", "c17"), undo),
        "add a cube": (lambda s: s.add("bodies", {"name": "extra", "shapes": [{"box": {"size": [0.2, 0.2, 0.2]}}],
                                                  "mass": 1.0, "position": [0, 0, 2]}), undo),
        "add a joint": (lambda s: s.add("joints", joint_between(s, "c17", "c18")), undo)}
    start = time.perf_counter()
    measure("tree 255", tree_text(8), tree_edits, args.repeat)
    print(f"  (tree: built, warmed up and measured in {time.perf_counter() - start:.1f} s)")
    start = time.perf_counter()
    measure("1000 cubes", cubes_text(1000), cube_edits, args.repeat)
    print(f"  (cubes: built, warmed up and measured in {time.perf_counter() - start:.1f} s)")
    if not args.no_viewer:
        viewer_pause("tree 255", tree_text(8), tree_edits, args.repeat)
        viewer_pause("1000 cubes", cubes_text(1000), cube_edits, args.repeat)


if __name__ == "__main__":
    main()
