#!/usr/bin/env bash
# Installs dependencies, builds vramscope, and runs it on a built-in example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build-only
cmake -S . -B build -G Ninja -DVRAMSCOPE_BUILD_TESTS=OFF
cmake --build build --target vramscope
build/tools/vramscope plan examples/llama-3.1-8b-fsdp2.yaml
