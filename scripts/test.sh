#!/usr/bin/env bash
# Installs dependencies, builds vramscope with warnings as errors, and runs every test.
# This is the test command README.md gives and .ci/run runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Debian's interpreter: python3-pytest and pybind11 are installed for it, not for a pyenv one.
py=$(command -v /usr/bin/python3 || command -v python3)
cmake -S . -B build -G Ninja -DVRAMSCOPE_WERROR=ON -DVRAMSCOPE_BUILD_BENCHMARKS=ON \
  -DPython3_EXECUTABLE="$py"
cmake --build build
# deploy.prometheus runs Debian's Prometheus, html.render Debian's Chromium and watch.screen
# tmux (all installed above); none may skip here.
VRAMSCOPE_REQUIRE_PROMETHEUS=1 VRAMSCOPE_REQUIRE_CHROMIUM=1 VRAMSCOPE_REQUIRE_TMUX=1 \
  ctest --test-dir build --output-on-failure

# The .deb: built from this tree, unpacked into a scratch root, and run from there.
deb=$(scripts/package.sh build)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg -x "$deb" "$root"
"$root/usr/bin/vramscope" --version
"$root/usr/bin/vramscope" plan "$root/usr/share/doc/vramscope/examples/llama-3.1-8b-fsdp2.yaml" > /dev/null
# `watch --prometheus` loads the HTTP plugin that the package carries beside the binary.
# (grep without -q reads the whole listing: -q would stop dpkg-deb with SIGPIPE under pipefail)
dpkg -c "$deb" | grep '/vramscope/libvramscope_http.so$' > /dev/null
"$root/usr/bin/vramscope" watch --replay tests/data/monitor/replay-ddp-gpu0.jsonl --interval 0 --json \
  --prometheus 127.0.0.1:0 > /dev/null
man -l "$root/usr/share/man/man1/vramscope.1" > /dev/null
bash -n "$root/usr/share/bash-completion/completions/vramscope"
test -f "$root/usr/share/zsh/vendor-completions/_vramscope"

# The Python package, installed offline with pip into a scratch folder and tested from there.
VRAMSCOPE_BUILD_DIR="$PWD/build" "$py" -m pip install -q --no-build-isolation --no-index \
  --no-deps --target "$root/site" ./python
(cd "$root" && "$py" -c "import sys; sys.path.insert(0, 'site'); import vramscope; print('python: fits', vramscope.plan({'model': 'llama-3.1-8b'})['fits'])")
VRAMSCOPE_PYTHONPATH="$root/site" "$py" -m pytest -q -p no:cacheprovider --confcutdir=python/tests python/tests
scripts/accuracy.sh
if [ -x scripts/fuzz-smoke.sh ]; then scripts/fuzz-smoke.sh; fi
