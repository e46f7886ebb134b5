#!/usr/bin/env python3
"""Where inside a real frame's planes does a model lose to PCA? The planes and their interior
points as scripts/bench_real_planes.py finds them, then each method's RMSE per bin of range (the
distance from the scan's viewpoint, in quartiles of the interior points) and of incidence (the
angle between the plane's normal and the ray to the point), with its ratio to PCA's; and for each
model the effective number of neighbours its last kernel weights keep there ((sum w)^2 / sum w^2
of 65, over up to 2,000 interior points): a plane fit that keeps fewer averages less noise; and
the mean rank correlation, per point, of a neighbour's weight with its distance from the point's
true plane (negative: the weights keep the neighbours level with the point, as on a disparity
step's terrace; about 0: they ignore the depth noise). --per-iteration also prints each model's
RMSE, median and 99th percentile after every iteration (0: its PCA), on the whole scan and with
each plane's points estimated as a cloud of their own (nothing beyond the plane in reach).
--noise (organized scans) prints the first plane's noise: its residual from the plane less the
residual's mean over 15 x 15 pixels, its standard deviation, kurtosis and share beyond 4 standard
deviations, and its correlation between pixels 1, 2 and 4 apart along the rows and the columns.

    PYTHONPATH=build/python /usr/bin/python3 experiments/plane_error_by_range.py \\
        ../shared/data/scans/real/osd_learn10.pcd --model l4=experiments/runs/L4/dise_k64.safetensors
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
import bench_real_planes  # noqa: E402

import pcl_dise  # noqa: E402

INCIDENCE_BINS = [(0, 30), (30, 60), (60, 90)]


def high_passed_noise(image) -> str:
    """A residual image's noise (millimetres, NaN where none) less its mean over 15 x 15 pixels: its
    standard deviation, kurtosis, share beyond 4 standard deviations and its correlation between
    pixels 1, 2 and 4 apart along the rows and the columns."""
    from scipy import ndimage
    known = np.isfinite(image)
    share = ndimage.uniform_filter(known.astype(float), 15)
    local = ndimage.uniform_filter(np.where(known, image, 0.0), 15) / np.maximum(share, 1e-9)
    high = np.where(known & (share > 0.99), image - local, np.nan)
    values = high[np.isfinite(high)]
    z = values / values.std()
    text = (f"standard deviation {values.std():.2f} mm, kurtosis {np.mean(z ** 4):.1f}, beyond 4 standard "
            f"deviations {np.mean(np.abs(z) > 4):.1e}; correlation along rows / columns")
    for lag in (1, 2, 4):
        corr = []
        for a, b in [(high[:, :-lag], high[:, lag:]), (high[:-lag, :], high[lag:, :])]:
            ok = np.isfinite(a) & np.isfinite(b)
            corr.append(np.corrcoef(a[ok], b[ok])[0, 1] if ok.sum() > 2 else float("nan"))
        text += f", {lag} px apart {corr[0]:.2f} / {corr[1]:.2f}"
    return text


def plane_noise(cloud, valid, centred) -> None:
    """The first plane's residual over the image, high-passed (high_passed_noise)."""
    label, planes = bench_real_planes.plane_labels(centred)
    members = label == 0
    residual = (centred[members] - centred[members].mean(0)) @ planes[0]
    image = np.full(int(cloud.width) * int(cloud.height), np.nan)
    image[np.nonzero(valid)[0][members]] = residual * 1000  # millimetres
    print("noise of the first plane: " + high_passed_noise(image.reshape(int(cloud.height), int(cloud.width))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("scans", nargs="+")
    parser.add_argument("--model", action="append", default=[], help="NAME=PATH")
    parser.add_argument("--per-iteration", action="store_true", help="each model's errors after every iteration")
    parser.add_argument("--noise", action="store_true", help="the first plane's noise (organized scans)")
    args = parser.parse_args()
    methods = {"pca": {"iterations": 0}}
    methods.update({name: {"model": path} for name, path in (m.split("=", 1) for m in args.model)})
    for path in args.scans:
        cloud = pcl_dise.read_cloud(path)
        p = np.asarray(cloud.points, dtype=np.float64)
        p = p[np.isfinite(p).all(1) & (np.abs(p).sum(1) > 0)]
        rays = p - np.asarray(cloud.sensor_origin, dtype=np.float64)
        centred = p - p.mean(0)
        inside, truth = bench_real_planes.interior_points(centred, *bench_real_planes.plane_labels(centred))
        if len(inside) == 0:
            print(f"{os.path.basename(path)}: no plane interior")
            continue
        if args.noise and int(cloud.height) > 1:
            print(os.path.basename(path) + ":")
            plane_noise(cloud, np.isfinite(np.asarray(cloud.points, dtype=np.float64)).all(1) &
                        (np.abs(np.asarray(cloud.points, dtype=np.float64)).sum(1) > 0), centred)
        distance = np.linalg.norm(rays[inside], axis=1)
        incidence = np.degrees(np.arccos(np.clip(np.abs(np.sum(rays[inside] * truth, 1)) / distance, 0, 1)))
        edges = np.quantile(distance, [0, 0.25, 0.5, 0.75, 1])
        bins = [(f"range {edges[b]:.2f}-{edges[b + 1]:.2f}", (distance >= edges[b]) & (distance <= edges[b + 1]))
                for b in range(4)]
        bins += [(f"incidence {lo}-{hi} deg", (incidence >= lo) & (incidence < hi + (hi == 90)))
                 for lo, hi in INCIDENCE_BINS]
        errors = {name: bench_real_planes.angles(pcl_dise.estimate_normals(centred, k=64, **options)[inside], truth)
                  for name, options in methods.items()}
        print(f"\n{os.path.basename(path)}: {len(inside)} interior points")
        print("| bin | points | " + " | ".join(methods) + " |\n|---|---|" + "---|" * len(methods))
        for label, mask in [("all", np.ones(len(inside), bool))] + bins:
            rmse = {name: float(np.sqrt(np.nanmean(e[mask] ** 2))) if mask.any() else float("nan")
                    for name, e in errors.items()}
            ratio = {n: rmse[n] / rmse["pca"] if rmse["pca"] > 0 else float("nan") for n in methods}
            cells = [f"{rmse['pca']:.2f}"] + [f"{rmse[n]:.2f} ({ratio[n]:.2f}x)" for n in methods if n != "pca"]
            print(f"| {label} | {int(mask.sum())} | " + " | ".join(cells) + " |", flush=True)
        if args.per_iteration:
            label, _ = bench_real_planes.plane_labels(centred)  # the same planes: RANSAC is seeded
            for name, options in methods.items():
                if name == "pca":
                    continue
                estimator = pcl_dise.Estimator(k=64, store_iterations=True, **options)
                whole = estimator.compute(centred).iterations
                alone = [np.full_like(n, np.nan) for n in whole]
                for plane in np.unique(label[inside]):
                    members = np.nonzero(label == plane)[0]
                    for step, normals in enumerate(estimator.compute(centred[members]).iterations):
                        alone[step][members] = normals
                for step in range(len(whole)):
                    cells = []
                    for normals in (whole[step], alone[step]):
                        e = bench_real_planes.angles(normals[inside], truth)
                        e = e[np.isfinite(e)]
                        cells.append(f"RMSE {np.sqrt(np.mean(e ** 2)):.2f}, median {np.median(e):.2f}, "
                                     f"99th percentile {np.quantile(e, 0.99):.1f}")
                    print(f"{name}, iteration {step}: {cells[0]}; planes alone: {cells[1]}", flush=True)
        rows = np.arange(0, len(inside), max(1, len(inside) // 2000))
        sample = inside[rows]
        for name, options in methods.items():
            if name == "pca":
                continue
            weights = pcl_dise.Estimator(k=64, **options).compute(centred, weights_of=sample).kernel_weights
            kept, level = [], []
            for row, (neighbours, w) in zip(rows, weights):
                if len(w) < 3 or (w ** 2).sum() == 0:
                    continue
                kept.append(w.sum() ** 2 / (w ** 2).sum())
                offset = np.abs((centred[neighbours] - centred[inside[row]]) @ truth[row])
                level.append(np.corrcoef(np.argsort(np.argsort(w)), np.argsort(np.argsort(offset)))[0, 1])
            print(f"{name}: effective neighbours inside the planes {np.mean(kept):.1f} of 65 "
                  f"(median {np.median(kept):.1f}, {len(kept)} points); weight against distance from the "
                  f"plane: rank correlation {np.nanmean(level):+.2f}", flush=True)


if __name__ == "__main__":
    main()
