"""scripts/sensor_sim.py's exact ray casting and sensor models, and bench_real_planes.py's planes,
on scenes whose answer is known. Run by ctest (scripts.bench_orientation runs this folder) or:
/usr/bin/python3 -m pytest test/scripts"""
import importlib.util
import os
import sys

import numpy as np
import pytest

pytest.importorskip("open3d")
SCRIPTS = os.path.join(os.path.dirname(__file__), "..", "..", "scripts")
sys.path.insert(0, SCRIPTS)


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(SCRIPTS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sim = load("sensor_sim")
planes = load("bench_real_planes")


def box_hits(raster, lo, hi):
    """The raster's exact hits on the box lo..hi: points, normals, ray parameters."""
    import open3d as o3d
    box = o3d.geometry.TriangleMesh.create_box(*(np.subtract(hi, lo)))
    box.translate(lo)
    vertices, triangles, ids = sim._scene_arrays([box], [], 0.05)
    t, n, g = sim._cast(raster, vertices, triangles, ids)
    rows, cols = np.meshgrid(np.arange(raster.shape[0], dtype=float), np.arange(raster.shape[1], dtype=float),
                             indexing="ij")
    o, d = raster.ray(rows, cols)
    hit = np.isfinite(t)
    return (o + d * t[..., None])[hit], n[hit], g[hit]


def on_box_surface(points, lo, hi):
    """Each point's distance to the nearest face plane of the box (inside it)."""
    lo, hi = np.asarray(lo), np.asarray(hi)
    return np.min(np.abs(np.concatenate([points - lo, points - hi], 1)), 1)


def test_a_camera_hits_the_box_exactly_with_its_face_normals():
    lo, hi = (0.5, -0.5, -0.5), (1.5, 0.5, 0.5)
    raster = sim._pinhole(np.array([-1.0, 0.3, 0.8]), (1.0, 0.0, 0.0), 160, 120, 120.0)
    points, normals, ids = box_hits(raster, lo, hi)
    assert len(points) > 2000 and (ids == 0).all()
    assert on_box_surface(points, lo, hi).max() < 1e-9
    # The normal is the face's: one axis, the one whose face the point lies on.
    assert np.allclose(np.abs(normals).max(1), 1.0)
    face = np.argmin(np.abs(np.concatenate([points - lo, points - hi], 1)), 1) % 3
    assert (np.abs(normals).argmax(1) == face).all()


def test_a_panoramic_scanner_inside_a_room_hits_every_direction_across_azimuth_zero():
    lo, hi = (-2.0, -3.0, -1.0), (4.0, 2.0, 2.0)
    step = np.radians(2.0)
    raster = sim._spherical(np.array([0.1, 0.2, 0.3]), step, np.radians(-60), 45, step)
    points, normals, _ = box_hits(raster, lo, hi)
    assert len(points) == raster.shape[0] * raster.shape[1]  # a closed room: no ray escapes
    assert on_box_surface(points, lo, hi).max() < 1e-9


def test_the_kinect_measures_depth_on_its_disparity_levels():
    z = np.linspace(1.0, 5.0, 4000).reshape(40, 100)
    measured = sim._depth_noise("kinect", z, 525.0, np.random.default_rng(0))
    disparity = (3.3309495161 - 1.0 / measured) / 0.0030711016
    assert np.allclose(disparity, np.round(disparity), atol=1e-6)
    assert np.abs(measured - z).max() < 0.5 * 0.0030711016 * 5.0 ** 2 * 4  # within a few levels


def test_plane_labels_find_two_planes_and_their_normals():
    rng = np.random.default_rng(1)
    floor = np.c_[rng.uniform(0, 4, (20000, 2)), rng.normal(0, 1e-3, 20000)]
    wall = np.c_[rng.uniform(0, 4, 20000), np.full(20000, 4.0) + rng.normal(0, 1e-3, 20000), rng.uniform(0, 3, 20000)]
    points = np.concatenate([floor, wall])
    label, normals = planes.plane_labels(points)
    assert len(normals) == 2
    found = sorted(np.abs(normals).argmax(1))
    assert found == [1, 2]
    assert (np.abs(normals).max(1) > 0.9999).all()
    inside, truth = planes.interior_points(points, label, normals)
    assert len(inside) > 4000 and np.allclose(np.abs(truth).max(1), np.abs(normals).max(1).min(), atol=1e-3)
