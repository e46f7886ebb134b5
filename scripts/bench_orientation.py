#!/usr/bin/env python3
"""Orientation accuracy and time on a dise_make_dataset folder: DISE normals (dise_normals --orient
none) oriented by dise_orient and, side by side, by Open3D's orient_normals_consistent_tangent_plane
on the same normals (Debian: python3-open3d; left out where it is not installed).

A point counts as facing outward where its oriented normal has a positive dot product with the
ground-truth normal (the mesh's outward face normal). Open3D leaves each graph part's sign as its
first point had it, so it is also given "up to one sign": the better of the two signs per cloud.

dise_orient runs with --closed (the dataset's clouds sample closed shapes) unless --tree-only.

Usage: scripts/bench_orientation.py build/dataset/val [--prefix validationset]
       [--categories no_noise low_noise] [--k 10] [--tree-only] [--no-open3d] [--build build]
       [--work /tmp/bench_orientation]
"""
import argparse
import importlib.util
import os
import subprocess
import sys
import time

CATEGORY_NAMES = {"no_noise": "clean", "low_noise": "noise 1e-2", "med_noise": "noise 5e-2",
                  "high_noise": "noise 1e-1", "vardensity_striped": "striped", "vardensity_gradient": "gradient"}


def read_triples(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3:
                rows.append([float(v) for v in parts[:3]])
    return rows


def facing(normals, truth):
    good = sum(1 for n, t in zip(normals, truth) if n[0] * t[0] + n[1] * t[1] + n[2] * t[2] > 0)
    return good / len(truth)


def run(command):
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit("failed: " + " ".join(command) + "\n" + result.stdout + result.stderr)
    return result.stdout


def ours(build, cloud, normals, out, k, closed):
    text = run([os.path.join(build, "apps", "dise_orient"), cloud, normals, out, "--k", str(k)] + (["--closed"] if closed else []))
    seconds = float(text.split("time: ")[1].split(" s")[0])
    return read_triples(out), seconds


OPEN3D_CHILD = r"""
import sys, time, numpy as np, open3d as o3d
xyz, normals, out, k = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cloud = o3d.geometry.PointCloud(o3d.utility.Vector3dVector(np.loadtxt(xyz, usecols=(0, 1, 2))))
cloud.normals = o3d.utility.Vector3dVector(np.loadtxt(normals))
start = time.perf_counter()
cloud.orient_normals_consistent_tangent_plane(k)
print(time.perf_counter() - start)
np.savetxt(out, np.asarray(cloud.normals))
"""


def open3d_orient(cloud, normals, out, k, timeout):
    """Open3D in a child process, so that a stall (Open3D #4983) costs `timeout`, not the run."""
    try:
        result = subprocess.run([sys.executable, "-c", OPEN3D_CHILD, cloud, normals, out, str(k)],
                                capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None
    if result.returncode != 0:
        sys.exit("Open3D failed on " + cloud + ":\n" + result.stderr)
    return read_triples(out), float(result.stdout.split()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset")
    parser.add_argument("--prefix", default="validationset")
    parser.add_argument("--categories", nargs="+", default=["no_noise", "low_noise"])
    parser.add_argument("--k", type=int, default=10, help="propagation neighbours (both methods)")
    parser.add_argument("--tree-only", action="store_true",
                        help="dise_orient without --closed (the clouds sample closed shapes: --closed by default)")
    parser.add_argument("--build", default="build")
    parser.add_argument("--work", default="/tmp/bench_orientation")
    parser.add_argument("--open3d-timeout", type=float, default=60)
    parser.add_argument("--no-open3d", action="store_true", help="leave Open3D's columns out")
    args = parser.parse_args()
    with_open3d = not args.no_open3d and importlib.util.find_spec("open3d") is not None
    if not with_open3d and not args.no_open3d:
        print("(Open3D not found: apt-get install python3-open3d, and run this with Debian's /usr/bin/python3; "
              "its columns are left out)")
    os.makedirs(args.work, exist_ok=True)

    print(f"{'cloud':<48} {'ours %':>8} {'s':>6}" + (f" {'Open3D %':>9} {'up to sign %':>13} {'s':>7}" if with_open3d else ""))
    for category in args.categories:
        with open(os.path.join(args.dataset, f"{args.prefix}_{category}.txt")) as f:
            names = [line.strip() for line in f if line.strip()]
        rows = []
        for name in names:
            cloud = os.path.join(args.dataset, name + ".xyz")
            truth = read_triples(os.path.join(args.dataset, name + ".normals"))
            normals = os.path.join(args.work, name + ".dise.normals")
            if not os.path.exists(normals):  # DISE's unoriented normals, kept between runs
                run([os.path.join(args.build, "apps", "dise_normals"), cloud, normals, "--orient", "none"])
            mine, mine_s = ours(args.build, cloud, normals, os.path.join(args.work, name + ".ours.normals"), args.k,
                                  not args.tree_only)
            row = [facing(mine, truth), mine_s]
            line = f"{name:<48} {100 * row[0]:8.2f} {mine_s:6.2f}"
            if with_open3d:
                theirs, theirs_s = open3d_orient(cloud, normals, os.path.join(args.work, name + ".open3d.normals"), args.k,
                                          args.open3d_timeout)
                if theirs is None:
                    row += [None, None, None]
                    line += f" {'stalled':>9} {'':>13} {'>' + str(int(args.open3d_timeout)):>7}"
                else:
                    f3 = facing(theirs, truth)
                    row += [f3, max(f3, 1 - f3), theirs_s]
                    line += f" {100 * f3:9.2f} {100 * max(f3, 1 - f3):13.2f} {theirs_s:7.2f}"
            print(line, flush=True)
            rows.append(row)

        def summary(column):
            values = [r[column] for r in rows if r[column] is not None]
            return (sum(values) / len(values), min(values)) if values else (float("nan"), float("nan"))

        mean, worst = summary(0)
        line = (f"{CATEGORY_NAMES.get(category, category) + ': mean (worst)':<48} {100 * mean:8.2f} "
                f"{summary(1)[0]:6.2f}")
        if with_open3d:
            m3, _ = summary(2)
            s3, _ = summary(3)
            stalled = sum(1 for r in rows if r[2] is None)
            line += f" {100 * m3:9.2f} {100 * s3:13.2f} {summary(4)[0]:7.2f}" + (f"  ({stalled} stalled)" if stalled else "")
        print(line + f"\n{'':<48} worst ours {100 * worst:.2f}%\n", flush=True)


if __name__ == "__main__":
    main()
