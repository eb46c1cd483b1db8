"""Bender's measured step times (thesis Ch. 3.3.3, Pentium 4 at 3.4 GHz, RK4, PARDISO for the LGS) [ms].

Keys: (scene, n_bodies, method, tolerance). The tolerance is eps_d = eps_v of the run; the capped iterative
run of Sec. 3.3.3.2 has tolerance 1e-6 with at most 10 iterations per phase.
"""

CHAIN = {  # Table 3.1, h = 10 ms, eps = 1e-6
    10: {"iterative": 3.30, "lgs": 2.11},
    20: {"iterative": 23.20, "lgs": 2.78},
    30: {"iterative": 71.65, "lgs": 3.63},
    40: {"iterative": 157.69, "lgs": 4.60},
    50: {"iterative": 287.14, "lgs": 6.28},
}

TREE_ITERATIVE = {  # Table 3.3, h = 1/30 s
    31: {1e-3: 2.73, 1e-4: 7.07, 1e-6: 15.87},
    63: {1e-3: 7.86, 1e-4: 21.87, 1e-6: 54.25},
    127: {1e-3: 20.35, 1e-4: 63.77, 1e-6: 169.07},
    255: {1e-3: 51.47, 1e-4: 176.96, 1e-6: 494.15},
}

TREE_LGS = {  # Table 3.4, h = 1/30 s
    31: {1e-3: 3.51, 1e-4: 3.99, 1e-6: 4.53},
    63: {1e-3: 6.95, 1e-4: 7.09, 1e-6: 7.89},
    127: {1e-3: 18.38, 1e-4: 19.05, 1e-6: 19.66},
    255: {1e-3: 57.72, 1e-4: 57.61, 1e-6: 59.48},
}

TREE_127_ITERATIONS = {"iterative": (541.65, 780.89), "lgs": (2.0, 1.0)}   # Table 3.2: (joint, velocity)

TREE_255_CAPPED = 6.30   # iterative, at most 10 iterations per phase (Sec. 3.3.3.2)

LOOPS = {  # Table 3.6, h = 1/30 s
    "iterative": {1e-3: 32.26, 1e-4: 88.86, 1e-6: 241.24},
    "lgs cut": {1e-3: 41.19, 1e-4: 64.94, 1e-6: 114.70},
    "lgs modified joints": {1e-3: 3.51, 1e-4: 3.89, 1e-6: 4.85},
}


def figure(scene: str, n_bodies: int, method: str, tol: float, capped: bool = False):
    """The thesis's step time [ms] for a run, or None if the thesis has none."""
    if scene == "chain":
        return CHAIN.get(n_bodies, {}).get(method) if tol == 1e-6 else None
    if scene == "tree":
        if capped:
            return TREE_255_CAPPED if n_bodies == 255 else None
        table = TREE_LGS if method == "lgs" else TREE_ITERATIVE
        return table.get(n_bodies, {}).get(tol)
    if scene == "loops":
        # our automatic treatment stands beside the thesis's hand-modified joints
        key = {"iterative": "iterative", "lgs cut": "lgs cut", "lgs drop": "lgs modified joints"}.get(method)
        return LOOPS.get(key, {}).get(tol)
    return None
