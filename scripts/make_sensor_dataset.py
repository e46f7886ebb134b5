#!/usr/bin/python3
"""Training clouds from simulated sensors (docs/models.md#training): scenes of the
training meshes of ../shared/data/meshes (never the validation ones) and generated shapes, each
scanned by one sensor of scripts/sensor_sim.py, written as PCPNet clouds (NAME.xyz, NAME.normals:
the hit triangle's normal) with a list naming each once.

    /usr/bin/python3 scripts/make_sensor_dataset.py OUT_DIR [--scenes-per-sensor 4] [--seed 1]
        [--objects 4] [--list sensorset.txt]

Deterministic: the same clouds for the same seed. The sensor benchmark (bench_sensors.py) scans
the validation meshes with another seed.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sensor_sim  # noqa: E402
from bench_sensors import SHARED, VALIDATION_MESHES  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out")
    parser.add_argument("--scenes-per-sensor", type=int, default=4)
    parser.add_argument("--objects", type=int, default=4, help="objects per scene")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--list", default="sensorset.txt")
    parser.add_argument("--sensors", nargs="+", default=list(sensor_sim.SENSORS), choices=sensor_sim.SENSORS,
                        help="the sensors scanned (default: every one; a run's script names its own)")
    args = parser.parse_args()
    mesh_dir = os.path.join(SHARED, "data", "meshes")
    training = sorted(m for m in os.listdir(mesh_dir) if m.endswith(".off") and m not in VALIDATION_MESHES)
    rng = np.random.default_rng(args.seed)
    shapes = sensor_sim.load_meshes([os.path.join(mesh_dir, m) for m in training]) + sensor_sim.generated_shapes(
        20, rng)
    os.makedirs(args.out, exist_ok=True)
    names = []
    for sensor in args.sensors:
        for scene_index in range(args.scenes_per_sensor):
            name = f"sensor_{sensor}_{scene_index}"
            names.append(name)
            base = os.path.join(args.out, name)
            if os.path.exists(base + ".normals"):
                continue
            scene_rng = np.random.default_rng([args.seed, sensor_sim.SENSORS.index(sensor), scene_index])
            chosen = [shapes[i] for i in scene_rng.choice(len(shapes), args.objects, replace=False)]
            scene = sensor_sim.indoor_scene if sensor_sim.SCENE_OF[sensor] == "indoor" else sensor_sim.outdoor_scene
            structure, objects = scene(chosen, scene_rng)
            scan = sensor_sim.scan(sensor, structure, objects, scene_rng)
            np.savetxt(base + ".xyz", scan.points - scan.points.mean(0), fmt="%.6f")
            np.savetxt(base + ".normals", scan.normals, fmt="%.6f")
            print(name, len(scan.points), "points", flush=True)
    with open(os.path.join(args.out, args.list), "w") as f:
        f.write("".join(n + "\n" for n in names))


if __name__ == "__main__":
    main()
