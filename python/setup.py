"""Builds the vramscope Python package offline: the extension is the CMake target _vramscope
of the repository this folder sits in, built with the toolchain and Debian packages the C++
build uses (pybind11-dev); nothing is fetched from a package index.

    pip install --no-build-isolation ./python

VRAMSCOPE_BUILD_DIR=DIR reuses an existing CMake build tree (configured with pybind11
found, as scripts/test.sh does) instead of configuring python/build/cmake.
"""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build_dir = pathlib.Path(os.environ.get("VRAMSCOPE_BUILD_DIR") or HERE / "build" / "cmake")
        if not (build_dir / "CMakeCache.txt").exists():
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator,
                                   "-DCMAKE_BUILD_TYPE=Release", "-DVRAMSCOPE_BUILD_TESTS=OFF",
                                   f"-DPython3_EXECUTABLE={sys.executable}"])
        subprocess.check_call(["cmake", "--build", str(build_dir), "--target", "_vramscope"])
        built = sorted((build_dir / "python").rglob("_vramscope*.so"))
        if not built:
            raise RuntimeError(f"{build_dir}: no _vramscope module was built (is pybind11-dev installed?)")
        dest = pathlib.Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], dest)


def version() -> str:
    for line in (ROOT / "CMakeLists.txt").read_text().splitlines():
        if line.startswith("project(vramscope VERSION "):
            return line.split()[2]
    raise RuntimeError("no project version in CMakeLists.txt")


setup(
    name="vramscope",
    version=version(),
    description="Predict, measure and explain the GPU memory of distributed training jobs",
    packages=["vramscope"],
    ext_modules=[Extension("vramscope._vramscope", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
