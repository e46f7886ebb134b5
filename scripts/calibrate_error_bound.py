#!/usr/bin/env python3
"""Calibrates a model's per-normal error bound (docs/models.md#error-bounds) and writes the model
with it (metadata "error_bound"; the weights unchanged).

On every cloud of the calibration sets (PCPNet format: NAME.xyz, .normals, .pidx), the model's
normals at the .pidx points give pairs (curvature of the last weighted fit, true unoriented angle
error); the library learns the bound from them (pcl_dise/core/error_bound.h: the 90% quantile of
the error in 24 bins of equal count along the curvature, made non-decreasing). The sets must be
clouds the model was not trained on and that the bound is not judged on (the shipped models'
calibration: the 8 closed meshes of ../shared/data/meshes outside training and validation, 12
procedural and 9 thin shapes of shape seed 5, at 100,000 and 15,000 points; commands in
docs/models.md#error-bounds).

    PYTHONPATH=build/python /usr/bin/python3 scripts/calibrate_error_bound.py MODEL OUT SET [SET ...] [--k 64]
"""
import argparse
import glob
import os
import sys

import numpy as np

import pcl_dise
from pcl_dise import _native


def unoriented_degrees(a, b):
    """The unoriented angle between rows, in degrees, by the chord in double."""
    a = a.astype(np.float64) / np.linalg.norm(a.astype(np.float64), axis=1, keepdims=True)
    b = b.astype(np.float64) / np.linalg.norm(b.astype(np.float64), axis=1, keepdims=True)
    chord = np.minimum(np.linalg.norm(a - b, axis=1), np.linalg.norm(a + b, axis=1))
    return np.degrees(2 * np.arcsin(np.clip(chord / 2, 0, 1)))


def pairs(model, folder, k):
    """(curvature, error) at the .pidx points of every cloud in `folder`."""
    estimator = pcl_dise.Estimator(k=k, model=model, orient="none")
    curvature, errors = [], []
    clouds = sorted(glob.glob(os.path.join(folder, "*.xyz")))
    if not clouds:
        raise SystemExit(f"calibrate_error_bound: no .xyz clouds in {folder}")
    for path in clouds:
        stem = path[:-4]
        points = np.loadtxt(path, dtype=np.float64)
        truth = np.loadtxt(stem + ".normals", dtype=np.float64)
        pidx = np.loadtxt(stem + ".pidx", dtype=np.int64).reshape(-1)
        result = estimator.compute(points, indices=pidx)
        curvature.append(result.curvature.astype(np.float64))
        errors.append(unoriented_degrees(result.normals, truth[pidx]))
    return np.concatenate(curvature), np.concatenate(errors)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("sets", nargs="+", help="folders of PCPNet-format clouds")
    parser.add_argument("--k", type=int, default=64)
    parser.add_argument("--level", type=float, default=0.9)
    parser.add_argument("--pairs", default=None,
                        help="an .npz of the (curvature, error) pairs: read where it exists, else written")
    args = parser.parse_args()
    if args.pairs and os.path.exists(args.pairs):
        stored = np.load(args.pairs)
        curvature, errors = stored["curvature"], stored["errors"]
    else:
        collected = [pairs(args.model, folder, args.k) for folder in args.sets]
        for folder, (c, _) in zip(args.sets, collected):
            print(f"calibrate_error_bound: {folder}: {len(c)} normals", file=sys.stderr)
        curvature = np.concatenate([c for c, _ in collected])
        errors = np.concatenate([e for _, e in collected])
        if args.pairs:
            np.savez_compressed(args.pairs, curvature=curvature, errors=errors)
    calibration = _native.calibrate_error_bound(args.model, args.out, curvature.tolist(), errors.tolist(), args.level)
    print(calibration)


if __name__ == "__main__":
    main()
