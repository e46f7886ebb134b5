#!/usr/bin/env python3
"""How two normals files of the same cloud agree (binary PLY or PCD as dise_normals writes them):

    python3 scripts/compare_normals.py A.ply B.ply

prints the angle between the normals (50th, 99th percentile, largest; degrees), the share with the
same sign, and how many points both give a normal. NumPy only (no pcl_dise needed), so that it
runs where the GPU check runs.
"""
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
    a, b = read_normals(sys.argv[1]), read_normals(sys.argv[2])
    if a.shape != b.shape:
        sys.exit(f"different sizes: {a.shape} and {b.shape}")
    both = np.isfinite(a).all(1) & np.isfinite(b).all(1)
    dot = np.sum(a[both] * b[both], axis=1)
    # atan2 of the cross and dot products: exact near 0, where arccos of a dot product is not.
    angle = np.degrees(np.arctan2(np.linalg.norm(np.cross(a[both], b[both]), axis=1), np.abs(dot)))
    print(f"angle p50 {np.percentile(angle, 50):.5f}, p99 {np.percentile(angle, 99):.4f}, max {angle.max():.3f} deg; "
          f"same sign {100 * np.mean(dot > 0):.3f}%; normals in both {both.sum()} of {len(a)}")


if __name__ == "__main__":
    main()
