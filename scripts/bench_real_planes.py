#!/usr/bin/python3
"""Normals on real sensor noise, judged inside planes (docs/models.md#real-scans-and-simulated-sensors).

    /usr/bin/python3 scripts/bench_real_planes.py [--build build] [--out build/eval/real_planes.json]
        [--model NAME=PATH ...] [--scans DIR_OR_FILE ...] [--kinect-plane]

In each real scan (../shared/data/scans/*.pcd and scans/real/*.pcd by default) the large planes
are found (Open3D's RANSAC, threshold 0.4% of the scan's extent, then a least-squares refit over
their inliers); a point counts where all of its 65 nearest neighbours lie on the same plane, and
its truth is that plane's normal. Per scan and method: the RMSE, median and 90th percentile of the
unoriented angle (degrees), k = 64. Methods: PCA (iterations 0), the shipped model, the paper's
published weights where ../shared/reference holds them, and every --model. Each scan runs in a
process of its own; its planes are found once and every method is measured on them. Open3D's
RANSAC (0.16) does not draw the same planes in every run, so a few scans' figures move from run
to run by up to about 2 degrees: compare methods within one run (the ratios to PCA). --kinect-plane adds a plane 1.2-5.2 m before a simulated Kinect v1 (axial
noise, then integer disparity): the whole frame, and each metre of depth as a cloud of its own.
Prints a Markdown table: each method's RMSE and its ratio to PCA's, and the mean ratio.
"""
import argparse
import glob
import json
import os
import subprocess
import sys

import numpy as np

import bench_methods
from bench_methods import SHARED


def angles(normals, truth):
    """Unoriented angle in degrees, by the chord in double (NaN normals stay NaN)."""
    n = normals.astype(np.float64)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    cos = np.abs(n @ truth) if truth.ndim == 1 else np.abs(np.sum(n * truth, 1))
    return np.degrees(np.arccos(np.clip(cos, 0, 1)))


def summary(errors):
    errors = errors[np.isfinite(errors)]
    return {"rmse": float(np.sqrt(np.mean(errors ** 2))), "median": float(np.median(errors)),
            "p90": float(np.percentile(errors, 90)), "points": int(len(errors))}


def plane_labels(points):
    """The scan's large planes: each point's plane (-1: none) and the planes' unit normals (P x 3)."""
    import open3d as o3d
    o3d.utility.random.seed(0)
    threshold = 0.004 * np.ptp(points, axis=0).max()
    rest, normals = np.arange(len(points)), []
    label = np.full(len(points), -1)
    for _ in range(6):
        if len(rest) < 8000:
            break
        cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points[rest]))
        _, inliers = cloud.segment_plane(distance_threshold=threshold, ransac_n=3, num_iterations=2000)
        if len(inliers) < 8000:
            break
        idx = rest[np.asarray(inliers)]
        q = points[idx] - points[idx].mean(0)
        label[idx] = len(normals)
        normals.append(np.linalg.eigh(q.T @ q)[1][:, 0])
        rest = np.setdiff1d(rest, idx)
    return label, np.array(normals).reshape(-1, 3)


def interior_points(points, label, planes):
    """Points deep inside a plane (all 65 nearest on it; up to about 4,000 per plane) and each one's plane normal."""
    import open3d as o3d
    tree = o3d.geometry.KDTreeFlann(o3d.geometry.PointCloud(o3d.utility.Vector3dVector(points)))
    inside, truth = [], []
    for j, normal in enumerate(planes):
        idx = np.nonzero(label == j)[0]
        for q in idx[:: max(1, len(idx) // 4000)]:
            _, nn, _ = tree.search_knn_vector_3d(points[q], 65)
            if (label[np.asarray(nn)] == j).all():
                inside.append(q)
                truth.append(normal)
    return np.array(inside, int), np.array(truth).reshape(-1, 3)


def one_scan(path, methods):
    import pcl_dise
    cloud = pcl_dise.read_cloud(path)
    p = np.asarray(cloud.points, dtype=np.float64)
    p = p[np.isfinite(p).all(1) & (np.abs(p).sum(1) > 0)]
    p -= p.mean(0)  # georeferenced scans: float keeps its precision near the origin
    inside, truth = interior_points(p, *plane_labels(p))
    row = {"points": int(len(p)), "interior": int(len(inside))}
    if len(inside) == 0:
        return row
    for name, options in methods.items():
        normals = pcl_dise.estimate_normals(p, k=64, **options)
        row[name] = summary(angles(normals[inside], truth))
    return row


def kinect_plane(methods):
    """A plane seen by a simulated Kinect v1 (640x480, fx 525), its normal known."""
    import pcl_dise
    fx, cx, cy = 525.0, 319.5, 239.5
    u, v = np.meshgrid(np.arange(640), np.arange(480))
    rays = np.stack([(u - cx) / fx, (v - cy) / fx, np.ones_like(u, float)], -1).reshape(-1, 3)
    normal = np.array([0.0, -0.8, -0.6])
    depth = -1.2 / (rays @ normal)
    valid = (depth > 0.5) & (depth < 6)
    noisy = depth + np.random.default_rng(0).normal(0, 1, depth.shape) * 1.425e-3 * depth ** 2
    disparity = np.round((3.3309495161 - 1.0 / depth) / 0.0030711016)
    quantised = 1.0 / (3.3309495161 - 0.0030711016 * disparity)
    out = {}
    for case, z in (("axial_noise", noisy), ("quantised", quantised)):
        points = rays * z[:, None]
        for name, options in methods.items():
            whole = summary(angles(pcl_dise.estimate_normals(points[valid], **options), normal))["rmse"]
            slices = [summary(angles(pcl_dise.estimate_normals(points[valid & (depth > lo) & (depth < hi)], **options),
                                     normal))["rmse"] for lo, hi in ((1.2, 2), (2, 3), (3, 4), (4, 5.2))]
            out.setdefault(case, {})[name] = {"whole": whole, "slices": slices}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    bench_methods.add_options(parser)
    parser.add_argument("--scans", nargs="*", default=None)
    parser.add_argument("--kinect-plane", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # internal: one scan, JSON on stdout
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    methods = bench_methods.methods(args)
    if args.one:
        print(json.dumps(one_scan(args.one, methods)))
        return
    scans = []
    for entry in args.scans or [os.path.join(SHARED, "data", "scans"), os.path.join(SHARED, "data", "scans", "real")]:
        scans += sorted(glob.glob(os.path.join(entry, "*.pcd"))) if os.path.isdir(entry) else [entry]
    results = {"methods": list(methods), "scans": {}}
    for scan in scans:
        command = [sys.executable, __file__, "--build", args.build, "--one", scan]
        command += [a for m in args.model for a in ("--model", m)] + (["--no-published"] if args.no_published else [])
        run = subprocess.run(command, capture_output=True, text=True)
        name = os.path.basename(scan)
        if run.returncode != 0:
            print(f"{name}: failed ({run.returncode}): {run.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            continue
        row = json.loads(run.stdout.strip().splitlines()[-1])
        results["scans"][name] = row
        if "pca" in row:
            print(name, " ".join(f"{m} {row[m]['rmse']:.2f}" for m in methods), flush=True)
        else:
            print(name, "no plane interior", flush=True)
    if args.kinect_plane:
        results["kinect_plane"] = kinect_plane(methods)
    measured = {n: r for n, r in results["scans"].items() if "pca" in r}
    if not measured:
        bench_methods.write(args.out, results)
        sys.exit("bench_real_planes: no scan has a plane interior to measure")
    ratios = {m: [r[m]["rmse"] / r["pca"]["rmse"] for r in measured.values()] for m in methods}
    results["mean_ratio_to_pca"] = {m: float(np.mean(v)) for m, v in ratios.items() if v}
    results["worst_ratio_to_pca"] = {m: float(np.max(v)) for m, v in ratios.items() if v}
    print("\n| scan | " + " | ".join(methods) + " |\n|---|" + "---|" * len(methods))
    for name, row in measured.items():
        print(f"| `{name}` | " + " | ".join(f"{row[m]['rmse']:.2f}" + ("" if m == "pca" else
                                             f" ({row[m]['rmse'] / row['pca']['rmse']:.2f}x)") for m in methods) + " |")
    print("| mean ratio to PCA | " + " | ".join(f"{results['mean_ratio_to_pca'][m]:.2f}" for m in methods) + " |")
    print("| worst ratio to PCA | " + " | ".join(f"{results['worst_ratio_to_pca'][m]:.2f}" for m in methods) + " |")
    if args.kinect_plane:
        for case, row in results["kinect_plane"].items():
            print(f"kinect plane, {case}: " + "; ".join(
                f"{m} {r['whole']:.2f} (slices {' / '.join(f'{s:.1f}' for s in r['slices'])})" for m, r in row.items()))
    bench_methods.write(args.out, results)


if __name__ == "__main__":
    main()
