#!/usr/bin/env python3
"""Reads a cloud, estimates and orients DISE normals, and plots PCA's and DISE's angular error
against true normals to a PNG.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/pca_against_dise.py [cloud] [out.png]

Without a cloud (or with "") it samples a box with noise, whose true normals are known; with a cloud that has
true normals (fields nx ny nz / normal_x normal_y normal_z), it uses them.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import pcl_dise


def noisy_box(n=40000, noise=0.005, seed=0):
    rng = np.random.default_rng(seed)
    axis = rng.integers(0, 3, n)
    side = rng.choice([-1.0, 1.0], n)
    points = rng.uniform(-1, 1, (n, 3))
    points[np.arange(n), axis] = side
    normals = np.zeros((n, 3))
    normals[np.arange(n), axis] = side
    return points + rng.normal(0, noise, (n, 3)), normals


def true_normals(cloud):
    for names in (("nx", "ny", "nz"), ("normal_x", "normal_y", "normal_z"), ("NormalX", "NormalY", "NormalZ")):
        if all(n in cloud.fields for n in names):
            return np.column_stack([cloud.fields[n] for n in names])
    return None


def main():
    if len(sys.argv) > 1 and sys.argv[1]:
        cloud = pcl_dise.read_cloud(sys.argv[1])
        points, truth = cloud.points, true_normals(cloud)
    else:
        points, truth = noisy_box()
    out = sys.argv[2] if len(sys.argv) > 2 else "pca_against_dise.png"

    # A box is a closed shape: its normals can face out; a scan's face one side consistently.
    closed = len(sys.argv) < 2 or not sys.argv[1]
    dise = pcl_dise.estimate_normals(points, orient="closed" if closed else "mst", progress=True)
    pca = pcl_dise.estimate_normals(points, iterations=0, orient="none")
    print(f"{len(points)} points, {np.isnan(dise[:, 0]).sum()} without a normal")
    if truth is None:
        print("no true normals in the file: nothing to plot")
        return
    figure, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, (name, normals) in zip(axes, [("PCA", pca), ("DISE", dise)]):
        cos = np.abs(np.sum(normals * truth, axis=1) / np.linalg.norm(truth, axis=1))
        error = np.degrees(np.arccos(np.clip(cos, 0, 1)))
        ax.hist(error[np.isfinite(error)], bins=90, range=(0, 90), log=True)
        ax.set_title(f"{name}: RMSE {np.sqrt(np.nanmean(error ** 2)):.2f} deg")
        ax.set_xlabel("angle to the true normal (degrees)")
    axes[0].set_ylabel("points")
    facing = np.mean(np.sum(dise * truth, axis=1) > 0)
    figure.suptitle(f"DISE oriented: {100 * facing:.1f}% face the true side")
    figure.tight_layout()
    figure.savefig(out, dpi=100)
    print("wrote", out)


if __name__ == "__main__":
    main()
