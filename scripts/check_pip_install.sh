#!/usr/bin/env bash
# pip install . as a Python user does it, offline with Debian's pip and setuptools: into a fresh
# virtual environment (system site packages: NumPy, Open3D), then the package used from outside the
# tree (its model found inside it) and its API tests. Run by .ci/run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$(mktemp -d)"
trap 'rm -rf "$venv"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-build-isolation --no-index "$root"
cd "$venv"
"$venv/bin/python" - <<'PY'
import numpy as np
import pcl_dise

assert "site-packages" in pcl_dise.__file__, pcl_dise.__file__
model = pcl_dise.default_model_path()
assert model.startswith(pcl_dise.__file__.rsplit("/", 1)[0]), model  # the shipped model, inside the package
x = np.random.default_rng(0).random((2000, 2))
normals = pcl_dise.estimate_normals(np.column_stack([x, 0.1 * np.sin(5 * x[:, 0])]))
assert normals.shape == (2000, 3) and np.isfinite(normals).all()
print(f"check_pip_install: pcl_dise {pcl_dise.__version__} from {pcl_dise.__file__}, model {model}")
PY
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests/test_api.py"
