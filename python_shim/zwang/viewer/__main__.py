"""``python -m zwang.viewer`` (``zwang view``): a model or a trajectory in the browser."""

from __future__ import annotations

import argparse
import signal
import sys
import threading


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zwang view",
        description="Shows a model, or the records of a trajectory written by `zwang run -o`, in "
        "the browser: prints the URL and serves until interrupted.",
    )
    p.add_argument("model", nargs="?", help="MJCF or URDF file (default: the trajectory's model)")
    p.add_argument("--trajectory", "-t", help="HDF5 file written by `zwang run -o`")
    p.add_argument("--instances", "-i", default="0", help="instances to show, e.g. 0,5,17")
    p.add_argument("--layout", choices=("side", "overlay"), default="side")
    p.add_argument("--record", type=int, default=0, help="the trajectory's record shown first")
    p.add_argument("--play", action="store_true", help="play the trajectory from the start")
    p.add_argument("--rules", choices=("4.0", "2.2.2"), default="4.0", help="as `zwang run`")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (0.0.0.0: all)")
    p.add_argument("--port", type=int, default=8080)
    a = p.parse_args(argv)

    if not a.trajectory and (a.record or a.play):
        p.error("--record and --play need a --trajectory")
    try:
        import zwang

        from ._viewer import Trajectory, Viewer, model_of
    except ImportError as e:
        print(
            f"zwang view: {e}; install the viewer extra: pip install 'zwang[viewer]'",
            file=sys.stderr,
        )
        return 2

    try:
        trajectory = Trajectory(a.trajectory) if a.trajectory else None
        path = a.model or model_of(trajectory)
        if not path:
            p.error("give a MODEL file, or a --trajectory that names its model")
        model = zwang.load(path, rules=a.rules)
        layout = "overlaid" if a.layout == "overlay" else "side by side"
        viewer = Viewer(
            model,
            a.instances,
            trajectory=trajectory,
            model_path=path,
            layout=layout,
            host=a.host,
            port=a.port,
            verbose=False,
        )
        if trajectory is not None:
            viewer.seek(a.record)
            if a.play:
                viewer.play()
        # once the first picture is in place
        print(f"zwang viewer: {viewer.url}", flush=True)
    except (OSError, ValueError, RuntimeError) as e:
        print(f"zwang view: {e}", file=sys.stderr)
        return 2
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    viewer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
