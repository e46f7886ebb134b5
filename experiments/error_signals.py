#!/usr/bin/env python3
"""Which per-point signals rank DISE's normal errors (issue: a calibrated error bound per normal)?

For each cloud of a validation set (15,000 points by default: every shape, the six categories) the
shipped model's normals at the .pidx points and, per point: the final weighted fit's surface
variation (pcl_dise's curvature), PCA's surface variation (PCL's curvature), the angle the normal
turned in the last iteration and from PCA to the last, and the kernel weights' effective number of
neighbours (1 / sum w^2 of the normalised weights). Prints, per category, the Spearman rank
correlation of each signal with the true angle error (averaged over the clouds) and the RMSE of the
80% of normals each signal trusts most against the RMSE of all. Then a first calibration of the
best signal, the fit's surface variation: the 90th percentile of the error in each of 20 bins of
it, learnt on the even-numbered shapes (sorted by name) and applied to the odd ones, where it
prints, per category, the share of normals within their bound.

    PYTHONPATH=build/python /usr/bin/python3 experiments/error_signals.py [--set /tmp/val15k] [--shapes N]
"""
import argparse
import glob
import os

import numpy as np

import pcl_dise

CATEGORIES = {"": "no_noise", "_noise_white_1.00e-02": "low_noise", "_noise_white_5.00e-02": "med_noise",
              "_noise_white_1.00e-01": "high_noise", "_ddist_minmax": "vardensity_striped",
              "_ddist_minmax_layers": "vardensity_gradient"}


def angles(a, b):
    """Unoriented angle in degrees, by the chord in double."""
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    cos = np.abs(np.sum(a * b, axis=1)) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return np.degrees(np.arccos(np.clip(cos, 0.0, 1.0)))


def ranks(x):
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(len(x))
    return r


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    return float(np.corrcoef(rx, ry)[0, 1])


def trusted_rmse_ratio(signal, error, share=0.8):
    keep = np.argsort(signal, kind="stable")[: int(share * len(signal))]
    return float(np.sqrt(np.mean(error[keep] ** 2)) / np.sqrt(np.mean(error ** 2)))


def signals_of(points, pidx, model_iterations=4):
    dise = pcl_dise.Estimator(k=64, iterations=model_iterations, store_iterations=True, orient="none")
    r = dise.compute(points, weights_of=[int(i) for i in pidx])
    pca = pcl_dise.Estimator(k=64, iterations=0, orient="none").compute(points)
    last, before = r.iterations[-1][pidx], r.iterations[-2][pidx]
    weights = []
    for _, w in r.kernel_weights:
        w = np.asarray(w, dtype=np.float64)
        w = w / w.sum() if w.sum() > 0 else w
        weights.append(1.0 / max(np.sum(w ** 2), 1e-12))
    return r.normals[pidx], {
        "curvature (DISE fit)": r.curvature[pidx].astype(np.float64),
        "curvature (PCA)": pca.curvature[pidx].astype(np.float64),
        "last turn": angles(last, before),
        "turn from PCA": angles(last, r.iterations[0][pidx]),
        "few neighbours (1/n_eff)": 1.0 / np.asarray(weights),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", default="/tmp/val15k")
    parser.add_argument("--shapes", type=int, default=0, help="the first N shapes only (0: all)")
    args = parser.parse_args()
    shapes = sorted({os.path.basename(p)[:-4] for p in glob.glob(os.path.join(args.set, "*.xyz"))
                     if not any(s and s in p for s in CATEGORIES)})
    if args.shapes:
        shapes = shapes[: args.shapes]
    table = {}
    pooled = []  # (shape number, category, fit curvature, error) for the calibration
    for number, shape in enumerate(shapes):
        for suffix, category in CATEGORIES.items():
            stem = os.path.join(args.set, shape + suffix)
            if not os.path.exists(stem + ".xyz"):
                continue
            points = np.loadtxt(stem + ".xyz", dtype=np.float64)
            truth = np.loadtxt(stem + ".normals", dtype=np.float64)
            pidx = np.loadtxt(stem + ".pidx", dtype=np.int64)
            normals, signals = signals_of(points, pidx)
            error = angles(normals, truth[pidx])
            ok = np.isfinite(error)
            curvature = signals["curvature (DISE fit)"]
            keep = ok & np.isfinite(curvature)
            pooled.append((number, category, curvature[keep], error[keep]))
            for name, s in signals.items():
                good = ok & np.isfinite(s)
                table.setdefault(category, {}).setdefault(name, []).append(
                    (spearman(s[good], error[good]), trusted_rmse_ratio(s[good], error[good])))
    names = list(next(iter(table.values())).keys())
    print("| category | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for category, by_signal in table.items():
        cells = []
        for name in names:
            v = np.array(by_signal[name])
            cells.append(f"{v[:, 0].mean():.2f} / {v[:, 1].mean():.2f}")
        print(f"| {category} | " + " | ".join(cells) + " |")
    print("\n(each cell: Spearman rank correlation with the true error / RMSE of the 80% most trusted over all)")
    calibrate(pooled)


def calibrate(pooled, bins=20, level=0.9):
    """The level-th percentile of the error per bin of the fit's curvature, learnt on the even
    shapes; the share of the odd shapes' normals within their bound, per category."""
    learn_c = np.concatenate([c for n, _, c, _ in pooled if n % 2 == 0])
    learn_e = np.concatenate([e for n, _, _, e in pooled if n % 2 == 0])
    edges = np.quantile(learn_c, np.linspace(0, 1, bins + 1)[1:-1])
    bound = np.array([np.quantile(learn_e[np.searchsorted(edges, learn_c) == b], level) for b in range(bins)])
    bound = np.maximum.accumulate(bound)  # more variation never bounds tighter
    print(f"\nbounds (degrees) per curvature bin, learnt on the even shapes: {np.round(bound, 1).tolist()}")
    print("| category | within the bound (odd shapes) | median bound |\n|---|---|---|")
    for category in CATEGORIES.values():
        c = [x for n, k, x, _ in pooled if n % 2 == 1 and k == category]
        e = [x for n, k, _, x in pooled if n % 2 == 1 and k == category]
        if not c:
            continue
        c, e = np.concatenate(c), np.concatenate(e)
        b = bound[np.searchsorted(edges, c)]
        print(f"| {category} | {100 * np.mean(e <= b):.1f}% | {np.median(b):.1f} |")


if __name__ == "__main__":
    main()
