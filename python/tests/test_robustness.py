"""Bad input raises a Python exception, never crashes; the GIL is released; Ctrl-C stops a call."""
import os
import signal
import threading
import time

import numpy as np
import pytest

import pcl_dise
from conftest import wavy_surface


@pytest.mark.parametrize("points", [
    np.zeros((10, 2)), np.zeros((10, 4)), np.zeros(30), np.zeros((0, 3)), np.zeros((10, 3), dtype=np.int64),
    np.zeros((10, 3), dtype=np.complex64), "points", [[1, 2]],
])
def test_bad_arrays_raise_value_error(points):
    with pytest.raises(ValueError):
        pcl_dise.estimate_normals(points)


@pytest.mark.parametrize("options", [
    {"k": -3}, {"k": 2.5}, {"k": "many"}, {"radius": -1.0}, {"radius": float("nan")}, {"iterations": -1},
    {"orient": "outward"}, {"backend": "gpu"}, {"viewpoint": (1, 2)}, {"threads": -1}, {"settle": -1.0},
    {"settle": 1.0, "backend": "torch"}, {"max_neighbors": 8}, {"iterations": 256}, {"precision": "fp16"},
    {"precision": "bf16", "backend": "torch"},
])
def test_bad_options_raise_value_error(options):
    with pytest.raises(ValueError):
        pcl_dise.estimate_normals(wavy_surface(100), **options)


def test_k_0_means_not_set_as_in_cpp():
    points = wavy_surface(500)
    np.testing.assert_array_equal(pcl_dise.estimate_normals(points, k=0), pcl_dise.estimate_normals(points, k=64))


def test_option_messages_are_the_librarys():
    # The package converts types only; the rules and their messages are NormalSettings::validate's.
    for options, message in [({"iterations": 256}, "iterations must be in 0..255"),
                             ({"settle": 1.0, "backend": "torch"}, "does not run on the torch backend"),
                             ({"radius": -1.0}, "radius must be a positive number"),
                             ({"orient": "outward"}, "outward")]:
        with pytest.raises(ValueError, match=message):
            pcl_dise.estimate_normals(wavy_surface(100), **options)


def test_the_librarys_settings_errors_are_value_errors_by_type():
    # max_neighbors without a radius passes the package's own checks: the library's NormalSettings
    # refuses it (OptionsError), and the binding maps the type to ValueError.
    with pytest.raises(ValueError, match="max_neighbors needs radius"):
        pcl_dise.Estimator(max_neighbors=8)


def test_nan_and_inf_rows_get_nan_normals():
    points = wavy_surface(2000)
    points[[3, 50]] = np.nan
    points[7] = np.inf
    normals = pcl_dise.estimate_normals(points)
    assert np.isnan(normals[[3, 7, 50]]).all()
    assert np.isfinite(np.delete(normals, [3, 7, 50], axis=0)).all()


def test_k_larger_than_the_cloud_takes_the_whole_cloud():
    points = wavy_surface(20)
    np.testing.assert_array_equal(pcl_dise.estimate_normals(points, k=64, iterations=0),
                                  pcl_dise.estimate_normals(points, k=19, iterations=0))


def test_missing_and_corrupt_models(tmp_path):
    with pytest.raises(FileNotFoundError):
        pcl_dise.estimate_normals(wavy_surface(100), model=tmp_path / "none.safetensors")
    corrupt = tmp_path / "corrupt.safetensors"
    corrupt.write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}......")
    with pytest.raises(OSError):
        pcl_dise.estimate_normals(wavy_surface(100), model=corrupt)


def test_orient_normals_checks_its_arguments():
    points = wavy_surface(100)
    with pytest.raises(ValueError):
        pcl_dise.orient_normals(points, np.zeros((99, 3)))
    with pytest.raises(ValueError):
        pcl_dise.orient_normals(points, np.zeros((100, 3)), seed=100)


def test_gil_is_released_while_computing():
    points = wavy_surface(50000)
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    start = time.monotonic()
    pcl_dise.estimate_normals(points, k=32, threads=1)
    end = time.monotonic()
    done.set()
    thread.join()
    during = [t for t in ticks if start < t < end]
    assert end - start > 0.2 and len(during) >= 20  # the other thread ran during the call


def test_ctrl_c_stops_a_call_within_a_second():
    points = wavy_surface(100000)
    timer = threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        pcl_dise.estimate_normals(points, iterations=60)
    # stopped early: the whole call takes about 30 s here; Ctrl-C ends it within about a second,
    # with room for a busy machine
    assert time.monotonic() - start < 1.0 + 5.0
    # the module still works afterwards
    assert np.isfinite(pcl_dise.estimate_normals(wavy_surface(500))).all()


def test_progress_callback_exception_propagates():
    def broken(done):
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError):
        pcl_dise.estimate_normals(wavy_surface(5000), progress=broken)


def test_cuda_backend_matches_native_or_says_it_is_absent(tmp_path):
    points = wavy_surface(20000)
    if not pcl_dise.backend_available("cuda"):
        # A machine with an NVIDIA device whose backend is not available is broken, not skipped.
        assert not (os.path.exists("/dev/nvidiactl") or os.path.exists("/dev/nvidia0")), \
            "an NVIDIA device is present, yet the cuda backend is not available"
        with pytest.raises(ValueError, match="cuda.*not available here: .+") as raised:
            pcl_dise.estimate_normals(points, backend="cuda")
        assert str(raised.value) == pcl_dise._native.backend_unavailable_message("cuda")  # with the reason
        np.savetxt(tmp_path / "in.xyz", points)
        with pytest.raises(ValueError, match="cuda.*not available"):
            pcl_dise.estimate_normals_file(str(tmp_path / "in.xyz"), str(tmp_path / "out.ply"), backend="cuda")
        assert not (tmp_path / "out.ply").exists()
        return
    on_gpu = pcl_dise.estimate_normals(points, backend="cuda")
    on_cpu = pcl_dise.estimate_normals(points, backend="native")
    cosines = np.abs(np.sum(on_gpu * on_cpu, axis=1))
    angles = np.degrees(np.arccos(np.clip(cosines, -1, 1)))
    assert np.percentile(angles, 99) <= 0.05
    assert (np.sum(on_gpu * on_cpu, axis=1) > 0).all()  # oriented alike
