"""Open3D interoperation: DISE normals for an ``open3d.geometry.PointCloud``.

    >>> import open3d as o3d, pcl_dise.open3d
    >>> pcd = o3d.io.read_point_cloud("scan.ply")
    >>> pcl_dise.open3d.estimate_normals(pcd)          # sets pcd.normals, as pcd.estimate_normals() does

Open3D is imported only when a function here is called.
"""

from __future__ import annotations

import numpy as np

from . import estimate_normals as _estimate_normals

__all__ = ["estimate_normals"]


def estimate_normals(pcd, **options):
    """Sets the normals of ``pcd`` (an ``open3d.geometry.PointCloud``) by DISE and returns it.

    options: those of :func:`pcl_dise.estimate_normals` (k, radius, iterations, orient, ...).
    Points without a normal (NaN in pcl_dise) get (0, 0, 0), Open3D's value for none.
    """
    import open3d  # noqa: F401  (the caller's Open3D; a clear ImportError where it is missing)

    points = np.asarray(pcd.points)  # float64, (N, 3)
    normals = _estimate_normals(points, **options).astype(np.float64)
    normals[~np.isfinite(normals).all(axis=1)] = 0.0
    pcd.normals = open3d.utility.Vector3dVector(normals)
    return pcd
