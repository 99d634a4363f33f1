"""Draws the pictures of the README and docs/viewer.md into docs/images:

- viewer.png: the web viewer in headless Chromium, three humanoid.xml instances after 0.6 s
  of random controls, with their contact points and forces;
- rollout.png: frames of a zwang.gym Humanoid-v5 env under random actions, every 10 env steps,
  drawn by its rgb_array renderer and laid out by zwang.gym.tile.

Needs what scripts/setup.sh installs (viser, selenium, Chromium, MuJoCo, Gymnasium); run it
with the Python that has zwang installed: python scripts/docs_images.py
"""

import os
import shutil
import time
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import zwang
import zwang.gym
import zwang.viewer
from selenium import webdriver
from selenium.webdriver.chrome.options import Options

OUT = Path(__file__).resolve().parent.parent / "docs" / "images"
HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"


def viewer_png() -> None:
    model = zwang.load(HUMANOID)
    sim = zwang.Simulator(model, instances=3)
    rng = np.random.default_rng(3)
    for _ in range(25):
        sim.ctrl[:] = rng.uniform(-1, 1, sim.ctrl.shape)
        sim.step(5)
    with zwang.viewer.Viewer(sim, instances=[0, 1, 2], port=8790, verbose=False) as v:
        v._controls["forces"].value = True
        options = Options()
        options.binary_location = shutil.which("chromium")
        for a in ("--headless=new", "--no-sandbox", "--use-angle=swiftshader"):
            options.add_argument(a)
        options.add_argument("--enable-unsafe-swiftshader")
        d = webdriver.Chrome(
            options=options, service=webdriver.ChromeService(shutil.which("chromedriver"))
        )
        d.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": 1200, "height": 700, "deviceScaleFactor": 1, "mobile": False},
        )
        d.get(v.url)
        time.sleep(8)
        # the notice about software WebGL is not part of the viewer
        for b in d.find_elements("css selector", "button.mantine-Notification-closeButton"):
            b.click()
        time.sleep(1)
        d.save_screenshot(str(OUT / "viewer.png"))
        d.quit()


def rollout_png() -> None:
    env = zwang.gym.make_vec("Humanoid-v5", 1, render_mode="rgb_array", width=240, height=240)
    env.reset(seed=1)
    env.action_space.seed(1)
    frames = []
    for step in range(41):
        if step % 10 == 0:
            frames.append(env.render()[0])
        env.step(env.action_space.sample())
    iio.imwrite(OUT / "rollout.png", zwang.gym.tile(frames, columns=len(frames)))
    env.close()


if __name__ == "__main__":
    os.environ.setdefault("MUJOCO_GL", "egl")
    OUT.mkdir(parents=True, exist_ok=True)
    viewer_png()
    rollout_png()
    print(f"wrote {OUT / 'viewer.png'} and {OUT / 'rollout.png'}")
