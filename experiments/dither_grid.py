#!/usr/bin/env python3
"""A georeferenced cloud stored in float32 lies on a grid (0.5 m across y at UTM northings). Writes
two copies of such a PCD for scripts/bench_real_planes.py --scans: moved by a whole-metre offset
(the grid kept), and each coordinate dithered uniformly over the float32 step it was stored with
(the grid gone); with --voxel SIZE also the moved copy thinned by Open3D's voxel grid (one point
per SIZE cube). Run L2's diagnosis (experiments/EXPERIMENTS.md) used it on CSite2_orig-utm.pcd.

    PYTHONPATH=build/python /usr/bin/python3 experiments/dither_grid.py \\
        ../shared/data/scans/real/CSite2_orig-utm.pcd /tmp/csite
"""
import argparse
import os

import numpy as np

import pcl_dise


def write_pcd(path: str, points: np.ndarray) -> None:
    with open(path, "w") as f:
        f.write("# .PCD v0.7\nVERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\n"
                f"WIDTH {len(points)}\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS {len(points)}\nDATA ascii\n")
        np.savetxt(f, points, fmt="%.4f")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cloud")
    parser.add_argument("out_dir")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--voxel", type=float, nargs="*", default=[], help="voxel sizes for thinned copies")
    args = parser.parse_args()
    points = pcl_dise.read_cloud(args.cloud).points
    offset = np.floor(points.min(axis=0))
    # The float32 step at the stored coordinates, per axis.
    step = np.array([np.spacing(np.float32(abs(offset[a]) + 100)) for a in range(3)], dtype=np.float64)
    local = points - offset
    dithered = local + np.random.default_rng(args.seed).uniform(-0.5, 0.5, size=local.shape) * step
    os.makedirs(args.out_dir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.cloud))[0]
    write_pcd(os.path.join(args.out_dir, stem + "_local.pcd"), local)
    write_pcd(os.path.join(args.out_dir, stem + "_dithered.pcd"), dithered)
    for size in args.voxel:
        import open3d as o3d
        cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(local))
        thinned = np.asarray(cloud.voxel_down_sample(size).points)
        write_pcd(os.path.join(args.out_dir, f"{stem}_voxel{round(100 * size)}cm.pcd"), thinned)
    print(f"offset {offset}, float32 steps {step}")


if __name__ == "__main__":
    main()
