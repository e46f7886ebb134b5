#!/usr/bin/python3
"""The sensor benchmark (docs/models.md#real-scans-and-simulated-sensors): the validation meshes, never trained
on, set in scenes and scanned by simulated sensors (scripts/sensor_sim.py: structured light, time
of flight, stereo, a terrestrial, a mobile and an airborne laser scanner, two airborne surveys), the hit triangle's
normal as the truth.

    /usr/bin/python3 scripts/bench_sensors.py [--build build] [--out build/eval/sensors.json]
        [--model NAME=PATH ...] [--sensors kinect tof ...] [--seed 1]

Per sensor and method, the RMSE (degrees, unoriented, k = 64) over all points and over the points
on the objects alone, and its ratio to PCA's. Methods: PCA (iterations 0), the shipped model, the
published weights where ../shared/reference holds them, and every --model.
"""
import argparse
import json
import os
import sys

import numpy as np

import bench_methods
from bench_methods import SHARED
# The validation set's meshes (docs/models.md): never in a training list.
VALIDATION_MESHES = ("bunny00.off", "fandisk_large.off", "cow.off", "triceratops.off", "knot1.off",
                     "refined_elephant.off")


def rmse(normals, truth):
    n = normals.astype(np.float64)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    e = np.degrees(np.arccos(np.clip(np.abs(np.sum(n * truth, 1)), 0, 1)))
    e = np.where(np.isfinite(e), e, 90.0)  # a missing normal counts as 90 degrees, as in the PCPNet protocol
    return float(np.sqrt(np.mean(e ** 2)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    bench_methods.add_options(parser)
    parser.add_argument("--sensors", nargs="*", default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import pcl_dise
    import sensor_sim

    methods = bench_methods.methods(args)
    meshes = sensor_sim.load_meshes([os.path.join(SHARED, "data", "meshes", m) for m in VALIDATION_MESHES])
    results = {"methods": list(methods), "sensors": {}}
    for sensor in args.sensors or sensor_sim.SENSORS:
        rng = np.random.default_rng(args.seed)
        scene = sensor_sim.indoor_scene if sensor_sim.SCENE_OF[sensor] == "indoor" else sensor_sim.outdoor_scene
        structure, objects = scene(meshes, rng)
        scan = sensor_sim.scan(sensor, structure, objects, rng)
        points = scan.points - scan.points.mean(0)
        row = {"points": int(len(points)), "object_points": int(scan.on_object.sum())}
        for name, options in methods.items():
            normals = pcl_dise.estimate_normals(points, k=64, **options)
            row[name] = {"all": rmse(normals, scan.normals),
                         "objects": rmse(normals[scan.on_object], scan.normals[scan.on_object])}
        results["sensors"][sensor] = row
        print(sensor, json.dumps(row), flush=True)
    print("\n| sensor (points, on objects) | " + " | ".join(methods) + " |\n|---|" + "---|" * len(methods))
    for sensor, row in results["sensors"].items():
        cells = []
        for m in methods:
            r, p = row[m], row["pca"]
            cells.append(f"{r['all']:.2f} / {r['objects']:.2f}" + (
                "" if m == "pca" else f" ({r['all'] / p['all']:.2f}x / {r['objects'] / p['objects']:.2f}x)"))
        print(f"| {sensor} ({row['points']:,}, {row['object_points']:,}) | " + " | ".join(cells) + " |")
    bench_methods.write(args.out, results)


if __name__ == "__main__":
    main()
