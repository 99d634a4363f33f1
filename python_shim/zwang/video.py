"""``python -m zwang.video`` (``zwang render``): a video of a trajectory's instances.

    zwang run humanoid.xml -n 16 -t 1000 --record-every 5 -o run.h5 --ctrl random
    zwang render run.h5 --instances 0,1,2,3 -o run.mp4

Each record of ``zwang run -o`` is one frame; the instances are tiled in one picture per frame
(``zwang.tile``); the frames are drawn by MuJoCo's renderer (``zwang.render``) and written by
imageio's ffmpeg plugin (H.264 for .mp4, or a GIF).  The frame rate is real time by default:
one record every ``record_every`` steps of ``timestep``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def write_video(
    trajectory,
    model,
    out: str,
    instances,
    *,
    width: int = 480,
    height: int = 480,
    camera=None,
    fps: float | None = None,
    columns: int | None = None,
) -> int:
    """Writes the records of a zwang.viewer.Trajectory; returns the frames written."""
    import imageio.v2 as imageio

    from ._render import Painter, tile

    if fps is None:
        fps = 1.0 / max(trajectory.timestep * trajectory.record_every, 1e-6)
    painter = Painter(model, width, height, camera)
    ffmpeg = not str(out).lower().endswith(".gif")
    kwargs = {"fps": fps}
    if ffmpeg:
        kwargs.update(codec="libx264", macro_block_size=1, quality=7)
    written = 0
    try:
        with imageio.get_writer(out, **kwargs) as w:
            for r in range(trajectory.records):
                s = trajectory.state(r, instances)
                frames = [
                    painter.paint({k: v[j] for k, v in s.items()}) for j in range(len(instances))
                ]
                picture = tile(frames, columns)
                if ffmpeg and picture.shape[0] % 2 + picture.shape[1] % 2:
                    # H.264's chroma is at half size: even sides
                    picture = picture[: picture.shape[0] // 2 * 2, : picture.shape[1] // 2 * 2]
                w.append_data(np.ascontiguousarray(picture))
                written += 1
    finally:
        painter.close()
    return written


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="zwang render",
        description="A video (MP4, or GIF by extension) of the instances of a trajectory "
        "written by `zwang run -o`: a frame per record, the instances tiled.",
    )
    p.add_argument("trajectory", help="HDF5 file written by `zwang run -o`")
    p.add_argument("-o", "--out", required=True, help="video file: .mp4 or .gif")
    p.add_argument("--model", help="MJCF or URDF file (default: the trajectory's model)")
    p.add_argument("--instances", "-i", default="0", help="instances, e.g. 0,5,17")
    p.add_argument("--width", type=int, default=480, help="of each instance's picture")
    p.add_argument("--height", type=int, default=480)
    p.add_argument("--camera", help="a camera of the model (name or index); default: free")
    p.add_argument("--fps", type=float, help="frames per second (default: real time)")
    p.add_argument("--columns", type=int, help="instances per row (default: about √k)")
    p.add_argument("--rules", choices=("4.0", "2.2.2"), default="4.0", help="as `zwang run`")
    a = p.parse_args(argv)

    try:
        import imageio_ffmpeg  # noqa: F401  (the MP4 writer, imported by imageio by name)

        import zwang

        from .viewer._viewer import Trajectory, model_of, parse_instances
    except ImportError as e:
        print(
            f"zwang render: {e}; install the viewer extra: pip install 'zwang[viewer]'",
            file=sys.stderr,
        )
        return 2

    try:
        trajectory = Trajectory(a.trajectory)
        path = a.model or model_of(trajectory)
        model = zwang.load(path, rules=a.rules)
        if trajectory.nq != model.nq:
            raise ValueError(
                f"{a.trajectory} holds states of nq = {trajectory.nq}; {path} has nq = {model.nq}"
            )
        instances = parse_instances(a.instances, trajectory.instances)
        camera = a.camera
        if camera is not None and camera.lstrip("-").isdigit():
            camera = int(camera)
        n = write_video(
            trajectory,
            model,
            a.out,
            instances,
            width=a.width,
            height=a.height,
            camera=camera,
            fps=a.fps,
            columns=a.columns,
        )
    except (OSError, ValueError, IndexError, RuntimeError) as e:
        print(f"zwang render: {e}", file=sys.stderr)
        return 2
    print(f"zwang render: {a.out}: {n} frames of instances {', '.join(map(str, instances))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
