"""The fuzz harness for input loaders: hostile text in, a clean one-line error (or a loaded input) out.

A loader is registered with :func:`register` as a name, a function ``load(text, name)`` that reads the
text (and may do a first step with it), the exception classes that count as clean errors, and seed texts
the mutations start from. The scene loader is registered below; another loader (e.g. a track file) adds
itself with one call to :func:`register`, and the parametrized tests and the long runner pick it up.

Each case ends in one of four outcomes:

* ``clean``: loaded, or refused with a registered error whose message is one line ``file:line: ...``
  (or ``file: ...`` for problems of the whole file), or a first step refused with one line (a loader's
  ``step_errors``: the input is read, the simulation declines it, e.g. a step too large for the model);
* ``traceback``: any other exception, or a refusal whose message is not one such line;
* ``hang``: the case took longer than CASE_SECONDS (an alarm interrupts it);
* ``crash``: the process died (only the long runner, which runs cases in a child process, can see these).
"""
from __future__ import annotations

import re
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from hypothesis import strategies as st

CASE_SECONDS = 20.0
"""Longest a case may take, first step included (the compiled kernels are cached by then)."""
ONE_LINE = re.compile(r"^[^\n:]+(:\d+)?: [^\n]+$")


@dataclass
class Loader:
    name: str
    load: Callable[[str, str], object]
    clean_errors: tuple
    seeds: list = field(default_factory=list)
    file_name: str = "fuzz.yaml"
    step_errors: tuple = ()


LOADERS: dict[str, Loader] = {}


def register(loader: Loader) -> None:
    LOADERS[loader.name] = loader


class Hang(Exception):
    pass


def warm_up(loader: Loader) -> None:
    """Load every seed once, untimed: the first load of a kind of scene reads the compiled kernels from the
    cache (seconds), which is not the case's own time."""
    for text in loader.seeds:
        try:
            loader.load(text, loader.file_name)
        except Exception:  # noqa: BLE001 - only warming up
            pass


def classify(loader: Loader, text: str) -> tuple[str, str]:
    """(outcome, detail) of loading ``text`` with ``loader`` in this process."""
    def alarm(signum, frame):
        raise Hang()
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        loader.load(text, loader.file_name)
        return "clean", "loaded"
    except Hang:
        return "hang", f"longer than {CASE_SECONDS} s"
    except loader.clean_errors as exc:
        msg = str(exc)
        if ONE_LINE.match(msg) and (msg.startswith(loader.file_name) or isinstance(exc, loader.step_errors)):
            return "clean", msg
        return "traceback", f"not one line 'file:line: ...': {msg!r}"
    except RecursionError:
        return "traceback", "RecursionError"
    except Exception as exc:  # noqa: BLE001 - every other exception is a finding
        return "traceback", f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ------------------------------------------------------------------------------------------ mutations

HOSTILE_NUMBERS = ["0", "-0", "1e-300", "1e300", "-1e300", "1e200", "1e-200", "5e-324", "1.7976931348623157e308",
                   ".nan", ".inf", "-.inf", "1" * 5000, "0x7fffffffffffffff", "-1", "1e13", "1e-7", "1e7", "3",
                   "0.5", "1_000", "'1'", "~", "[]", "{}", "true", "NaN"]
HOSTILE_TEXT = ["momentum", "angular_momentum", "world", "", "\x00", "\x07", "é", "a" * 300, "*ref", "&ref x",
                "<<: *ref", "!!python/object:os.system", "'", "\"", "{", "[", "- ", ": ", "\t", "\ufeff"]
NUMBER = re.compile(r"(?<![\w.])-?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w.])")


@st.composite
def mutated(draw, seeds: list[str]) -> str:
    """A seed text with a few hostile edits: numbers replaced, words replaced, lines dropped, duplicated or
    cut, characters inserted."""
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["number", "number", "word", "drop", "dup", "cut", "insert", "nest"]))
        lines = text.split("\n")
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if op == "number":
            spans = [m.span() for m in NUMBER.finditer(text)]
            if spans:
                a, b = draw(st.sampled_from(spans))
                text = text[:a] + draw(st.sampled_from(HOSTILE_NUMBERS)) + text[b:]
            continue
        if op == "word":
            words = [m.span() for m in re.finditer(r"[A-Za-z_]+", text)]
            if words:
                a, b = draw(st.sampled_from(words))
                text = text[:a] + draw(st.sampled_from(HOSTILE_TEXT)) + text[b:]
            continue
        if op == "drop" and len(lines) > 1:
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i] * draw(st.integers(1, 3)))
        elif op == "cut":
            j = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:j]
        elif op == "insert":
            j = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:j] + draw(st.text(min_size=1, max_size=4)) + lines[i][j:]
        elif op == "nest":
            depth = draw(st.integers(1, 200))
            lines.insert(i, "x: " + "[" * depth + "]" * depth)
        text = "\n".join(lines)
    return text


# ------------------------------------------------------------------------------------------ the scene loader

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load_scene(text: str, name: str):
    """Read and compile the scene, make the recording's columns, and take one step."""
    from impulsim.io import scene_from_string
    from impulsim.io.recording import Recorder
    scene = scene_from_string(text, name)
    Recorder(scene.model)
    sim = scene.simulation()
    sim.step()
    return scene


def _scene_errors():
    from impulsim.errors import ImpulsimError
    return (ImpulsimError,)


def _step_errors():
    from impulsim.errors import SimulationError
    return (SimulationError,)


def _scene_seeds() -> list[str]:
    return [(EXAMPLES / f).read_text() for f in ("falling_boxes.yaml", "double_pendulum.yaml", "servo_arm.yaml",
                                                  "spring_oscillator.yaml", "slider_crank.yaml", "pendulum.yaml")]


register(Loader("scene", _load_scene, _scene_errors(), _scene_seeds(), step_errors=_step_errors()))
