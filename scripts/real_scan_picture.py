#!/usr/bin/python3
"""A real Kinect frame's normals, PCA beside DISE, coloured by the angle to their plane
(the README's second picture).

    /usr/bin/python3 scripts/real_scan_picture.py [--build build] [--scan ../shared/data/scans/office1.pcd]
        [--out build/real_scan.png] [--model PATH]

The scan must be organised (width x height pixels). Its large planes are found as
bench_real_planes.py finds them (RANSAC, least-squares refit); every pixel on one of them is
coloured by the unoriented angle between its normal and the plane's (0 to 30 degrees), the other
pixels in grey by how they face the camera. Prints the RMSE of each method over the plane pixels
whose 65 nearest neighbours all lie on the same plane (the benchmark's points).
"""
import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--scan", default=os.path.join(os.path.dirname(ROOT), "shared", "data", "scans", "office1.pcd"))
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "real_scan.png"))
    parser.add_argument("--model", default=None, help="the DISE model (default: the shipped one)")
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.build, "python"))
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pcl_dise
    from bench_real_planes import angles, interior_points, plane_labels

    cloud = pcl_dise.read_cloud(args.scan)
    if not cloud.width or not cloud.height or cloud.width * cloud.height != len(cloud.points):
        sys.exit("real_scan_picture: the scan is not organised (width x height pixels)")
    points = np.asarray(cloud.points, dtype=np.float64)
    valid = np.isfinite(points).all(1) & (np.abs(points).sum(1) > 0)
    p = points[valid] - points[valid].mean(0)
    label, planes = plane_labels(p)
    inside, truth = interior_points(p, label, planes)
    methods = {"PCA": {"iterations": 0}, "DISE": {} if args.model is None else {"model": args.model}}
    figure, axes = plt.subplots(1, 2, figsize=(12.8, 5.2))
    for axis, (name, options) in zip(axes, methods.items()):
        normals = pcl_dise.estimate_normals(p, k=64, **options)
        rmse = float(np.sqrt(np.nanmean(angles(normals[inside], truth) ** 2)))
        image = np.full((len(points), 3), 1.0)
        facing = np.abs(normals[:, 2]) / np.linalg.norm(normals, axis=1)
        grey = 0.35 + 0.5 * np.nan_to_num(facing)
        colours = np.stack([grey] * 3, 1)
        on_plane = label >= 0
        error = angles(normals[on_plane], planes[label[on_plane]])
        colours[on_plane] = plt.cm.jet(np.clip(np.nan_to_num(error, nan=30.0) / 30.0, 0, 1))[:, :3]
        image[valid] = colours
        axis.imshow(image.reshape(cloud.height, cloud.width, 3))
        axis.set_title(f"{name}: {rmse:.2f}° RMSE inside the planes")
        axis.axis("off")
        print(f"{os.path.basename(args.scan)}: {name} {rmse:.2f} degrees over {len(inside)} points inside planes")
    figure.colorbar(plt.cm.ScalarMappable(norm=plt.Normalize(0, 30), cmap="jet"), ax=axes, shrink=0.8,
                    label="angle to the plane's normal (degrees)")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    figure.savefig(args.out, dpi=80, bbox_inches="tight")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
