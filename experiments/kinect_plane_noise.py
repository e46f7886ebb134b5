#!/usr/bin/env python3
"""Does a Kinect noise model reproduce the real frames' loss to PCA? The plane of
scripts/bench_real_planes.py's --kinect-plane (640x480, fx 525, 1.2-5.2 m away, its normal known)
under disparity noise of several structures: white per pixel (the sensor benchmark's kinect),
correlated over the block matcher's window (white noise box-filtered over W x W pixels, scaled back
to the given standard deviation), correlated along image rows only (1 x W, the horizontal runs a
real frame's residuals show), and both; then the integer disparity steps, or the depth rounded to
millimetres as OpenNI stores it; and a smooth warp of the surface (a sine over 300 x 250 pixels, of
the given amplitude). Prints PCA's and each model's RMSE (degrees, every point) and the
ratio, and with --per-iteration each model's RMSE / median / 99th percentile after every
iteration (0: its PCA).

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

# (label, window W, rows only, correlated sigma, white sigma, depth in millimetres, warp in metres),
# the noise in disparity units
VARIANTS = [("white 0.3 (the benchmark's kinect)", 1, False, 0.0, 0.3, False, 0.0),
            ("correlated 9x9 0.3", 9, False, 0.3, 0.0, False, 0.0),
            ("correlated 9x9 0.3 + white 0.1", 9, False, 0.3, 0.1, False, 0.0),
            ("correlated 9x9 1.0", 9, False, 1.0, 0.0, False, 0.0),
            ("correlated 15x15 1.0 + white 0.3", 15, False, 1.0, 0.3, False, 0.0),
            ("white 0.3, depth in mm", 1, False, 0.0, 0.3, True, 0.0),
            ("rows 1x9 0.3, depth in mm", 9, True, 0.3, 0.0, True, 0.0),
            ("rows 1x15 0.5 + white 0.1, depth in mm", 15, True, 0.5, 0.1, True, 0.0),
            ("rows 1x15 0.5 + white 0.1, depth in mm, warp 5 mm", 15, True, 0.5, 0.1, True, 0.005),
            ("rows 1x15 0.5 + white 0.1, depth in mm, warp 10 mm", 15, True, 0.5, 0.1, True, 0.01)]


def box(a, width, rows_only=False):
    """White noise a averaged over width x width pixels (1 x width with rows_only)."""
    kernel = np.ones(width) / width
    a = np.apply_along_axis(lambda r: np.convolve(r, kernel, "same"), 1, a)
    return a if rows_only else np.apply_along_axis(lambda c: np.convolve(c, kernel, "same"), 0, a)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", action="append", default=[], help="NAME=PATH")
    parser.add_argument("--per-iteration", action="store_true", help="each model's errors after every iteration")
    args = parser.parse_args()
    methods = {"pca": {"iterations": 0}}
    methods.update({name: {"model": path} for name, path in (m.split("=", 1) for m in args.model)})
    fx, cx, cy = 525.0, 319.5, 239.5
    u, v = np.meshgrid(np.arange(640), np.arange(480))
    rays = np.stack([(u - cx) / fx, (v - cy) / fx, np.ones_like(u, float)], -1)
    normal = np.array([0.0, -0.8, -0.6])
    depth = -1.2 / (rays @ normal)
    valid = ((depth > 0.5) & (depth < 6)).reshape(-1)
    rng = np.random.default_rng(0)
    for label, window, rows_only, correlated, white, millimetres, warp in VARIANTS:
        warped = depth + warp * np.sin(2 * np.pi * u / 300.0) * np.cos(2 * np.pi * v / 250.0)
        disparity = (3.3309495161 - 1.0 / warped) / 0.0030711016
        noise = rng.normal(0, white, depth.shape) if white else np.zeros(depth.shape)
        if correlated:
            scale = np.sqrt(window) if rows_only else window  # back to `correlated` per pixel
            noise = noise + box(rng.normal(0, 1, depth.shape), window, rows_only) * scale * correlated
        measured = disparity + noise
        if millimetres:
            z = np.round(1000.0 / (3.3309495161 - 0.0030711016 * measured)) / 1000.0
        else:
            z = 1.0 / (3.3309495161 - 0.0030711016 * np.round(measured))
        points = (rays * z[..., None]).reshape(-1, 3)[valid]
        points = points[np.isfinite(points).all(1)]
        rmse = {m: summary(angles(pcl_dise.estimate_normals(points, k=64, **o), normal))["rmse"]
                for m, o in methods.items()}
        print(f"{label}: pca {rmse['pca']:.2f}" + "".join(
            f", {m} {rmse[m]:.2f} ({rmse[m] / rmse['pca']:.2f}x)" for m in methods if m != "pca"), flush=True)
        for m, o in methods.items():
            if m == "pca" or not args.per_iteration:
                continue
            steps = []
            for normals in pcl_dise.Estimator(k=64, store_iterations=True, **o).compute(points).iterations:
                e = angles(normals, normal)
                e = e[np.isfinite(e)]
                steps.append(f"{np.sqrt(np.mean(e ** 2)):.2f} / {np.median(e):.2f} / {np.quantile(e, 0.99):.1f}")
            print(f"  {m} per iteration (RMSE / median / p99): " + " -> ".join(steps), flush=True)


if __name__ == "__main__":
    main()
