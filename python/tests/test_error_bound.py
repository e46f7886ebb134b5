"""Each normal's error bound (docs/models.md#error-bounds): where it comes from, its shape, and
that it follows the calibration the model file carries."""
import json

import numpy as np
import pytest

import pcl_dise
from pcl_dise import _native

from conftest import wavy_surface


def calibrated_model(tmp_path, scale=40.0):
    """The shipped model with a calibration learnt on made-up pairs: error = scale * sqrt(curvature)."""
    curvature = np.logspace(-6, -0.5, 2000)
    path = tmp_path / "calibrated.safetensors"
    _native.calibrate_error_bound(pcl_dise.default_model_path(64), str(path), curvature.tolist(),
                                  (scale * np.sqrt(curvature)).tolist(), 0.9, 24)
    return path


def test_a_calibrated_model_gives_each_normal_a_bound_that_grows_with_its_curvature(tmp_path):
    points = wavy_surface(3000)
    normals, curvature, bound = pcl_dise.estimate_normals(points, model=calibrated_model(tmp_path),
                                                          return_curvature=True, return_error=True)
    assert bound.shape == (3000,) and bound.dtype == np.float32
    assert np.all(np.isfinite(bound)) and np.all(bound >= 0)
    order = np.argsort(curvature)
    assert np.all(np.diff(bound[order]) >= -1e-4)  # never tighter for more variation
    # The calibration said 40 sqrt(c): the bound follows it between its knots.
    inside = (curvature > 1e-5) & (curvature < 0.2)
    np.testing.assert_allclose(bound[inside], 40 * np.sqrt(curvature[inside]), rtol=0.25)
    # The normals themselves do not change.
    np.testing.assert_array_equal(normals, pcl_dise.estimate_normals(points, model=calibrated_model(tmp_path)))


def test_no_calibration_or_no_iterations_gives_no_bound(tmp_path):
    points = wavy_surface(500)
    # The shipped model's file without its calibration (a safetensors header is its length and JSON).
    data = open(pcl_dise.default_model_path(64), "rb").read()
    length = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + length])
    header.get("__metadata__", {}).pop("error_bound", None)
    text = json.dumps(header).encode()
    uncalibrated = tmp_path / "plain.safetensors"
    uncalibrated.write_bytes(len(text).to_bytes(8, "little") + text + data[8 + length:])
    assert pcl_dise.Estimator(model=uncalibrated).compute(points).error_bound is None
    assert pcl_dise.Estimator(iterations=0).compute(points).error_bound is None
    row = pcl_dise.Estimator(model=calibrated_model(tmp_path)).compute(points, indices=[3, 4]).error_bound
    assert row.shape == (2,)


def test_a_calibration_that_cannot_be_learnt_is_an_error(tmp_path):
    with pytest.raises(ValueError):
        _native.calibrate_error_bound(pcl_dise.default_model_path(64), str(tmp_path / "m.safetensors"), [0.1], [1.0],
                                      0.9, 24)
