#!/usr/bin/env python3
"""How two normals files of the same cloud agree (binary PLY or PCD as dise_normals writes them):

    python3 scripts/compare_normals.py A.ply B.ply [--rows FILE] [--p99-at-most DEG] [--same-signs]

prints the angle between the normals (50th, 99th percentile, largest; degrees, by the chord of the
unit normals in double), the share with the same sign, and how many points both give a normal.
--rows FILE (one row number per line) compares only those rows (B may hold only them, in that
order, or every row). With a target it exits 1 where the normals miss it: the 99th percentile
above DEG, a sign that differs (--same-signs), or a point with a normal in one file only. NumPy
only (no pcl_dise needed), so that it runs where the GPU check runs.
"""
import argparse
import sys

import numpy as np

TYPES = {"float": "f4", "float32": "f4", "double": "f8", "float64": "f8", "uchar": "u1", "uint8": "u1",
         "char": "i1", "int8": "i1", "ushort": "u2", "uint16": "u2", "short": "i2", "int16": "i2",
         "uint": "u4", "uint32": "u4", "int": "i4", "int32": "i4"}


def read_normals(path):
    data = open(path, "rb").read()
    if path.endswith(".ply"):
        end = data.index(b"end_header\n") + len(b"end_header\n")
        fields, count = [], 0
        for line in data[:end].decode().splitlines():
            words = line.split()
            if words[:2] == ["element", "vertex"]:
                count = int(words[2])
            elif words and words[0] == "property":
                fields.append((words[2], "<" + TYPES[words[1]]))
        rows = np.frombuffer(data, dtype=np.dtype(fields), count=count, offset=end)
    else:  # PCD, binary
        end = data.index(b"DATA binary\n") + len(b"DATA binary\n")
        header = dict(line.split(" ", 1) for line in data[:end].decode().splitlines() if " " in line)
        names, sizes, types = header["FIELDS"].split(), header["SIZE"].split(), header["TYPE"].split()
        fields = [(n, "<" + {"F": "f", "I": "i", "U": "u"}[t] + s) for n, s, t in zip(names, sizes, types)]
        rows = np.frombuffer(data, dtype=np.dtype(fields), count=int(header["POINTS"]), offset=end)
    return np.column_stack([rows["normal_x"], rows["normal_y"], rows["normal_z"]]).astype(np.float64)


def main():
    parser = argparse.ArgumentParser(description="How two normals files of the same cloud agree.")
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--rows", help="file of row numbers (one per line) to compare")
    parser.add_argument("--p99-at-most", type=float, help="fail where the 99th percentile angle exceeds this (deg)")
    parser.add_argument("--same-signs", action="store_true", help="fail where any sign differs")
    args = parser.parse_args()
    a, b = read_normals(args.a), read_normals(args.b)
    if args.rows:
        rows = np.loadtxt(args.rows, dtype=np.int64, ndmin=1)
        a = a[rows]
        b = b if len(b) == len(rows) else b[rows]
    if a.shape != b.shape:
        sys.exit(f"different sizes: {a.shape} and {b.shape}")
    has_a, has_b = np.isfinite(a).all(1), np.isfinite(b).all(1)
    both = has_a & has_b
    ua = a[both] / np.linalg.norm(a[both], axis=1, keepdims=True)
    ub = b[both] / np.linalg.norm(b[both], axis=1, keepdims=True)
    same = np.sum(ua * ub, axis=1) > 0
    # The unoriented angle by the chord: exact near 0, where arccos of a dot product is not.
    chord = np.linalg.norm(np.where(same[:, None], ua - ub, ua + ub), axis=1)
    angle = np.degrees(2 * np.arcsin(np.minimum(chord / 2, 1)))
    one_only = int(np.sum(has_a != has_b))
    p99 = np.percentile(angle, 99) if len(angle) else 0.0
    print(f"angle p50 {np.percentile(angle, 50) if len(angle) else 0:.5f}, p99 {p99:.4f}, "
          f"max {angle.max() if len(angle) else 0:.3f} deg; same sign {100 * np.mean(same) if len(same) else 100:.3f}%; "
          f"normals in both {both.sum()} of {len(a)}, in one only {one_only}")
    missed = []
    if args.p99_at_most is not None and p99 > args.p99_at_most:
        missed.append(f"p99 {p99:.4f} > {args.p99_at_most}")
    if args.same_signs and not same.all():
        missed.append(f"{int(np.sum(~same))} signs differ")
    if (args.p99_at_most is not None or args.same_signs) and one_only:
        missed.append(f"{one_only} points have a normal in one file only")
    if missed:
        print("missed: " + "; ".join(missed))
        sys.exit(1)


if __name__ == "__main__":
    main()
