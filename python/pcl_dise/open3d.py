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


def _search_options(search_param) -> dict:
    """pcl_dise's neighbourhood options for one of Open3D's search parameters. Open3D's ``knn`` and
    ``max_nn`` count the point itself, as its KD-tree returns it; pcl_dise's ``k`` does not."""
    import open3d

    geometry = open3d.geometry
    if isinstance(search_param, geometry.KDTreeSearchParamKNN):
        if search_param.knn < 2:
            raise ValueError(f"KDTreeSearchParamKNN: knn must be at least 2 (the point and a neighbour), not {search_param.knn}")
        return {"k": search_param.knn - 1}
    if isinstance(search_param, geometry.KDTreeSearchParamHybrid):
        return {"radius": search_param.radius, "max_neighbors": search_param.max_nn}
    if isinstance(search_param, geometry.KDTreeSearchParamRadius):
        return {"radius": search_param.radius}
    raise ValueError("search_param must be an open3d.geometry.KDTreeSearchParamKNN, KDTreeSearchParamRadius or "
                     f"KDTreeSearchParamHybrid, not {type(search_param).__name__}")


def estimate_normals(pcd, search_param=None, **options):
    """Sets the normals of ``pcd`` (an ``open3d.geometry.PointCloud``) by DISE and returns it.

    search_param: Open3D's own ``KDTreeSearchParamKNN(knn)``, ``KDTreeSearchParamRadius(radius)``
    or ``KDTreeSearchParamHybrid(radius, max_nn)``, as ``pcd.estimate_normals`` takes them (knn and
    max_nn count the point itself); None: the options' neighbourhood (k = 64 by default).
    options: those of :func:`pcl_dise.estimate_normals` (k, radius, iterations, orient, ...), not
    k, radius or max_neighbors with search_param. Points without a normal (NaN in pcl_dise) get
    (0, 0, 0), Open3D's value for none.
    """
    import open3d  # noqa: F401  (the caller's Open3D; a clear ImportError where it is missing)

    if search_param is not None:
        given = {"k", "radius", "max_neighbors"} & set(options)
        if given:
            raise ValueError(f"give search_param or {', '.join(sorted(given))}, not both")
        options.update(_search_options(search_param))
    points = np.asarray(pcd.points)  # float64, (N, 3)
    normals = _estimate_normals(points, **options).astype(np.float64)
    normals[~np.isfinite(normals).all(axis=1)] = 0.0
    pcd.normals = open3d.utility.Vector3dVector(normals)
    return pcd
