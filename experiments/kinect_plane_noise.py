#!/usr/bin/env python3
"""Does a Kinect noise model reproduce the real frames' loss to PCA? The plane of
scripts/bench_real_planes.py's --kinect-plane (640x480, fx 525, 1.2-5.2 m away, its normal known)
under disparity noise of several structures before the integer quantisation: white per pixel (the
sensor benchmark's kinect), correlated over the block matcher's window (white noise box-filtered
over W x W pixels, scaled back to the given standard deviation), and both. Prints PCA's and each
model's RMSE (degrees, every point) and the ratio.

    PYTHONPATH=build/python /usr/bin/python3 experiments/kinect_plane_noise.py \\
        --model l4=experiments/runs/L4/dise_k64.safetensors
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from bench_real_planes import angles, summary  # noqa: E402

import pcl_dise  # noqa: E402

# (label, window W, correlated sigma, white sigma), in disparity units
VARIANTS = [("white 0.3 (the benchmark's kinect)", 1, 0.0, 0.3), ("correlated 9x9 0.3", 9, 0.3, 0.0),
            ("correlated 9x9 0.3 + white 0.1", 9, 0.3, 0.1), ("correlated 9x9 1.0", 9, 1.0, 0.0),
            ("correlated 15x15 1.0 + white 0.3", 15, 1.0, 0.3)]


def box(a, width):
    kernel = np.ones(width) / width
    a = np.apply_along_axis(lambda r: np.convolve(r, kernel, "same"), 1, a)
    return np.apply_along_axis(lambda c: np.convolve(c, kernel, "same"), 0, a)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", default=[], help="NAME=PATH")
    args = parser.parse_args()
    methods = {"pca": {"iterations": 0}}
    methods.update({name: {"model": path} for name, path in (m.split("=", 1) for m in args.model)})
    fx, cx, cy = 525.0, 319.5, 239.5
    u, v = np.meshgrid(np.arange(640), np.arange(480))
    rays = np.stack([(u - cx) / fx, (v - cy) / fx, np.ones_like(u, float)], -1)
    normal = np.array([0.0, -0.8, -0.6])
    depth = -1.2 / (rays @ normal)
    valid = ((depth > 0.5) & (depth < 6)).reshape(-1)
    disparity = (3.3309495161 - 1.0 / depth) / 0.0030711016
    rng = np.random.default_rng(0)
    for label, window, correlated, white in VARIANTS:
        noise = rng.normal(0, white, depth.shape) if white else np.zeros(depth.shape)
        if correlated:
            noise = noise + box(rng.normal(0, 1, depth.shape), window) * window * correlated
        z = 1.0 / (3.3309495161 - 0.0030711016 * np.round(disparity + noise))
        points = (rays * z[..., None]).reshape(-1, 3)[valid]
        points = points[np.isfinite(points).all(1)]
        rmse = {m: summary(angles(pcl_dise.estimate_normals(points, k=64, **o), normal))["rmse"]
                for m, o in methods.items()}
        print(f"{label}: pca {rmse['pca']:.2f}" + "".join(
            f", {m} {rmse[m]:.2f} ({rmse[m] / rmse['pca']:.2f}x)" for m in methods if m != "pca"), flush=True)


if __name__ == "__main__":
    main()
