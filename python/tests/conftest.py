"""Shared fixtures: the repository's clouds, the build's dise_normals, synthetic surfaces."""
import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("PCL_DISE_BUILD_DIR", REPO / "build"))


@pytest.fixture(scope="module")
def bunny():
    """PCL's bun0.pcd (397 points), float64."""
    import pcl_dise

    return pcl_dise.read_cloud(REPO / "data" / "clouds" / "bun0.pcd").points


@pytest.fixture(scope="module")
def dise_normals():
    tool = BUILD / "apps" / "dise_normals"
    if not tool.exists():
        pytest.skip("dise_normals is not built")
    return tool


def sphere(n, seed=0, radius=1.0):
    """n points on a sphere (float64) and their outward normals."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return radius * d, d


def wavy_surface(n, seed=0):
    """n points of z = 0.1 sin(3x) cos(2y) over [-1, 1]^2 (float64)."""
    rng = np.random.default_rng(seed)
    xy = rng.uniform(-1, 1, size=(n, 2))
    z = 0.1 * np.sin(3 * xy[:, 0]) * np.cos(2 * xy[:, 1])
    return np.column_stack([xy, z])


def angles_deg(a, b):
    """Per row, the angle between two normals regardless of their signs."""
    cos = np.abs(np.sum(a.astype(np.float64) * b.astype(np.float64), axis=1))
    return np.degrees(np.arccos(np.clip(cos, 0.0, 1.0)))
