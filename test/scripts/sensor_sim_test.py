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


def box_hits(raster, lo, hi, edge=0.05):
    """The raster's exact hits on the box lo..hi (its triangles split to `edge`): points, normals, ray parameters."""
    import open3d as o3d
    box = o3d.geometry.TriangleMesh.create_box(*(np.subtract(hi, lo)))
    box.translate(lo)
    vertices, triangles, ids = sim._scene_arrays([box], [], edge)
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


def test_the_measured_kinect_stores_millimetres_with_bumps_correlated_more_along_rows():
    z = np.full((240, 320), 1.0)
    measured = sim._depth_noise("kinect_measured", z, 525.0, np.random.default_rng(0))
    assert np.allclose(measured * 1000, np.round(measured * 1000), atol=1e-9)
    residual = measured - z
    along_rows = np.corrcoef(residual[:, :-1].ravel(), residual[:, 1:].ravel())[0, 1]
    along_columns = np.corrcoef(residual[:-1, :].ravel(), residual[1:, :].ravel())[0, 1]
    assert along_rows > along_columns > 0.3  # the real tables: 0.69 and 0.51 (plane_error_by_range.py --noise)
    assert 0.001 < residual.std() < 0.004  # at 1 m a disparity unit is 3 mm: 0.6 units of bumps and more


def test_a_survey_strip_off_the_flight_line_hits_the_ground_across_its_swath():
    step = np.radians(0.5)
    raster = sim._pushbroom(-10, 1.0, 20, 300.0, np.radians(-15), step, 60, y0=25.0)
    points, normals, _ = box_hits(raster, (-20, -100, -1), (20, 120, 0), edge=5.0)
    assert len(points) == 20 * 60 and np.allclose(points[:, 2], 0.0)
    across = np.degrees(np.arctan2(points[:, 1] - 25.0, 300.0))
    assert across.min() == pytest.approx(-15, abs=1e-6) and across.max() == pytest.approx(-15 + 59 * 0.5, abs=1e-6)


def test_stored_coordinates_lie_on_the_float32_grid_of_their_offset():
    points = np.random.default_rng(1).uniform(-60, 60, (5000, 3))
    stored = sim.stored_as_float32(points, np.random.default_rng(2))
    rng = np.random.default_rng(2)
    offset = np.array([rng.uniform(1.7e5, 8.3e5), rng.uniform(1e6, 8e6), rng.uniform(0, 500)]).round()
    on_file = stored + offset
    assert np.array_equal(on_file, on_file.astype(np.float32).astype(np.float64))
    step = np.spacing(offset.astype(np.float32)).astype(np.float64)
    assert (np.abs(stored - points) <= step / 2 + 1e-9).all()  # rounded to the nearest float32
    assert step[1] >= 0.0625  # northing: steps a user sees


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


def test_the_dense_line_survey_samples_runs_along_lines_a_metre_apart():
    # Its raster over flat ground: 5 cm between the points of a line at nadir, 1 m between lines.
    step = np.radians(0.01)
    raster = sim._pushbroom(-3, 1.0, 6, 300.0, np.radians(-0.5), step, 100)
    points, _, _ = box_hits(raster, (-10, -10, -1), (10, 10, 0), edge=5.0)
    lines = points.reshape(6, 100, 3)
    along = np.linalg.norm(np.diff(lines, axis=1), axis=-1)
    across = np.linalg.norm(np.diff(lines, axis=0), axis=-1)
    assert along.max() < 0.06 and along.min() > 0.05
    assert np.allclose(across, 1.0)
    assert "survey_lines" in sim.SENSORS and sim.SCENE_OF["survey_lines"] == "outdoor"
