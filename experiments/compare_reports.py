#!/usr/bin/env python3
"""Compares two models shape by shape from two `dise_eval --report` outputs on the same set, as
`dise_eval --compare-model` would without evaluating again: per category the difference of the
means (first - second), then per shape the difference averaged over the six categories, its mean
over the shapes, its standard error and on how many shapes the first is better. Usage:

  /usr/bin/python3 experiments/compare_reports.py experiments/runs/Y/dense.json experiments/runs/Z/dense.json
"""
import json
import math
import sys

from judge_candidate import CATEGORIES


def per_cloud(report):
    """category -> cloud -> the first method's RMSE (the report's "DISE")."""
    return {c: report["categories"][c]["DISE"]["per_cloud"] for c in CATEGORIES}


def shape_of(cloud, shapes):
    """The longest noiseless cloud's name the cloud's name starts with (its shape)."""
    matches = [s for s in shapes if cloud.startswith(s)]
    return max(matches, key=len) if matches else cloud


def main():
    if len(sys.argv) != 3:
        sys.exit(print(__doc__, file=sys.stderr) or 2)
    with open(sys.argv[1]) as f:
        first = json.load(f)
    with open(sys.argv[2]) as f:
        second = json.load(f)
    a, b = per_cloud(first), per_cloud(second)
    shapes = list(a["no_noise"])
    by_shape = {}
    for category in CATEGORIES:
        mean_a, mean_b = first["categories"][category]["DISE"]["rmse"], second["categories"][category]["DISE"]["rmse"]
        print(f"{category:22s} {mean_a:7.3f} {mean_b:7.3f}  difference {mean_a - mean_b:+.3f}")
        for cloud, rmse in a[category].items():
            if cloud in b[category]:
                by_shape.setdefault(shape_of(cloud, shapes), {})[category] = rmse - b[category][cloud]
    print(f"{'average':22s} {first['average']['DISE']:7.3f} {second['average']['DISE']:7.3f}  difference "
          f"{first['average']['DISE'] - second['average']['DISE']:+.3f}")
    differences = [sum(d.values()) / len(CATEGORIES) for d in by_shape.values() if len(d) == len(CATEGORIES)]
    n = len(differences)
    mean = sum(differences) / n
    error = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1) / n) if n > 1 else float("nan")
    better = sum(d < 0 for d in differences)
    print(f"by shape: mean difference {mean:+.3f} (standard error {error:.3f}), the first better on {better} of {n}")


if __name__ == "__main__":
    main()
