"""The package's public surface: __all__ and the type stub, checked against the compiled module."""
import os
import subprocess
import sys

import pytest

import pcl_dise


def test_all_names_exist_and_are_documented():
    for name in pcl_dise.__all__:
        assert hasattr(pcl_dise, name), name
        if name != "__version__":
            assert getattr(pcl_dise, name).__doc__, f"{name} has no docstring"


def test_the_stub_matches_the_module(tmp_path):
    # mypy's stubtest (Debian: python3-mypy) imports the package and compares every name and
    # signature with __init__.pyi; open3d ships no stubs of its own.
    pytest.importorskip("mypy.stubtest")
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\nignore_missing_imports = True\n")
    result = subprocess.run([sys.executable, "-m", "mypy.stubtest", "pcl_dise", "--mypy-config-file", str(config)],
                            capture_output=True, text=True,
                            cwd=os.path.dirname(os.path.dirname(pcl_dise.__file__)))  # where mypy finds the stub
    assert result.returncode == 0, result.stdout + result.stderr
