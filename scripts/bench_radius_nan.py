#!/usr/bin/env python3
"""Radius runs where some points have no normal: how DISE's rule for a neighbour without a normal
(it stays in the neighbourhood, read as the zero vector; docs/algorithm.md) does against PCA.

For every cloud of a PCPNet-format folder (dise_make_dataset's NAME.xyz and NAME.normals, listed in
PREFIX_all.txt) and each radius (a multiple of the cloud's median distance to its 8th neighbour),
it counts the points without a normal (PCL's rule: fewer than 3 points within the radius), checks
that DISE gives a normal exactly where PCA does, and prints the angle RMSE (unoriented, degrees) of
PCA and DISE over all points with a normal and over the points with a neighbour that has none
(the points the rule decides). One line per radius, averaged over the clouds, and --json.

    /usr/bin/python3 scripts/bench_radius_nan.py /tmp/val15k --prefix validationset

Needs the built module (PYTHONPATH=build/python) and SciPy (the neighbour counts).
"""
import argparse
import json
import pathlib
import sys

import numpy as np
from scipy.spatial import cKDTree

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build" / "python"))
import pcl_dise  # noqa: E402


def rmse_deg(normals, truth):
    """Unoriented angle RMSE in degrees, by the chord in double (equal normals give 0)."""
    a = normals.astype(np.float64)
    b = truth.astype(np.float64)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b /= np.linalg.norm(b, axis=1, keepdims=True)
    chord = np.minimum(np.linalg.norm(a - b, axis=1), np.linalg.norm(a + b, axis=1))
    angles = np.degrees(2 * np.arcsin(np.clip(chord / 2, 0, 1)))
    return float(np.sqrt(np.mean(angles ** 2))) if len(angles) else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--prefix", default="validationset")
    parser.add_argument("--scales", default="1.0,1.5,2.5", help="radii as multiples of the median 8th-neighbour distance")
    parser.add_argument("--json")
    args = parser.parse_args()
    folder = pathlib.Path(args.folder)
    names = [line.strip() for line in (folder / f"{args.prefix}_all.txt").read_text().split() if line.strip()]
    scales = [float(s) for s in args.scales.split(",")]
    rows = []
    for scale in scales:
        totals = {"clouds": 0, "points": 0, "without": 0, "decided": 0, "mismatch": 0,
                  "pca_all": [], "dise_all": [], "pca_decided": [], "dise_decided": []}
        for name in names:
            points = np.loadtxt(folder / f"{name}.xyz")
            truth = np.loadtxt(folder / f"{name}.normals")
            tree = cKDTree(points)
            spacing = float(np.median(tree.query(points, k=9)[0][:, 8]))
            radius = scale * spacing
            pca = pcl_dise.estimate_normals(points, radius=radius, iterations=0)
            dise = pcl_dise.estimate_normals(points, radius=radius)
            has = np.isfinite(pca[:, 0])
            totals["mismatch"] += int(np.count_nonzero(has != np.isfinite(dise[:, 0])))
            # The points with a neighbour without a normal (a radius neighbourhood counted as
            # pcl::search::KdTree does: squared distance below radius^2).
            without = np.flatnonzero(~has)
            decided = np.zeros(len(points), dtype=bool)
            if len(without):
                for near in tree.query_ball_point(points[without], np.nextafter(radius, 0)):
                    decided[near] = True
            decided &= has
            totals["clouds"] += 1
            totals["points"] += len(points)
            totals["without"] += len(without)
            totals["decided"] += int(decided.sum())
            totals["pca_all"].append(rmse_deg(pca[has], truth[has]))
            totals["dise_all"].append(rmse_deg(dise[has], truth[has]))
            if decided.any():
                totals["pca_decided"].append(rmse_deg(pca[decided], truth[decided]))
                totals["dise_decided"].append(rmse_deg(dise[decided], truth[decided]))
        row = {"scale": scale, "clouds": totals["clouds"], "points": totals["points"],
               "without_normal": totals["without"], "decided": totals["decided"],
               "nan_mismatches": totals["mismatch"],
               "pca_rmse": float(np.mean(totals["pca_all"])), "dise_rmse": float(np.mean(totals["dise_all"])),
               "pca_rmse_decided": float(np.mean(totals["pca_decided"])) if totals["pca_decided"] else None,
               "dise_rmse_decided": float(np.mean(totals["dise_decided"])) if totals["dise_decided"] else None}
        rows.append(row)
        decided = (f"PCA {row['pca_rmse_decided']:.2f} DISE {row['dise_rmse_decided']:.2f}"
                   if row["pca_rmse_decided"] is not None else "none")
        print(f"radius {scale:.1f} x spacing: {row['without_normal']} of {row['points']} points without a normal "
              f"(DISE differs from PCA at {row['nan_mismatches']}); RMSE PCA {row['pca_rmse']:.2f} "
              f"DISE {row['dise_rmse']:.2f}; at the {row['decided']} points with a neighbour without one: {decided}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 1 if any(r["nan_mismatches"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
