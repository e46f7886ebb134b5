#!/usr/bin/env python3
"""Does a Kinect noise model reproduce the real frames' loss to PCA? The plane of
scripts/bench_real_planes.py's --kinect-plane (640x480, fx 525, 1.2-5.2 m away, its normal known)
under disparity noise of several structures: white per pixel (the sensor benchmark's kinect),
correlated over the block matcher's window (white noise box-filtered over W x W pixels, scaled back
to the given standard deviation), correlated along image rows only (1 x W, the horizontal runs a
real frame's residuals show), and both; then the integer disparity steps, or the depth rounded to
millimetres as OpenNI stores it; a smooth warp of the surface (a sine over 300 x 250 pixels, of
the given amplitude); and patches (white noise smoothed over a few pixels), on a plane 1.2 m or
0.6 m away. Prints each variant's noise as plane_error_by_range.py --noise measures a real
plane's (to match them), PCA's and each model's RMSE (degrees, every point) and the
ratio, and with --per-iteration each model's RMSE / median / 99th percentile after every
iteration (0: its PCA).

    PYTHONPATH=build/python /usr/bin/python3 experiments/kinect_plane_noise.py \\
        --model l4=experiments/runs/L4/dise_k64.safetensors
"""
import argparse
import os
import sys

import numpy as np
from scipy import ndimage

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from bench_real_planes import angles, summary  # noqa: E402
from plane_error_by_range import high_passed_noise  # noqa: E402

import pcl_dise  # noqa: E402

# Each variant: its label and what differs from a plane 1.2 m away under no noise, in disparity
# units: white (per pixel), correlated (over window x window pixels, or 1 x window along the rows
# with rows_only), patches (white noise smoothed by a Gaussian of patch_pixels, scaled to this
# standard deviation), millimetres (the depth rounded to whole millimetres instead of the integer
# disparity), warp (metres), distance (the plane's, metres), far (the farthest depth kept, metres;
# 1.4 for the planes at 0.6 m: the range of the real tables of osd_learn).
VARIANTS = [dict(label="white 0.3 (the benchmark's kinect)", white=0.3),
            dict(label="correlated 9x9 0.3", window=9, correlated=0.3),
            dict(label="correlated 9x9 0.3 + white 0.1", window=9, correlated=0.3, white=0.1),
            dict(label="correlated 9x9 1.0", window=9, correlated=1.0),
            dict(label="correlated 15x15 1.0 + white 0.3", window=15, correlated=1.0, white=0.3),
            dict(label="white 0.3, depth in mm", white=0.3, millimetres=True),
            dict(label="rows 1x9 0.3, depth in mm", window=9, rows_only=True, correlated=0.3, millimetres=True),
            dict(label="rows 1x15 0.5 + white 0.1, depth in mm", window=15, rows_only=True, correlated=0.5, white=0.1,
                 millimetres=True),
            dict(label="rows 1x15 0.5 + white 0.1, depth in mm, warp 5 mm", window=15, rows_only=True,
                 correlated=0.5, white=0.1, millimetres=True, warp=0.005),
            dict(label="rows 1x15 0.5 + white 0.1, depth in mm, warp 10 mm", window=15, rows_only=True,
                 correlated=0.5, white=0.1, millimetres=True, warp=0.01),
            dict(label="0.6 m: rows 1x3 0.4, depth in mm", window=3, rows_only=True, correlated=0.4,
                 millimetres=True, distance=0.6, far=1.4),
            dict(label="0.6 m: rows 1x3 0.4 + patches of 5 px 0.5, depth in mm", window=3, rows_only=True,
                 correlated=0.4, patches=0.5, patch_pixels=5, millimetres=True, distance=0.6, far=1.4),
            dict(label="0.6 m: rows 1x3 0.4 + patches of 5 px 1.0, depth in mm", window=3, rows_only=True,
                 correlated=0.4, patches=1.0, patch_pixels=5, millimetres=True, distance=0.6, far=1.4),
            dict(label="0.6 m: rows 1x3 0.4 + patches of 3 px 1.0, depth in mm", window=3, rows_only=True,
                 correlated=0.4, patches=1.0, patch_pixels=3, millimetres=True, distance=0.6, far=1.4),
            dict(label="0.6 m: rows 1x3 0.4 + patches of 3 px 0.6, depth in mm", window=3, rows_only=True,
                 correlated=0.4, patches=0.6, patch_pixels=3, millimetres=True, distance=0.6, far=1.4),
            dict(label="0.6 m: rows 1x3 0.4 + patches of 2 px 0.6, depth in mm", window=3, rows_only=True,
                 correlated=0.4, patches=0.6, patch_pixels=2, millimetres=True, distance=0.6, far=1.4)]
DEFAULTS = dict(window=1, rows_only=False, correlated=0.0, white=0.0, patches=0.0, patch_pixels=1.0,
                millimetres=False, warp=0.0, distance=1.2, far=6.0)


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
    rng = np.random.default_rng(0)
    for given in VARIANTS:
        variant = {**DEFAULTS, **given}
        depth = -variant["distance"] / (rays @ normal)
        valid = ((depth > 0.4) & (depth < variant["far"])).reshape(-1)
        warped = depth + variant["warp"] * np.sin(2 * np.pi * u / 300.0) * np.cos(2 * np.pi * v / 250.0)
        disparity = (3.3309495161 - 1.0 / warped) / 0.0030711016
        noise = rng.normal(0, variant["white"], depth.shape) if variant["white"] else np.zeros(depth.shape)
        if variant["correlated"]:
            window = variant["window"]
            scale = np.sqrt(window) if variant["rows_only"] else window  # back to `correlated` per pixel
            noise = noise + box(rng.normal(0, 1, depth.shape), window, variant["rows_only"]) * scale * variant["correlated"]
        if variant["patches"]:
            smooth = ndimage.gaussian_filter(rng.normal(0, 1, depth.shape), variant["patch_pixels"])
            noise = noise + smooth / smooth.std() * variant["patches"]
        measured = disparity + noise
        if variant["millimetres"]:
            z = np.round(1000.0 / (3.3309495161 - 0.0030711016 * measured)) / 1000.0
        else:
            z = 1.0 / (3.3309495161 - 0.0030711016 * np.round(measured))
        residual = np.where(valid.reshape(depth.shape), (rays * z[..., None]) @ normal + variant["distance"], np.nan)
        print(f"{variant['label']}: noise {high_passed_noise(residual * 1000)}", flush=True)
        points = (rays * z[..., None]).reshape(-1, 3)[valid]
        points = points[np.isfinite(points).all(1)]
        rmse = {m: summary(angles(pcl_dise.estimate_normals(points, k=64, **o), normal))["rmse"]
                for m, o in methods.items()}
        print(f"{variant['label']}: pca {rmse['pca']:.2f}" + "".join(
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
