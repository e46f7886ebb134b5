"""The package's public surface: __all__, and its annotations as the type information users get."""
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


def mypy(folder, *targets):
    """mypy (Debian: python3-mypy) over targets with the built package importable; open3d ships
    no type information of its own."""
    config = folder / "mypy.ini"
    config.write_text("[mypy]\nignore_missing_imports = True\n")
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), "--no-incremental", *targets],
                          capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.dirname(pcl_dise.__file__)))  # where mypy finds the package


def test_the_annotations_are_the_type_information_users_get(tmp_path):
    # The package's annotations (py.typed, no separate stub to drift from them) type-check, and a
    # user's code is checked against them: a setting of the wrong type is an error.
    pytest.importorskip("mypy")
    result = mypy(tmp_path, "-p", "pcl_dise")
    assert result.returncode == 0, result.stdout + result.stderr
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("import numpy as np\nimport pcl_dise\n"
                    "points = np.zeros((10, 3))\n"
                    "result = pcl_dise.Estimator(k=32, iterations=2).compute(points)\n"
                    "normals = result.normals + 1.0\n"
                    "pcl_dise.estimate_normals_file('in.pcd', 'out.pcd', k=16, orient='up')\n")
    bad.write_text("import pcl_dise\npcl_dise.Estimator(k='many')\n")
    assert mypy(tmp_path, str(good)).returncode == 0, mypy(tmp_path, str(good)).stdout
    flagged = mypy(tmp_path, str(bad))
    assert flagged.returncode == 1 and 'Argument "k" to "Estimator"' in flagged.stdout, flagged.stdout
