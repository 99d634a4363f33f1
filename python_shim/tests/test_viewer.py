"""The web viewer in a real browser: headless Chromium (Debian's, through Selenium) opens the page
that viser serves, draws it with WebGL (SwiftShader, no GPU), and the screenshots are checked for
what a person would see.  humanoid.xml's geoms have one colour (its material "self", a saturated
tan); its floor and the grid are grey, so the robot's pixels are the saturated ones.

- `zwang view MODEL --trajectory RUN.h5` (the command-line tool): the standing humanoid at the
  first record is tall on the screen, the fallen one at the last record is not.
- A live Viewer over a Simulator, with the browser's camera set by the test: each geom's centre,
  projected by a pinhole camera of the test's own, lands on robot pixels; after the instance
  moves 0.6 m along −x, the robot's pixels move left by the projected distance."""

import os
import shutil
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import zwang_cli

viser = pytest.importorskip("viser")
webdriver = pytest.importorskip("selenium.webdriver")

HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"
WIDTH, HEIGHT = 960, 640
# the page's controls (top right) and its notice about software WebGL (top left) cover these
COVERED = [(600, WIDTH, 0, 420), (0, 330, 0, 200)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        pytest.skip("no Chromium and chromedriver (scripts/setup.sh installs Debian's)")
    from selenium.webdriver.chrome.options import Options

    options = Options()
    options.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--use-angle=swiftshader"):
        options.add_argument(a)
    options.add_argument("--enable-unsafe-swiftshader")
    d = webdriver.Chrome(options=options, service=webdriver.ChromeService(driver))
    d.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False},
    )
    yield d
    d.quit()


def screenshot(d) -> np.ndarray:
    import imageio.v3 as iio

    img = iio.imread(d.get_screenshot_as_png())[..., :3]
    assert img.shape[:2] == (HEIGHT, WIDTH)
    return img


def robot_mask(img: np.ndarray) -> np.ndarray:
    """The saturated pixels outside the page's controls."""
    f = img.astype(float)
    hi, lo = f.max(-1), f.min(-1)
    mask = (hi > 60) & (hi - lo > 0.2 * hi)
    for x0, x1, y0, y1 in COVERED:
        mask[y0:y1, x0:x1] = False
    return mask


def wait_for_robot(d, minimum=200, timeout=60.0) -> np.ndarray:
    """A screenshot once the scene shows at least `minimum` robot pixels and the picture stays
    the same for a second (the geoms arrive one by one)."""
    end = time.monotonic() + timeout
    last = None
    while True:
        img = screenshot(d)
        ready = robot_mask(img).sum() >= minimum and last is not None and np.array_equal(img, last)
        if ready or time.monotonic() > end:
            return img
        last = img
        time.sleep(1.0)


def settle(d, previous: np.ndarray, timeout=30.0) -> np.ndarray:
    """A screenshot once the picture differs from `previous` and then stays the same."""
    end = time.monotonic() + timeout
    last = previous
    while time.monotonic() < end:
        time.sleep(0.5)
        img = screenshot(d)
        if not np.array_equal(img, previous) and np.array_equal(img, last):
            return img
        last = img
    return last


def test_zwang_view_plays_a_trajectory(browser, tmp_path):
    cli = zwang_cli()
    if cli is None:
        pytest.skip("no zwang command-line tool (build/ci/zwang or $ZWANG_CLI)")
    run = tmp_path / "run.h5"
    subprocess.run(
        [cli, "run", HUMANOID, "-n", "2", "-t", "400", "--record-every", "20", "--ctrl", "zero"]
        + ["-o", str(run), "--init-noise", "0", "--no-progress"],
        check=True,
        capture_output=True,
    )
    heights = []
    for record in (0, 20):
        port = free_port()
        env = dict(os.environ, ZWANG_PYTHON=sys.executable)
        cmd = [cli, "view", "--trajectory", str(run), "-i", "1", "--record", str(record)]
        p = subprocess.Popen(
            cmd + ["--port", str(port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        try:
            url = None
            for line in p.stdout:
                if line.startswith("zwang viewer: "):
                    url = line.split()[-1]
                    break
            assert url == f"http://127.0.0.1:{port}", f"no URL printed (exit {p.poll()})"
            browser.get(url)
            mask = robot_mask(wait_for_robot(browser))
            assert mask.sum() >= 200, f"record {record}: no robot on the screen"
            rows = np.nonzero(mask.any(1))[0]
            heights.append(rows[-1] - rows[0])
        finally:
            p.terminate()
            assert p.wait(timeout=30) == 0
    # standing at the first record, lying after 2 s without control
    assert heights[1] < 0.6 * heights[0], heights


def project(points, position, look_at, fov, width, height):
    """Pixel coordinates (x right, y down) of world points seen by a pinhole camera at `position`
    looking at `look_at` with +z up and a vertical field of view `fov` (radians)."""
    forward = np.asarray(look_at, float) - np.asarray(position, float)
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    d = np.asarray(points, float) - np.asarray(position, float)
    focal = 0.5 * height / np.tan(0.5 * fov)
    z = d @ forward
    return np.stack(
        [0.5 * width + focal * (d @ right) / z, 0.5 * height - focal * (d @ up) / z], axis=-1
    )


def test_live_viewer_follows_the_simulator(browser):
    import zwang.viewer

    model = zwang.load(HUMANOID)
    sim = zwang.Simulator(model, instances=4)
    sim.step(3)
    port = free_port()
    with zwang.viewer.Viewer(sim, instances=[2], port=port, verbose=False) as v:
        assert v.url == f"http://127.0.0.1:{port}"
        browser.get(v.url)
        first = wait_for_robot(browser)
        position, look_at, fov = (0.0, -3.0, 1.2), (0.0, 0.0, 0.9), np.radians(60.0)
        # the position first: setting it keeps the direction of view, look_at then turns it
        for client in v.server.get_clients().values():
            client.camera.position = position
            client.camera.look_at = look_at
            client.camera.fov = fov
        settle(browser, first)
        shown = np.asarray(model.geom_type) != 0  # the floor is not the robot
        centroids, predicted = [], []
        for shift in (0.0, -0.6):
            before = screenshot(browser)
            sim.qpos[2, 0] += shift
            sim.forward()
            v.update()
            img = settle(browser, before) if shift else before
            mask = robot_mask(img)
            pix = project(
                np.asarray(sim.geom_xpos[2])[shown], position, look_at, fov, WIDTH, HEIGHT
            )
            hits = [
                mask[max(y - 2, 0) : y + 3, max(x - 2, 0) : x + 3].any() for x, y in pix.astype(int)
            ]
            assert np.mean(hits) >= 0.9, f"shift {shift}: geom centres on robot pixels {hits}"
            ys, xs = np.nonzero(mask)
            centroids.append(xs.mean())
            predicted.append(pix[:, 0].mean())
        moved, expected = centroids[1] - centroids[0], predicted[1] - predicted[0]
        assert expected < -50
        assert abs(moved - expected) < 0.25 * abs(expected), (moved, expected)


def test_viewer_marks_stopped_instances_and_checks_arguments():
    import zwang.viewer

    model = zwang.load(HUMANOID)
    # the viewer takes the colours from MuJoCo's model of this file
    assert model.path == os.path.abspath(HUMANOID)
    sim = zwang.Simulator(model, instances=3)
    with pytest.raises(ValueError, match="out of range"):
        zwang.viewer.Viewer(sim, instances=[5], port=free_port(), verbose=False)
    with pytest.raises(ValueError, match="not an integer"):
        zwang.viewer.Viewer(sim, instances="0, x", port=free_port(), verbose=False)
    with zwang.viewer.Viewer(sim, instances=[0, 1], port=free_port(), verbose=False) as v:
        sim.step(20)
        v.update()
        before = np.array(v._poses[1]["geom_xpos"])
        # instance 1's state stops being finite: it stops, and is drawn where it was (a pose
        # computed from this state would not be finite)
        sim.qvel[1] = np.nan
        sim.qpos[1, 7] = np.nan
        sim.step(1)
        assert sim.status[1] != 0 and sim.status[0] == 0
        v.update()
        label = v._handles["/instance1/label"]
        assert label.visible and "stopped (bad state)" in label.text
        assert "state not finite, drawn where it was" in label.text
        assert not v._handles["/instance0/label"].visible
        np.testing.assert_array_equal(v._poses[1]["geom_xpos"], before)
        with pytest.raises(RuntimeError, match="no trajectory"):
            v.play()


def test_import_zwang_does_not_import_the_viewer():
    code = (
        "import sys, zwang; print([m for m in sys.modules if m.startswith(('viser', 'zwang.vi'))])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
