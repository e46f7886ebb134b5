#!/usr/bin/env python3
"""Poisson reconstruction with and without each normal weighted by its error bound
(`dise_reconstruct --confidence`, docs/models.md#error-bounds), on noisy validation shapes (never
trained on, nor calibrated on): each mesh measured against the shape's clean sample (`--reference`),
as the mean distance from a mesh vertex to the clean points and from a clean point to the mesh's
vertices, in percent of the bounding-box diagonal. Closed shapes, oriented with `--closed`.

    /usr/bin/python3 scripts/bench_poisson_confidence.py [--val build/dataset/val] \\
        [--shapes bunny00 cow ...] [--noise 1.00e-02 5.00e-02] [--depth 8] [--out build/eval/poisson_confidence.json]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = ["bunny00", "cow", "fandisk_large", "knot1", "refined_elephant", "triceratops",
          "cad_box_2_0", "cad_cylinder_2_4", "cad_icosahedron_2_8", "cad_star_2_3"]


def reconstruct(val, shape, noise, depth, weighted, folder):
    """dise_reconstruct's report of the DISE mesh: its distances to the clean sample."""
    report = os.path.join(folder, "report.json")
    command = [os.path.join(ROOT, "build", "apps", "dise_reconstruct"),
               os.path.join(val, f"{shape}_noise_white_{noise}.xyz"), os.path.join(folder, "mesh.ply"),
               "--closed", "--quiet", "--depth", str(depth), "--reference", os.path.join(val, shape + ".xyz"),
               "--report", report] + (["--confidence"] if weighted else [])
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    with open(report) as f:
        mesh = json.load(f)["DISE"]
    return {"vertex_to_points": 100 * mesh["vertex_to_points"], "points_to_vertex": 100 * mesh["points_to_vertex"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--val", default=os.path.join(ROOT, "build", "dataset", "val"))
    parser.add_argument("--shapes", nargs="+", default=SHAPES)
    parser.add_argument("--noise", nargs="+", default=["1.00e-02", "5.00e-02"])
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--out", help="also write the rows as JSON here")
    args = parser.parse_args()
    rows = []
    print(f"{'shape':22} {'noise':9} {'vertex->clean %':>22} {'clean->vertex %':>22}")
    print(f"{'':32} {'plain':>10} {'weighted':>10} {'plain':>10} {'weighted':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for noise in args.noise:
            for shape in args.shapes:
                plain = reconstruct(args.val, shape, noise, args.depth, False, folder)
                weighted = reconstruct(args.val, shape, noise, args.depth, True, folder)
                rows.append({"shape": shape, "noise": noise, "plain": plain, "weighted": weighted})
                print(f"{shape:22} {noise:9} {plain['vertex_to_points']:10.4f} {weighted['vertex_to_points']:10.4f} "
                      f"{plain['points_to_vertex']:10.4f} {weighted['points_to_vertex']:10.4f}", flush=True)
    for noise in args.noise:
        at = [r for r in rows if r["noise"] == noise]
        for key in ("vertex_to_points", "points_to_vertex"):
            ratios = [r["weighted"][key] / r["plain"][key] for r in at]
            better = sum(r["weighted"][key] < r["plain"][key] for r in at)
            print(f"noise {noise}, {key}: weighted / plain {sum(ratios) / len(ratios):.4f} on average, "
                  f"closer on {better} of {len(at)}")
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
