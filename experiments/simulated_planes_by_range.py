#!/usr/bin/env python3
"""Inside the planes of a simulated sensor's scan, by range: does a model lose to PCA there, and
does each iteration add to it? The sensor benchmark's scene (scripts/bench_sensors.py: the
validation meshes, seed 1) scanned by one sensor of scripts/sensor_sim.py; a point is inside a
plane where its 65 nearest are all structure points (floor, walls, table) with its own true
normal. Per range bin from the camera (its eye's nominal place, before the scene's jitter of at
most 0.1 m), each model's RMSE after every iteration (0: its PCA).

    PYTHONPATH=build/python /usr/bin/python3 experiments/simulated_planes_by_range.py kinect_measured \\
        --model l4=experiments/runs/L4/dise_k64.safetensors
"""
import argparse
import os
import sys

import numpy as np
from scipy.spatial import cKDTree

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import sensor_sim  # noqa: E402
from bench_sensors import SHARED, VALIDATION_MESHES, rmse  # noqa: E402

import pcl_dise  # noqa: E402

EYES = {"kinect_measured": (0.3, 0.35, 1.3), "kinect": (-1.6, -1.4, 1.5), "tof": (-1.6, -1.4, 1.5),
        "stereo": (-1.6, -1.4, 1.5)}
BINS = [(0.0, 1.0), (1.0, 1.5), (1.5, 2.5), (2.5, 9.0)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sensor", choices=sorted(EYES))
    parser.add_argument("--model", action="append", default=[], help="NAME=PATH")
    args = parser.parse_args()
    meshes = sensor_sim.load_meshes([os.path.join(SHARED, "data", "meshes", m) for m in VALIDATION_MESHES])
    rng = np.random.default_rng(1)
    structure, objects = sensor_sim.indoor_scene(meshes, rng)
    scan = sensor_sim.scan(args.sensor, structure, objects, rng)
    distance = np.linalg.norm(scan.points - np.asarray(EYES[args.sensor]), axis=1)
    _, nearest = cKDTree(scan.points).query(scan.points, k=65)
    structure_point = ~scan.on_object
    same_face = np.all(np.abs(np.einsum("ikc,ic->ik", scan.normals[nearest], scan.normals)) > 1 - 1e-9, axis=1)
    inside = structure_point & np.all(structure_point[nearest], axis=1) & same_face
    centred = scan.points - scan.points.mean(0)
    for spec in args.model:
        name, path = spec.split("=", 1)
        steps = pcl_dise.Estimator(k=64, model=path, store_iterations=True).compute(centred).iterations
        for lo, hi in BINS:
            chosen = inside & (distance >= lo) & (distance < hi)
            if not chosen.any():
                continue
            errors = [rmse(normals[chosen], scan.normals[chosen]) for normals in steps]
            print(f"{name}, range {lo:.1f}-{hi:.1f} m, {int(chosen.sum())} points: RMSE after iterations 0..L "
                  + " -> ".join(f"{e:.2f}" for e in errors) + f" ({errors[-1] / errors[0]:.2f}x PCA)", flush=True)


if __name__ == "__main__":
    main()
