"""scripts/bench_methods.py: the methods the accuracy benchmarks measure, from their options. Run
by ctest (scripts.bench_orientation runs this folder) or: /usr/bin/python3 -m pytest test/scripts"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import bench_methods  # noqa: E402


def parsed(*argv):
    parser = argparse.ArgumentParser()
    bench_methods.add_options(parser)
    return parser.parse_args(list(argv))


def test_a_model_runs_with_the_iterations_its_option_names():
    methods = bench_methods.methods(parsed("--no-published", "--model", "a=m.safetensors",
                                           "--model", "b=dir/m.safetensors@1"))
    assert methods == {"pca": {"iterations": 0}, "shipped": {}, "a": {"model": "m.safetensors"},
                       "b": {"model": "dir/m.safetensors", "iterations": 1}}
