"""pcl_dise.open3d sets an Open3D cloud's normals (where python3-open3d is installed)."""
import numpy as np
import pytest

import pcl_dise
import pcl_dise.open3d
from conftest import wavy_surface

o3d = pytest.importorskip("open3d")


def test_sets_the_normals_of_an_open3d_cloud():
    points = wavy_surface(3000)
    pcd = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points))
    pcl_dise.open3d.estimate_normals(pcd, k=32, viewpoint=(0, 0, 10))
    normals = np.asarray(pcd.normals)
    np.testing.assert_allclose(normals, pcl_dise.estimate_normals(points, k=32, viewpoint=(0, 0, 10)), atol=0)
    assert pcd.has_normals()
