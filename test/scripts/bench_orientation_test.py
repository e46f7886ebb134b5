"""scripts/bench_orientation.py's measure of thin parts, on clouds whose answer is known exactly: a
slab (its thickness), two slabs facing each other across a gap, and a thick box (no opposite face
within reach). Run by ctest (scripts.bench_orientation) or: /usr/bin/python3 -m pytest test/scripts"""
import importlib.util
import os

import numpy as np
import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "bench_orientation.py")
spec = importlib.util.spec_from_file_location("bench_orientation", SCRIPT)
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
pytest.importorskip("scipy")


def box_surface(lo, hi, rng, count):
    """`count` points uniform on the surface of the box lo..hi (3 each), with outward normals."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    size = hi - lo
    areas = np.array([size[1] * size[2], size[0] * size[2], size[0] * size[1]] * 2)
    faces = rng.choice(6, count, p=areas / areas.sum())
    points = lo + rng.random((count, 3)) * size
    normals = np.zeros((count, 3))
    for face in range(6):
        axis, upper = face % 3, face >= 3
        chosen = faces == face
        points[chosen, axis] = hi[axis] if upper else lo[axis]
        normals[chosen, axis] = 1.0 if upper else -1.0
    return points, normals


def write_shape(folder, name, points, normals, rng):
    base = os.path.join(folder, name)
    np.savetxt(base + ".xyz", points)
    np.savetxt(base + ".normals", normals)
    np.savetxt(base + ".pidx", np.sort(rng.choice(len(points), 2000, replace=False)), fmt="%d")
    return base


def exact_distances(points, normals, boxes):
    """Brute force over the boxes' faces: along each point's normal line, the nearest face of any box
    whose outward normal is the point's reversed (the only faces facing the other way here)."""
    out = np.full(len(points), np.inf)
    for j, (p, n) in enumerate(zip(points, normals)):
        axis = int(np.argmax(np.abs(n)))
        for lo, hi in boxes:
            inside = all(lo[a] <= p[a] <= hi[a] for a in range(3) if a != axis)
            if not inside:
                continue
            plane = lo[axis] if n[axis] > 0 else hi[axis]  # the face whose normal is -n
            distance = abs(plane - p[axis])
            if distance > 1e-12:
                out[j] = min(out[j], distance)
    return out


@pytest.mark.parametrize("boxes", [
    # a slab 1 x 1 x 0.02: its two large faces 0.02 apart (thin), its rims 1 apart
    [((0, 0, 0), (1, 1, 0.02))],
    # two slabs 0.1 thick, 0.015 apart: the gap is thin, the slabs are not
    [((0, 0, 0), (1, 1, 0.1)), ((0, 0, 0.115), (1, 1, 0.215))],
    # a cube: nothing within reach
    [((0, 0, 0), (1, 1, 1))],
])
def test_distances_to_the_opposite_face_match_the_exact_ones(tmp_path, boxes):
    rng = np.random.default_rng(1)
    parts = [box_surface(lo, hi, rng, 60000 // len(boxes)) for lo, hi in boxes]
    points = np.concatenate([p for p, _ in parts])
    normals = np.concatenate([n for _, n in parts])
    base = write_shape(str(tmp_path), "shape", points, normals, rng)
    measured = bench.opposite_face_distances(base)
    pidx = np.loadtxt(base + ".pidx", dtype=np.int64)
    side = np.max(points.max(axis=0) - points.min(axis=0))
    exact = exact_distances(points[pidx], normals[pidx], boxes) / side
    within = exact < bench.OPPOSITE_FACE_DISTANCE
    # Points within a sample spacing of a rim see the rim's other samples: leave out that margin.
    spacing = 1.0 / np.sqrt(60000 / 6)
    rim = np.zeros(len(pidx), bool)
    for lo, hi in boxes:
        for a in range(3):
            near = np.minimum(np.abs(points[pidx, a] - lo[a]), np.abs(points[pidx, a] - hi[a])) < 3 * spacing
            rim |= near & (np.abs(normals[pidx, a]) < 0.5)
    far = ~rim
    # Where the other face's random samples leave a hole around the line, nothing is found (rarely).
    found = np.isfinite(measured)
    assert np.sum(~found & far & within) <= 0.01 * np.sum(far & within)
    np.testing.assert_allclose(measured[far & within & found], exact[far & within & found], rtol=1e-9, atol=1e-9)
    assert np.all(~np.isfinite(measured[far & ~within]) | (measured[far & ~within] >= bench.OPPOSITE_FACE_DISTANCE))


def test_a_shape_has_thin_parts_where_a_quarter_of_it_lies_close_to_an_opposite_face(tmp_path):
    rng = np.random.default_rng(2)
    for name, hi in (("slab", (1, 1, 0.02)), ("cube", (1, 1, 1))):
        points, normals = box_surface((0, 0, 0), hi, rng, 40000)
        write_shape(str(tmp_path), name, points, normals, rng)
    shapes = bench.thin_parts(str(tmp_path), ["slab", "slab_noise_white_1.00e-01", "cube", "cube_ddist_minmax"])
    assert set(shapes) == {"slab", "cube"}
    assert shapes["slab"]["thin_parts"] and shapes["slab"]["close_to_opposite_face"] > 0.9
    assert not shapes["cube"]["thin_parts"] and shapes["cube"]["close_to_opposite_face"] == 0.0
