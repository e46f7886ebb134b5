"""pip install . : the Python module pcl_dise, built by CMake from this tree.

The module links the library statically (native backend; the LibTorch and CUDA backends come with
the CMake build), and the shipped models go inside the package, where the library finds them
beside itself. Offline, with Debian's setuptools and pip:

    python3 -m venv --system-site-packages .venv && .venv/bin/pip install --no-build-isolation .
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


def version():
    return re.search(r"project\(pcl_dise VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    """Configures and builds the target pcl_dise_python, then puts the package, its native part
    and the models into the wheel's pcl_dise folder."""

    def build_extension(self, ext):
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        package = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_SHARED_LIBS=OFF", "-DBUILD_TESTING=OFF", "-DPCL_DISE_BUILD_APPS=OFF",
            "-DPCL_DISE_WITH_TORCH=OFF", "-DPCL_DISE_WITH_CUDA=OFF", f"-DPython3_EXECUTABLE={sys.executable}",
            # The models beside the module: the library looks in <its folder>/models.
            f"-DCMAKE_INSTALL_PREFIX={build / 'prefix'}", "-DCMAKE_INSTALL_LIBDIR=pcl_dise",
            "-DCMAKE_INSTALL_DATADIR=.",
        ]
        subprocess.run(configure, check=True)
        jobs = str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build), "--target", "pcl_dise_python", "-j", jobs], check=True)
        built = build / "python" / "pcl_dise"
        package.mkdir(parents=True, exist_ok=True)
        for item in built.iterdir():
            if item.is_file():
                shutil.copy2(item, package / item.name)
        models = package / "models"
        models.mkdir(exist_ok=True)
        for model in (ROOT / "data" / "models").glob("*.safetensors"):
            shutil.copy2(model, models / model.name)


setup(
    name="pcl_dise",
    version=version(),
    description="Deep Iterative Surface Normal Estimation (DISE) for point clouds, from NumPy",
    python_requires=">=3.9",
    install_requires=["numpy"],
    packages=[],
    ext_modules=[Extension("pcl_dise._native", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
)
