"""Simple ice surfaces for the bob's tests: a plane inclined downhill along +x, a flat plane."""
import numpy as np


def inclined_plane(slope_deg=5.0, length=400.0, half_width=4.0, dx=2.0):
    """Vertices and triangles (counter-clockwise seen from above) of z = −tan(slope) x, x ∈ [−20, length]."""
    a = np.radians(slope_deg)
    x = np.arange(-20.0, length + 1e-9, dx)
    y = np.linspace(-half_width, half_width, 5)
    X, Y = np.meshgrid(x, y, indexing="ij")
    V = np.column_stack([X.ravel(), Y.ravel(), (-np.tan(a) * X).ravel()])
    ny = len(y)
    tris = []
    for i in range(len(x) - 1):
        for j in range(ny - 1):
            p = i * ny + j
            tris += [[p, p + ny, p + ny + 1], [p, p + ny + 1, p + 1]]
    return V, np.array(tris, np.int64)


def slope_frame(slope_deg):
    """(downhill tangent, left) of the inclined plane."""
    a = np.radians(slope_deg)
    return np.array([np.cos(a), 0.0, -np.sin(a)]), np.array([0.0, 1.0, 0.0])
