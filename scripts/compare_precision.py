#!/usr/bin/env python3
"""Per-point difference between --precision bf16 and float normals over a PCPNet-style set.

For every cloud of the six categories' lists (PREFIX_<category>.txt in DATA), the normals of the
shipped model (k = 64, L = 4, orient none) in float and in bf16, and per category the angle
between them at every point: median, p99, p99.9 and max (degrees, unoriented, by the chord in
double). The RMSE against the true normals comes from `dise_eval DATA --prefix PREFIX --bf16`;
this script says how far each point moves. Usage (after scripts/build.sh and the validation set):

    PYTHONPATH=build/python /usr/bin/python3 scripts/compare_precision.py [--data build/dataset/val]
"""
import argparse
import pathlib
import sys
import time

import numpy as np

import pcl_dise

CATEGORIES = ("no_noise", "low_noise", "med_noise", "high_noise", "vardensity_striped", "vardensity_gradient")


def unoriented_angles_deg(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per row, the angle between two normals whatever their signs, by the chord in double."""
    a = a.astype(np.float64) / np.linalg.norm(a.astype(np.float64), axis=1, keepdims=True)
    b = b.astype(np.float64) / np.linalg.norm(b.astype(np.float64), axis=1, keepdims=True)
    chord = np.minimum(np.linalg.norm(a - b, axis=1), np.linalg.norm(a + b, axis=1))
    return np.degrees(2 * np.arcsin(np.clip(chord / 2, 0.0, 1.0)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="build/dataset/val", help="folder with the lists and clouds")
    parser.add_argument("--prefix", default="validationset", help="list prefix")
    parser.add_argument("--k", type=int, default=64)
    args = parser.parse_args()
    if not pcl_dise.bfloat16_available():
        print("this processor lacks AVX512_BF16: bf16 would run in float", file=sys.stderr)
        return 1
    data = pathlib.Path(args.data)
    estimators = {p: pcl_dise.Estimator(k=args.k, orient="none", precision=p) for p in ("float", "bf16")}
    seconds = {"float": 0.0, "bf16": 0.0}
    print(f"| category | clouds | points | median | p99 | p99.9 | max |  (degrees, bf16 against float, k = {args.k})")
    print("|---|---|---|---|---|---|---|")
    everything = []
    for category in CATEGORIES:
        listing = data / f"{args.prefix}_{category}.txt"
        if not listing.exists():
            print(f"no {listing}, category skipped", file=sys.stderr)
            continue
        names = [line.strip() for line in listing.read_text().splitlines() if line.strip()]
        angles = []
        for name in names:
            points = np.loadtxt(data / f"{name}.xyz", dtype=np.float64)
            normals = {}
            for precision, estimator in estimators.items():
                start = time.perf_counter()
                normals[precision] = estimator.compute(points).normals
                seconds[precision] += time.perf_counter() - start
            both = np.isfinite(normals["float"][:, 0]) & np.isfinite(normals["bf16"][:, 0])
            angles.append(unoriented_angles_deg(normals["float"][both], normals["bf16"][both]))
        a = np.concatenate(angles)
        everything.append(a)
        print(f"| {category} | {len(names)} | {len(a)} | {np.median(a):.3f} | {np.percentile(a, 99):.2f} | "
              f"{np.percentile(a, 99.9):.2f} | {a.max():.1f} |")
    a = np.concatenate(everything)
    print(f"| all | | {len(a)} | {np.median(a):.3f} | {np.percentile(a, 99):.2f} | {np.percentile(a, 99.9):.2f} | "
          f"{a.max():.1f} |")
    print(f"\nestimation seconds (in-process, both runs in turn): float {seconds['float']:.1f}, "
          f"bf16 {seconds['bf16']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
