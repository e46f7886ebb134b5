"""estimate_normals, Estimator and orient_normals against the C++ tools and known surfaces."""
import subprocess

import numpy as np
import pytest

import pcl_dise
from conftest import angles_deg, sphere, wavy_surface


def test_version():
    assert pcl_dise.__version__.count(".") == 2


def test_equals_dise_normals_bit_for_bit(bunny, dise_normals, tmp_path):
    # The coordinates as text that reads back to the same doubles.
    xyz = tmp_path / "bunny.xyz"
    np.savetxt(xyz, bunny, fmt="%.17g")
    for extra in ([], ["--k", "32"], ["--radius", "0.01", "--max-neighbors", "40"], ["--orient", "mst"]):
        out = tmp_path / "out.pcd"
        subprocess.run([str(dise_normals), str(xyz), str(out), *extra], check=True, capture_output=True)
        written = pcl_dise.read_cloud(out)
        expected = np.column_stack([written.fields[f"normal_{c}"] for c in "xyz"]).astype(np.float32)
        options = {"k": 32} if "--k" in extra else {"radius": 0.01, "max_neighbors": 40} if "--radius" in extra else {}
        if "--orient" in extra:
            options["orient"] = "mst"
        normals, curvature = pcl_dise.estimate_normals(bunny, return_curvature=True, **options)
        assert normals.dtype == np.float32 and normals.shape == bunny.shape
        np.testing.assert_array_equal(normals, expected)
        np.testing.assert_array_equal(curvature, written.fields["curvature"].astype(np.float32))


def test_bf16_precision_is_close_to_float_and_equals_dise_normals(bunny, dise_normals, tmp_path):
    expected = pcl_dise.estimate_normals(bunny)
    normals = pcl_dise.estimate_normals(bunny, precision="bf16")
    if not pcl_dise.bfloat16_available():
        np.testing.assert_array_equal(normals, expected)  # runs in float here
        assert pcl_dise.native_instruction_set("bf16") == pcl_dise.native_instruction_set()
        return
    assert pcl_dise.native_instruction_set("bf16") == "AVX-512 BF16"
    assert not np.array_equal(normals, expected)
    angle = angles_deg(normals, expected)  # 397 points: sparse, where bfloat16 moves normals most
    assert np.median(angle) < 0.5 and np.percentile(angle, 99) < 10.0
    xyz = tmp_path / "bunny.xyz"
    np.savetxt(xyz, bunny, fmt="%.17g")
    out = tmp_path / "out.pcd"
    subprocess.run([str(dise_normals), str(xyz), str(out), "--precision", "bf16"], check=True, capture_output=True)
    written = pcl_dise.read_cloud(out)
    np.testing.assert_array_equal(normals, np.column_stack([written.fields[f"normal_{c}"] for c in "xyz"]))


def test_float32_and_float64_agree(bunny):
    a = pcl_dise.estimate_normals(bunny)
    b = pcl_dise.estimate_normals(bunny.astype(np.float32))
    np.testing.assert_array_equal(a, b)  # these coordinates are floats already


def test_structured_and_strided_arrays(bunny):
    expected = pcl_dise.estimate_normals(bunny)
    pdal = np.zeros(len(bunny), dtype=[("X", "f8"), ("Y", "f8"), ("Z", "f8"), ("Intensity", "u2")])
    for i, c in enumerate("XYZ"):
        pdal[c] = bunny[:, i]
    np.testing.assert_array_equal(pcl_dise.estimate_normals(pdal), expected)
    np.testing.assert_array_equal(pcl_dise.estimate_normals(np.asfortranarray(bunny)), expected)
    wide = np.zeros((len(bunny), 6))
    wide[:, ::2] = bunny
    np.testing.assert_array_equal(pcl_dise.estimate_normals(wide[:, ::2]), expected)


def test_utm_offsets_give_the_normals_at_the_origin():
    local = wavy_surface(20000, seed=1)
    far = local + np.array([5e5, 5e6, 300.0])
    a = pcl_dise.estimate_normals(local, orient="none")
    b = pcl_dise.estimate_normals(far, orient="none")
    angle = angles_deg(a, b)
    assert np.median(angle) < 0.01
    assert np.mean(angle < 0.5) >= 0.999


def test_viewpoint_flip():
    points = wavy_surface(3000)
    up = pcl_dise.estimate_normals(points, viewpoint=(0, 0, 10))
    down = pcl_dise.estimate_normals(points, viewpoint=(0, 0, -10))
    assert np.all(up[:, 2] > 0) and np.all(down[:, 2] < 0)


def test_consistent_orientation_of_a_sphere():
    points, outward = sphere(5000)
    normals = pcl_dise.estimate_normals(points, orient="closed")
    assert np.mean(np.sum(normals * outward, axis=1) > 0) >= 0.99
    scrambled = normals * np.where(np.random.default_rng(2).random(len(points)) < 0.5, -1, 1)[:, None]
    oriented, report = pcl_dise.orient_normals(points, scrambled, closed=True, return_report=True)
    assert np.mean(np.sum(oriented * outward, axis=1) > 0) >= 0.99
    assert report["oriented"] == len(points)
    assert report["outside_grid"] and not report["parity_checked"] and not report["wall_middles"]
    assert report["parity_flipped"] == 0  # the grid left no patch of a clean sphere unsure
    seeded = pcl_dise.orient_normals(points, scrambled, seed=0)
    assert np.sign(np.dot(seeded[0], scrambled[0])) > 0  # the seed keeps its sign


def test_unsure_points_read_the_winding_number_of_the_sure_ones():
    # eight unit spheres in a row, 0.002 apart: the outside grid's band fills the gaps and leaves
    # the points around them unsure; the winding number of the sure points turns them outward
    chain = [sphere(1200, seed=20 + b) for b in range(8)]
    points = np.concatenate([p + [2.002 * b, 0, 0] for b, (p, _) in enumerate(chain)])
    outward = np.concatenate([o for _, o in chain])
    scrambled = outward * np.where(np.random.default_rng(3).random(len(points)) < 0.5, -1, 1)[:, None]
    oriented, report = pcl_dise.orient_normals(points, scrambled, closed=True, return_report=True)
    assert report["outside_grid"] and report["winding_flipped"] > 0
    assert np.mean(np.sum(oriented * outward, axis=1) > 0) >= 0.97


def test_orientation_confidence():
    points, outward = sphere(5000)
    result = pcl_dise.Estimator(orient="closed").compute(points)
    assert result.orientation_confidence.shape == (len(points),)
    assert np.all((result.orientation_confidence >= 0) & (result.orientation_confidence <= 1))
    assert pcl_dise.Estimator(orient="viewpoint").compute(points).orientation_confidence is None
    normals = result.normals.copy()
    normals[7] = np.nan
    oriented, report, confidence = pcl_dise.orient_normals(points, normals, closed=True, return_report=True,
                                                           return_confidence=True)
    assert np.isnan(confidence[7]) and np.isfinite(np.delete(confidence, 7)).all()
    assert report["low_confidence"] == int(np.sum(np.delete(confidence, 7) < 0.5))
    only, confidence_only = pcl_dise.orient_normals(points, normals, return_confidence=True)
    assert only.shape == points.shape and confidence_only.shape == (len(points),)


def test_estimator_iterations_and_kernel_weights(bunny):
    estimator = pcl_dise.Estimator(k=32, store_iterations=True)
    assert estimator.model_path.endswith("dise_k32.safetensors")
    result = estimator.compute(bunny, weights_of=[0, 5])
    assert len(result.iterations) == 5  # PCA and four iterations
    np.testing.assert_array_equal(result.iterations[-1], result.normals)
    neighbours, weights = result.kernel_weights[1]
    assert len(neighbours) == len(weights) > 0 and np.all(weights >= 0)
    again = estimator.compute(bunny)  # reusable
    np.testing.assert_array_equal(again.normals, result.normals)


def test_pca_only_needs_no_model(bunny):
    normals = pcl_dise.estimate_normals(bunny, iterations=0)
    assert np.isfinite(normals).all()


def test_progress_is_monotone_and_ends_at_one():
    points = wavy_surface(50000)
    seen = []
    pcl_dise.estimate_normals(points, progress=seen.append)
    assert seen and seen[-1] == 1.0 and all(a <= b for a, b in zip(seen, seen[1:]))


def test_indices_give_the_whole_clouds_values_at_those_points(bunny):
    # As PCL's setIndices: a few points over the whole cloud, only their receptive field estimated.
    points = np.concatenate([bunny, wavy_surface(20000, seed=4) + [1.0, 0.0, 0.0]])
    picked = [5, 390, 17, 17, 1000, 20396]
    for options in ({}, {"radius": 0.01}, {"k": 32, "orient": "up"}):
        every = pcl_dise.estimate_normals(points, **options)
        some, curvature = pcl_dise.estimate_normals(points, indices=picked, return_curvature=True, **options)
        assert some.shape == (len(picked), 3) and curvature.shape == (len(picked),)
        np.testing.assert_array_equal(some, every[picked])
    estimator = pcl_dise.Estimator(store_iterations=True)
    result = estimator.compute(points, indices=picked, weights_of=[390])
    assert len(result.iterations) == 5 and result.iterations[4].shape == (len(picked), 3)
    ids, weights = result.kernel_weights[0]
    assert len(ids) == 65 and weights.sum() == pytest.approx(1.0, abs=1e-5)
    with pytest.raises(ValueError, match="indices"):
        pcl_dise.estimate_normals(points, indices=[len(points)])
    with pytest.raises(ValueError, match="among them"):
        estimator.compute(points, indices=picked, weights_of=[6])
    with pytest.raises(ValueError, match="whole cloud"):
        pcl_dise.estimate_normals(points, indices=picked, orient="mst")


def test_coincident_points_get_nan_and_cost_what_distinct_points_cost(bunny):
    # Invalid pixels written as zeros: each stacked point's neighbourhood is one position, no plane.
    points = np.concatenate([bunny, np.zeros((20000, 3))])
    normals = pcl_dise.estimate_normals(points, k=32)
    assert np.isfinite(normals[: len(bunny)]).all()
    assert np.isnan(normals[len(bunny):]).all()
