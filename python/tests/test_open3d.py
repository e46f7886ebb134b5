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


def test_takes_open3ds_own_search_parameters():
    # As pcd.estimate_normals(search_param=...): knn and max_nn count the point itself.
    points = wavy_surface(3000)
    cases = [(o3d.geometry.KDTreeSearchParamKNN(knn=33), {"k": 32}),
             (o3d.geometry.KDTreeSearchParamRadius(radius=0.08), {"radius": 0.08}),
             (o3d.geometry.KDTreeSearchParamHybrid(radius=0.08, max_nn=40), {"radius": 0.08, "max_neighbors": 40})]
    for search_param, options in cases:
        pcd = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points))
        pcl_dise.open3d.estimate_normals(pcd, search_param=search_param, iterations=2)
        expected = np.nan_to_num(pcl_dise.estimate_normals(points, iterations=2, **options), nan=0.0)
        np.testing.assert_array_equal(np.asarray(pcd.normals), expected)
    pcd = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points))
    with pytest.raises(ValueError, match="not both"):
        pcl_dise.open3d.estimate_normals(pcd, search_param=o3d.geometry.KDTreeSearchParamKNN(knn=10), k=9)
    with pytest.raises(ValueError, match="search_param must be"):
        pcl_dise.open3d.estimate_normals(pcd, search_param=10)
