#!/usr/bin/env python3
"""File I/O speed of dise_normals: how fast each format is read and written.

    /usr/bin/python3 scripts/bench_io.py [--build build] [--points 2000000] [--repeat 3]

Writes one synthetic cloud (dise_bench's surface) in every input format (binary PCD, binary PLY,
LAS, text .xyz), then runs `dise_normals INPUT OUTPUT --iterations 0 --report R.json` for each
input format into each output format (binary PCD, binary PLY, LAS, text .xyz and .normals),
the cache warm (the best of --repeat runs). From the report: reading seconds (the file to the
float cloud) and writing seconds (the normals to the file); MB/s = the file's size / seconds.
Also the whole process time minus the estimation's compute time. The files go to a temporary
folder on the same disk as /tmp.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time


def run(tool, args):
    start = time.perf_counter()
    subprocess.run([tool, *args], check=True, capture_output=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build")
    parser.add_argument("--points", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--folder", default=None, help="where the files go (default: a temporary folder)")
    args = parser.parse_args()
    tool = os.path.join(args.build, "apps", "dise_normals")
    bench = os.path.join(args.build, "apps", "dise_bench")
    with tempfile.TemporaryDirectory(dir=args.folder) as folder:
        source = os.path.join(folder, "cloud.pcd")
        subprocess.run([bench, "--sizes", str(args.points), "--write-cloud", source], check=True, capture_output=True)
        inputs = {".pcd": source}
        for ext in (".ply", ".las", ".xyz"):
            inputs[ext] = os.path.join(folder, "cloud" + ext)
            # Points only: the normals of PCA, written as the next run's input (the readers skip them).
            subprocess.run([tool, source, inputs[ext], "--iterations", "0", "--quiet"], check=True, capture_output=True)
        print(f"## dise_normals file I/O, {args.points:,} points (--iterations 0, best of {args.repeat})\n")
        print("| input | MB | read (s) | read MB/s | output | MB | write (s) | write MB/s | process - compute (s) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for in_ext, path in inputs.items():
            in_mb = os.path.getsize(path) / 1e6
            for out_ext in (".pcd", ".ply", ".las", ".xyz", ".normals"):
                out = os.path.join(folder, "out" + out_ext)
                report = os.path.join(folder, "report.json")
                best = None
                for _ in range(args.repeat):
                    whole = run(tool, [path, out, "--iterations", "0", "--quiet", "--report", report])
                    r = json.load(open(report))["seconds"]
                    row = (r["reading"], r["writing"], whole - r["estimation"])
                    best = row if best is None else tuple(min(a, b) for a, b in zip(best, row))
                out_mb = os.path.getsize(out) / 1e6
                print(f"| {in_ext} | {in_mb:.0f} | {best[0]:.2f} | {in_mb / best[0]:.0f} | {out_ext} | {out_mb:.0f} "
                      f"| {best[1]:.2f} | {out_mb / best[1]:.0f} | {best[2]:.2f} |")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
