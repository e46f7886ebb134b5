#!/usr/bin/env python3
"""How well each normal's error bound (docs/models.md#error-bounds) ranks and bounds the true error,
on data it was not calibrated on: the validation sets (every category; the validation command of
docs/models.md at 100,000 and, with --points 15000, at 15,000 points) and the simulated sensors of
scripts/bench_sensors.py (the validation meshes in scenes, seed 1).

Per category and per sensor, for three signals of how far off a normal is: the bound (the model's
calibration of the curvature of DISE's last weighted fit), that curvature itself (what pcl_dise
outputs as curvature) and PCA's surface variation (PCL's curvature, k = 64 + the point):
  - rho: the Spearman rank correlation with the true unoriented angle error (per cloud, averaged);
  - 80% / 50%: the RMSE of the 80% and 50% of normals the signal trusts most over the RMSE of all;
  - and, for the bound, within: the share of normals whose error lies within their bound.

    PYTHONPATH=build/python /usr/bin/python3 scripts/bench_error_bound.py [--model FILE] \\
        [--sets build/dataset/val /tmp/val15k] [--sensors kinect tof ...] [--out build/eval/error_bound.json]
    PYTHONPATH=build/python /usr/bin/python3 scripts/bench_error_bound.py --cost build/dataset/val/bunny00.xyz

--cost CLOUD times instead the estimation of CLOUD with the model and with the same model without
its calibration (8 interleaved pairs, 2 threads): what the bound costs.
"""
import argparse
import glob
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pcl_dise  # noqa: E402

CATEGORIES = {"": "no_noise", "_noise_white_1.00e-02": "low_noise", "_noise_white_5.00e-02": "med_noise",
              "_noise_white_1.00e-01": "high_noise", "_ddist_minmax": "vardensity_striped",
              "_ddist_minmax_layers": "vardensity_gradient"}
SIGNALS = ("bound", "curvature", "pca_curvature")


def unoriented_degrees(a, b):
    a = a.astype(np.float64) / np.linalg.norm(a.astype(np.float64), axis=1, keepdims=True)
    b = b.astype(np.float64) / np.linalg.norm(b.astype(np.float64), axis=1, keepdims=True)
    chord = np.minimum(np.linalg.norm(a - b, axis=1), np.linalg.norm(a + b, axis=1))
    return np.degrees(2 * np.arcsin(np.clip(chord / 2, 0, 1)))


def average_ranks(x):
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(len(x))
    sorted_x = x[order]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_x)) + 1]
    ends = np.r_[starts[1:], len(x)]
    for s, e in zip(starts, ends):  # ties share their mean rank
        if e - s > 1:
            ranks[order[s:e]] = (s + e - 1) / 2
    return ranks


def measures(signals, error):
    """Each signal's rank correlation and trusted-RMSE ratios on one cloud; the bound's coverage."""
    ok = np.isfinite(error)
    for s in signals.values():
        ok &= np.isfinite(s)
    error = error[ok]
    rms_all = np.sqrt(np.mean(error ** 2))
    out = {}
    for name, s in signals.items():
        s = s[ok]
        order = np.argsort(s, kind="stable")
        row = {"rho": float(np.corrcoef(average_ranks(s), average_ranks(error))[0, 1])}
        for share in (0.8, 0.5):
            kept = error[order[: int(share * len(s))]]
            row[f"rmse_{int(share * 100)}"] = float(np.sqrt(np.mean(kept ** 2)) / rms_all)
        if name == "bound":
            row["within"] = float(np.mean(error <= s))
        out[name] = row
    return out


def signals_of(dise, pca, points, rows=None):
    r = dise.compute(points, indices=rows)
    if r.error_bound is None:
        raise SystemExit("bench_error_bound: the model carries no error-bound calibration "
                         "(scripts/calibrate_error_bound.py)")
    p = pca.compute(points, indices=rows)
    return r.normals, {"bound": r.error_bound.astype(np.float64), "curvature": r.curvature.astype(np.float64),
                       "pca_curvature": p.curvature.astype(np.float64)}


def mean_rows(rows):
    return {name: {key: float(np.mean([r[name][key] for r in rows])) for key in rows[0][name]} for name in rows[0]}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="default: the shipped model for k = 64")
    parser.add_argument("--sets", nargs="*", default=["build/dataset/val", "/tmp/val15k"])
    parser.add_argument("--sensors", nargs="*", default=None, help="default: every simulated sensor")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None)
    parser.add_argument("--cost", default=None, metavar="CLOUD", help="time the bound's cost on this .xyz cloud")
    args = parser.parse_args()
    if args.cost:
        return time_cost(args.model or pcl_dise.default_model_path(64), args.cost)
    dise = pcl_dise.Estimator(k=64, model=args.model, orient="none")
    pca = pcl_dise.Estimator(k=64, iterations=0, orient="none")
    results = {"model": dise.model_path, "sets": {}, "sensors": {}}
    for folder in args.sets:
        per_category = {}
        for path in sorted(glob.glob(os.path.join(folder, "*.xyz"))):
            stem = path[:-4]
            suffix = next((s for s in sorted(CATEGORIES, key=len, reverse=True) if s and stem.endswith(s)), "")
            points = np.loadtxt(path, dtype=np.float64)
            truth = np.loadtxt(stem + ".normals", dtype=np.float64)
            pidx = np.loadtxt(stem + ".pidx", dtype=np.int64).reshape(-1)
            normals, signals = signals_of(dise, pca, points, pidx)
            per_category.setdefault(CATEGORIES[suffix], []).append(
                measures(signals, unoriented_degrees(normals, truth[pidx])))
        results["sets"][folder] = {c: mean_rows(rows) for c, rows in per_category.items()}
        print(f"{folder}: {sum(len(r) for r in per_category.values())} clouds", file=sys.stderr, flush=True)
    import sensor_sim
    from bench_sensors import VALIDATION_MESHES
    from bench_methods import SHARED
    meshes = sensor_sim.load_meshes([os.path.join(SHARED, "data", "meshes", m) for m in VALIDATION_MESHES])
    for sensor in sensor_sim.SENSORS if args.sensors is None else args.sensors:
        rng = np.random.default_rng(args.seed)
        scene = sensor_sim.indoor_scene if sensor_sim.SCENE_OF[sensor] == "indoor" else sensor_sim.outdoor_scene
        structure, objects = scene(meshes, rng)
        scan = sensor_sim.scan(sensor, structure, objects, rng)
        normals, signals = signals_of(dise, pca, scan.points - scan.points.mean(0))
        results["sensors"][sensor] = measures(signals, unoriented_degrees(normals, scan.normals))
        print(f"{sensor}: {len(normals)} points", file=sys.stderr, flush=True)
    print_tables(results)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


def time_cost(model, cloud):
    """The estimation's seconds with and without the model's calibration (the same weights)."""
    import tempfile
    import time
    data = open(model, "rb").read()
    length = int.from_bytes(data[:8], "little")  # a safetensors header: its length, then JSON
    header = json.loads(data[8:8 + length])
    header.get("__metadata__", {}).pop("error_bound", None)
    text = json.dumps(header).encode()
    with tempfile.NamedTemporaryFile(suffix=".safetensors") as plain:
        plain.write(len(text).to_bytes(8, "little") + text + data[8 + length:])
        plain.flush()
        points = np.loadtxt(cloud, dtype=np.float64)
        estimators = {"with the bound": pcl_dise.Estimator(model=model, threads=2),
                      "without": pcl_dise.Estimator(model=plain.name, threads=2)}
        seconds = {name: [] for name in estimators}
        for _ in range(8):
            for name, estimator in estimators.items():
                start = time.perf_counter()
                estimator.compute(points)
                seconds[name].append(time.perf_counter() - start)
    for name, s in seconds.items():
        print(f"{name}: minimum {min(s):.3f} s, median {np.median(s):.3f} s")


def print_tables(results):
    def cells(row):
        b, c, p = row["bound"], row["curvature"], row["pca_curvature"]
        return (f"{100 * b['within']:.1f}% | {b['rho']:.2f} / {c['rho']:.2f} / {p['rho']:.2f} | "
                f"{b['rmse_80']:.2f} / {c['rmse_80']:.2f} / {p['rmse_80']:.2f} | "
                f"{b['rmse_50']:.2f} / {c['rmse_50']:.2f} / {p['rmse_50']:.2f}")
    header = ("| {} | within the bound | rho: bound / curvature / PCA's | 80% trusted RMSE over all | "
              "50% trusted RMSE over all |\n|---|---|---|---|---|")
    for folder, categories in results["sets"].items():
        print(f"\n{folder}\n" + header.format("category"))
        for category, row in categories.items():
            print(f"| {category} | {cells(row)} |")
        rho = np.mean([row["bound"]["rho"] for row in categories.values()])
        print(f"| mean rho of the bound | {rho:.2f} | | | |")
    if results["sensors"]:
        print("\nsimulated sensors (all points)\n" + header.format("sensor"))
        for sensor, row in results["sensors"].items():
            print(f"| {sensor} | {cells(row)} |")


if __name__ == "__main__":
    main()
