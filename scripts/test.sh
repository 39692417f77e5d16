#!/usr/bin/env bash
# Installs dependencies, builds vramscope with warnings as errors, and runs every test.
# This is the test command README.md gives and .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DVRAMSCOPE_WERROR=ON -DVRAMSCOPE_BUILD_BENCHMARKS=ON
cmake --build build
# deploy.prometheus runs Debian's Prometheus and html.render Debian's Chromium (both installed
# above); neither may skip here.
VRAMSCOPE_REQUIRE_PROMETHEUS=1 VRAMSCOPE_REQUIRE_CHROMIUM=1 ctest --test-dir build --output-on-failure
scripts/accuracy.sh
if [ -x scripts/fuzz-smoke.sh ]; then scripts/fuzz-smoke.sh; fi
