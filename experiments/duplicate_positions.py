#!/usr/bin/env python3
"""Does a scan's repeated positions cost DISE, judged on the same points? Reads a scan as
scripts/bench_real_planes.py does (its planes and interior points found once, on the points as
stored), then estimates normals twice per method: on every point, and on each distinct position
once (numpy.unique; every point then takes its position's normal). Prints each method's RMSE
inside the planes both ways, over the same points.

    PYTHONPATH=build/python /usr/bin/python3 experiments/duplicate_positions.py \\
        ../shared/data/scans/real/CSite2_orig-utm.pcd --model l3=experiments/runs/L3/dise_k64.safetensors
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import bench_real_planes  # noqa: E402

import pcl_dise  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scan")
    parser.add_argument("--model", action="append", default=[], help="NAME=PATH")
    args = parser.parse_args()
    p = np.asarray(pcl_dise.read_cloud(args.scan).points, dtype=np.float64)
    p = p[np.isfinite(p).all(1) & (np.abs(p).sum(1) > 0)]
    p -= p.mean(0)
    inside, truth = bench_real_planes.interior_points(p, *bench_real_planes.plane_labels(p))
    distinct, position_of = np.unique(p, axis=0, return_inverse=True)
    position_of = position_of.reshape(-1)
    print(f"{len(p)} points, {len(distinct)} distinct positions ({1 - len(distinct) / len(p):.1%} fewer), "
          f"{len(inside)} inside planes")
    methods = {"pca": {"iterations": 0}}
    methods.update({name: {"model": path} for name, path in (m.split("=", 1) for m in args.model)})
    for name, options in methods.items():
        every = pcl_dise.estimate_normals(p, k=64, **options)
        once = pcl_dise.estimate_normals(distinct, k=64, **options)[position_of]
        rmse = [bench_real_planes.summary(bench_real_planes.angles(n[inside], truth))["rmse"] for n in (every, once)]
        print(f"{name}: every point {rmse[0]:.2f}, each position once {rmse[1]:.2f}", flush=True)


if __name__ == "__main__":
    main()
