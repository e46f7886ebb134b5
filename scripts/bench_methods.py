"""What the accuracy benchmarks share (bench_real_planes.py, bench_sensors.py): their command-line
options, the methods they measure and where their results go."""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
PUBLISHED = os.path.join(SHARED, "reference", "published_k64.safetensors")


def add_options(parser):
    """--build, --out, --model NAME=PATH (repeated) and --no-published."""
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--out", default=None, help="write the results as JSON")
    parser.add_argument("--model", action="append", default=[],
                        help="NAME=PATH, another model to measure; NAME=PATH@L runs it with L iterations")
    parser.add_argument("--no-published", action="store_true", help="leave the published weights out")


def methods(args):
    """Name -> estimate_normals keywords: PCA (iterations 0), the shipped model, the published
    weights where ../shared/reference holds them (and not --no-published), every --model (with
    its iterations where it names them)."""
    chosen = {"pca": {"iterations": 0}, "shipped": {}}
    if os.path.exists(PUBLISHED) and not args.no_published:
        chosen["published"] = {"model": PUBLISHED}
    for entry in args.model:
        name, path = entry.split("=", 1)
        path, _, iterations = path.partition("@")
        chosen[name] = {"model": path, **({"iterations": int(iterations)} if iterations else {})}
    return chosen


def write(path, results):
    """results as JSON at path (its folder made), where a path is given."""
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)
