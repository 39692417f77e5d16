#!/usr/bin/env bash
# Builds the vramscope .deb with CPack: the binary, vramscope(1), the bash and zsh completions,
# the docs and examples (what `cmake --install` installs), under /usr.
# Usage: scripts/package.sh [BUILD_DIR]
#   BUILD_DIR defaults to build-package (configured Release, without tests); an existing
#   configured tree (scripts/test.sh passes build) is reused as it is.
# Prints the path of the .deb.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-package}
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVRAMSCOPE_BUILD_TESTS=OFF \
    -DVRAMSCOPE_BUILD_PYTHON=OFF > /dev/null
fi
cmake --build "$build" > /dev/null
out="$PWD/$build/packages"
(cd "$build" && cpack -G DEB -B "$out" > /dev/null)
ls "$out"/vramscope_*.deb
