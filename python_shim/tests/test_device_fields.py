"""Device fields through DLPack (CUDA backend), and what the same calls do on the CPU backend.

The CUDA tests need a build with CUDA, a device and PyTorch; they compare the device memory
PyTorch sees with the host views, and a step driven by controls written on the device with the
CPU backend stepped from the same state and controls.
"""

import numpy as np
import pytest
import zwang


def test_cpu_backend_has_no_device_copy(assets):
    model = zwang.load(str(assets / "inverted_pendulum.xml"))
    sim = zwang.Simulator(model, instances=4, backend="cpu")
    with pytest.raises(RuntimeError, match="no device copy"):
        sim.device_field("qpos")
    with pytest.raises(ValueError, match="no field is named"):
        sim.mark_device_written("qpoz")
    sim.mark_device_written("qpos")  # nothing to do on the CPU
    sim.synchronize()
    assert sim.cuda_stream == 0
    devices, reason = zwang.cuda_status()
    assert devices >= 0 and (devices > 0 or reason)


def cuda_or_skip():
    devices, reason = zwang.cuda_status()
    if devices == 0:
        pytest.skip(f"no CUDA device for zwang: {reason}")
    return pytest.importorskip("torch")


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_torch_shares_the_device_state(assets, precision):
    torch = cuda_or_skip()
    model = zwang.load(str(assets / "ant.xml"), contact_margin="sum")
    n = 300
    gpu = zwang.Simulator(model, instances=n, backend="cuda", precision=precision)
    cpu = zwang.Simulator(model, instances=n, backend="cpu", precision=precision)
    rng = np.random.default_rng(0)
    qpos = model.qpos0 + np.concatenate([[0, 0, 0.3], np.zeros(4), rng.uniform(-0.3, 0.3, 8)])
    for sim in (gpu, cpu):
        sim.reset(qpos=qpos)
    gpu.step(3)
    cpu.step(3)

    # what torch sees is the device state, the host view's values, without a copy
    qpos_t = torch.from_dlpack(gpu.device_field("qpos"))
    assert qpos_t.device.type == "cuda" and tuple(qpos_t.shape) == (n, model.nq)
    assert qpos_t.stride() == (1, qpos_t.stride(1)) and qpos_t.stride(1) >= n
    np.testing.assert_array_equal(qpos_t.cpu().numpy(), gpu.qpos)
    xpos_t = torch.from_dlpack(gpu.device_field("xpos"))
    np.testing.assert_array_equal(xpos_t.cpu().numpy(), gpu.xpos)
    status_t = torch.from_dlpack(gpu.device_field("status"))
    assert status_t.dtype == torch.int32 and not status_t.any()

    # controls written by torch on the device drive the next steps
    ctrl_t = torch.from_dlpack(gpu.device_field("ctrl"))
    ctrl = rng.uniform(-1, 1, (n, model.nu)).astype(gpu.ctrl.dtype)
    ctrl_t.copy_(torch.from_numpy(ctrl).to(ctrl_t.device))
    torch.cuda.synchronize()
    gpu.mark_device_written("ctrl")
    np.testing.assert_array_equal(gpu.ctrl, ctrl)
    cpu.ctrl[:] = ctrl
    gpu.step(5)
    cpu.step(5)
    tol = 1e-12 if precision == "f64" else 1e-4
    np.testing.assert_allclose(gpu.qpos, cpu.qpos, rtol=tol, atol=tol)
    np.testing.assert_allclose(qpos_t.cpu().numpy(), cpu.qpos, rtol=tol, atol=tol)


def test_cuda_group_is_checked_on_every_backend(assets):
    model = zwang.load(str(assets / "inverted_pendulum.xml"))
    for group in ("auto", 1, 16, 32):
        zwang.Simulator(model, instances=2, backend="cpu", cuda_group=group).step(1)
    for bad in (0, 7, 64, True, "32", 32.0, None):
        with pytest.raises(ValueError, match="cuda_group"):
            zwang.Simulator(model, instances=2, cuda_group=bad)


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_lane_groups_step_as_the_cpu_does(assets, precision):
    """The lane-group kernel (a warp per instance) against the CPU backend, with outputs kept."""
    cuda_or_skip()
    model = zwang.load(str(assets / "ant.xml"), contact_margin="sum")
    n = 200
    rng = np.random.default_rng(1)
    qpos = model.qpos0 + np.concatenate([[0, 0, 0.3], np.zeros(4), rng.uniform(-0.3, 0.3, 8)])
    ctrl = rng.uniform(-1, 1, (n, model.nu))
    kept = ["qacc", "cfrc_ext"]
    sims = [
        zwang.Simulator(model, n, backend="cuda", precision=precision, cuda_group=32, outputs=kept),
        zwang.Simulator(model, n, backend="cpu", precision=precision, outputs=kept),
    ]
    for sim in sims:
        sim.reset(qpos=qpos)
        sim.ctrl[:] = ctrl
        sim.step(5)
    assert "lane groups of 32" in sims[0].backend
    tol = 1e-9 if precision == "f64" else 1e-3
    for field in ("qpos", "qvel", "qacc", "cfrc_ext", "time"):
        np.testing.assert_allclose(
            getattr(sims[0], field), getattr(sims[1], field), rtol=tol, atol=tol, err_msg=field
        )
    np.testing.assert_array_equal(sims[0].status, sims[1].status)
