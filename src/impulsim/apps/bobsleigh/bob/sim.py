"""A bob on a mesh: placing it, stepping it with a steering input, reading where it is and what it feels."""
from __future__ import annotations

import numpy as np

from impulsim.geometry.bvh import bvh_query_box
from impulsim.math.quaternion import quat_from_matrix
from impulsim.methods.moreau_minimal.segments import Mesh, _pierce, make_mesh


def bob_rotation(tangent, lateral):
    """Rotation with columns (forward, left, up) from a track tangent and its left lateral direction."""
    x = np.asarray(tangent, float) / np.linalg.norm(tangent)
    z = np.cross(x, lateral)
    z /= np.linalg.norm(z)
    return np.column_stack([x, np.cross(z, x), z])


def surface_offset(mesh: Mesh, points, up, reach=0.5):
    """Largest height [m] of the mesh surface above ``points`` measured along ``up`` (−inf if none)."""
    best = -np.inf
    stack, out = np.zeros(128, np.int64), np.zeros(4096, np.int64)
    for p in np.atleast_2d(points):
        p0, p1 = p - reach * up, p + reach * up
        found = bvh_query_box(mesh.node_min, mesh.node_max, mesh.node_left, mesh.node_right, mesh.node_start,
                              mesh.node_count, mesh.order, np.minimum(p0, p1), np.maximum(p0, p1), stack, out)
        for t in out[:min(found, len(out))]:
            lam = _pierce(mesh, int(t), p0, p1)
            if lam >= 0:
                best = max(best, -reach + 2 * reach * lam)
    return best


class BobSim:
    """The bob's :class:`MinimalSystem` on a static mesh, with its input (steering angle β)."""

    def __init__(self, bob, mesh, **options):
        self.bob = bob
        self.mesh = mesh if isinstance(mesh, Mesh) else make_mesh(*mesh)
        self.system = bob.build(self.mesh, **options)
        self.base = 0
        self.runners = np.array(bob.contact_indices("runner"))
        self.bumpers = np.array(bob.contact_indices("bumper"))
        self.rollover = np.array(bob.contact_indices("rollover"))
        self.com0 = np.array(bob.bodies[0]["com"])

    def place(self, origin, tangent, lateral, speed=0.0, clearance=0.002):
        """Put the bob with all joints at zero on the surface under ``origin`` (bob frame origin before
        the drop), heading along ``tangent``, moving at ``speed`` [m/s]; runner points ``clearance`` [m]
        below the surface so that their contacts are closed from the first step."""
        R = bob_rotation(tangent, lateral)
        sysm = self.system
        runner_pts = np.array([self.bob.contacts[k]["point"] for k in self.runners])
        world = origin + runner_pts @ R.T
        lift = surface_offset(self.mesh, world, R[:, 2])
        if not np.isfinite(lift):
            raise ValueError("place: no surface under the runners")
        o = np.asarray(origin, float) + (lift - clearance) * R[:, 2]
        sysm.q[:] = 0.0
        sysm.u[:] = 0.0
        sysm.q[0:3] = o + R @ self.com0
        sysm.q[3:7] = quat_from_matrix(R)
        sysm.u[0:3] = speed * R[:, 0]
        sysm.k[:] = 0.0
        sysm.m[:] = 0.0
        sysm.mdot[:] = 0.0
        sysm.contacts.closed[:] = 0
        sysm.contacts.P[:] = 0.0
        sysm.t = 0.0

    @property
    def position(self):
        """Centre of mass of the rear hull [m], world."""
        return self.system.q[0:3]

    @property
    def velocity(self):
        return self.system.u[0:3]

    def momentum_velocity(self):
        """Velocity of the centre of mass of the whole bob, Σ m_i v_i / Σ m_i [m/s], world."""
        W = self.system.update_kinematics()
        m = self.system.T.mass
        return (m[:, None] * W.v).sum(axis=0) / m.sum()

    def rotation(self):
        from impulsim.math.quaternion import quat_to_matrix
        return quat_to_matrix(self.system.q[3:7])

    def run(self, h, n, beta_end):
        """n steps of h [s] with β going linearly from its present value to ``beta_end`` [rad]."""
        k0 = self.system.k[0]
        K = (k0 + (beta_end - k0) * np.arange(1, n + 1) / n).reshape(n, 1)
        return self.system.advance(h, K)

    def crashed(self) -> bool:
        """A rollover point touches the ice (the run ends, as in the thesis)."""
        return bool(self.system.contacts.closed[self.rollover].any())
