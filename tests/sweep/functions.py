"""Functions of a case's values for the function-sweep tests: importable by name, so Dask workers and a
separate process run the same code."""
import math
import time

G = 9.81


def projectile(values: dict) -> dict:
    """Range [m] and flight time [s] of a projectile launched from the ground at ``speed`` [m/s] and
    ``angle_deg`` above the horizontal, in vacuum; a negative speed raises (a failing case)."""
    v, a = values["speed"], math.radians(values["angle_deg"])
    if v < 0:
        raise ValueError(f"speed {v} m/s is negative\nsecond line that the row must not carry")
    time.sleep(values.get("delay", 0.0))
    return {"range": v * v * math.sin(2 * a) / G, "flight_time": 2 * v * math.sin(a) / G,
            "apex": "high" if a > math.radians(45) else "low"}


def not_a_dict(values: dict):
    return [values["speed"]]


def counted_square(values: dict) -> dict:
    """x² of the case's ``x``. Its warm-up (below) appends a line to the file named by the environment
    variable SWEEP_WARM_UP_LOG, so a test can count the calls."""
    return {"square": values["x"] ** 2}


def _log_warm_up() -> None:
    import os
    with open(os.environ["SWEEP_WARM_UP_LOG"], "a") as f:
        f.write("warm\n")


counted_square.warm_up = _log_warm_up
