"""A web viewer of zwang's instances and trajectories, in the browser (viser).

    import zwang
    import zwang.viewer

    sim = zwang.Simulator(zwang.load("humanoid.xml"), instances=4096)
    v = zwang.viewer.Viewer(sim, instances=[0, 1, 2])  # prints the URL to open
    for _ in range(1000):
        sim.step(5)
        v.update()  # reads the three shown instances only

``zwang view MODEL [--trajectory RUN.h5] [--instances 0,5,17]`` (or ``python -m zwang.viewer``)
shows a model at its default state, or plays a trajectory that ``zwang run -o`` wrote.  The
geoms' shapes come from the zwang Model, their colours from MuJoCo's model of the same file
(by body when MuJoCo cannot read it); where they are comes from zwang: a CPU simulator of the
shown instances evaluates their kinematics and contacts at each shown state.  The page works
over SSH port forwarding on a headless machine.  Needs the ``viewer`` extra (viser, and h5py
for trajectories); ``import zwang`` imports none of it.
"""

from ._viewer import LAYOUTS, Trajectory, Viewer, parse_instances

__all__ = ["LAYOUTS", "Trajectory", "Viewer", "parse_instances"]
