#!/usr/bin/env python3
"""The Python module against the C++ tool and against Open3D (docs/benchmarks.md#python).

    /usr/bin/python3 scripts/bench_python.py [--build build] [--val build/dataset/val] [--clouds N]

1. Overhead: pcl_dise.estimate_normals against dise_normals' own compute time ("time:" line:
   search + estimation, in process) on the same cloud and options, at 100,000 points (a
   validation cloud) and at 1,000,000 (dise_bench's synthetic cloud); the best of --repeat runs.
2. Against Open3D on validation clouds with true normals: time and unoriented RMSE (degrees) of
   pcl_dise.estimate_normals and Open3D's estimate_normals (k = 64), then oriented: pcl_dise
   with orient="mst" against Open3D's orient_normals_consistent_tangent_plane(10), share of
   normals on the true side and oriented RMSE.
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def best_time(function, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def cpp_compute_time(tool, cloud_file):
    with tempfile.TemporaryDirectory() as folder:
        out = subprocess.run([tool, cloud_file, os.path.join(folder, "out.normals"), "--quiet"], check=True,
                             capture_output=True, text=True).stdout
    return float(re.search(r"time: ([0-9.e+-]+) s", out).group(1))


def angles(normals, truth, oriented):
    cos = np.sum(normals.astype(np.float64) * truth, axis=1) / np.linalg.norm(truth, axis=1)
    cos = cos if oriented else np.abs(cos)
    return np.degrees(np.arccos(np.clip(cos, -1, 1)))


def rmse(a):
    a = a[np.isfinite(a)]
    return float(np.sqrt(np.mean(a ** 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--val", default="build/dataset/val", help="PCPNet-format folder with true normals")
    parser.add_argument("--clouds", type=int, default=6, help="validation clouds against Open3D")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--overhead-only", action="store_true", help="leave out the comparison with Open3D")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import pcl_dise

    tool = os.path.join(args.build, "apps", "dise_normals")
    xyz_files = sorted(f for f in glob.glob(os.path.join(args.val, "*.xyz")) if "ddist" not in f)
    if not xyz_files:
        sys.exit(f"no validation clouds in {args.val} (docs/models.md says how to make them)")

    print(f"## Overhead of the Python call (k = 64, L = 4, all cores; C++ and Python alternating, "
          f"median of {args.repeat} each)\n")
    print("| points | dise_normals compute (s) | pcl_dise.estimate_normals (s) | overhead |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        million = os.path.join(folder, "million.pcd")
        subprocess.run([os.path.join(args.build, "apps", "dise_bench"), "--sizes", "1000000", "--write-cloud", million],
                       check=True, capture_output=True)
        for cloud_file in (xyz_files[0], million):
            points = pcl_dise.read_cloud(cloud_file).points
            # Alternating, so that a slow spell of the machine falls on both sides.
            cpp_times, python_times = [], []
            for _ in range(args.repeat):
                cpp_times.append(cpp_compute_time(tool, cloud_file))
                python_times.append(best_time(lambda: pcl_dise.estimate_normals(points), 1)[0])
            cpp, python = float(np.median(cpp_times)), float(np.median(python_times))
            print(f"| {len(points):,} | {cpp:.3f} | {python:.3f} | {100 * (python / cpp - 1):+.1f}% |")

    if args.overhead_only:
        return
    try:
        import open3d as o3d
    except ImportError:
        print("\nOpen3D is not installed: no comparison with it")
        return
    print("\n## Against Open3D (k = 64; orientation: MST over 10 neighbours)\n")
    print("| cloud | points | pcl_dise (s) | RMSE | Open3D (s) | RMSE | pcl_dise mst (s) | true side | RMSE "
          "| Open3D oriented (s) | true side | RMSE |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    totals = np.zeros(10)
    # Shapes spread over the set, each clean and under noise 1e-2 of its diagonal.
    clean = [f for f in xyz_files if "_noise_" not in os.path.basename(f)]
    shapes = clean[:: max(1, len(clean) // max(1, args.clouds // 2))][: max(1, args.clouds // 2)]
    chosen = [f for s in shapes for f in (s, s[:-4] + "_noise_white_1.00e-02.xyz") if os.path.exists(f)]
    for cloud_file in chosen:
        points = np.loadtxt(cloud_file)
        truth = np.loadtxt(cloud_file[:-4] + ".normals")
        t_dise, dise = best_time(lambda: pcl_dise.estimate_normals(points, orient="none"), 1)
        t_mst, mst = best_time(lambda: pcl_dise.estimate_normals(points, orient="mst"), 1)
        pcd = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points))
        t_o3d, _ = best_time(lambda: pcd.estimate_normals(o3d.geometry.KDTreeSearchParamKNN(65)), 1)
        o3d_normals = np.asarray(pcd.normals).copy()
        t_orient, _ = best_time(lambda: pcd.orient_normals_consistent_tangent_plane(10), 1)
        o3d_oriented = np.asarray(pcd.normals).copy()
        row = [t_dise, rmse(angles(dise, truth, False)), t_o3d, rmse(angles(o3d_normals, truth, False)),
               t_mst, np.mean(np.sum(mst * truth, axis=1) > 0), rmse(angles(mst, truth, True)),
               t_o3d + t_orient, np.mean(np.sum(o3d_oriented * truth, axis=1) > 0),
               rmse(angles(o3d_oriented, truth, True))]
        totals += row
        print(f"| {os.path.basename(cloud_file)[:-4]} | {len(points):,} | {row[0]:.2f} | {row[1]:.2f} | {row[2]:.2f} "
              f"| {row[3]:.2f} | {row[4]:.2f} | {100 * row[5]:.1f}% | {row[6]:.2f} | {row[7]:.2f} "
              f"| {100 * row[8]:.1f}% | {row[9]:.2f} |")
    m = totals / len(chosen)
    print(f"| mean | | {m[0]:.2f} | {m[1]:.2f} | {m[2]:.2f} | {m[3]:.2f} | {m[4]:.2f} | {100 * m[5]:.1f}% | {m[6]:.2f} "
          f"| {m[7]:.2f} | {100 * m[8]:.1f}% | {m[9]:.2f} |")
    print("\nRMSE: degrees against the true normals (unoriented: sign ignored). Open3D oriented time: its "
          "estimation plus orient_normals_consistent_tangent_plane.")


if __name__ == "__main__":
    main()
