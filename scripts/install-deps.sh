#!/usr/bin/env bash
# Installs everything vramscope needs to build, test and fuzz, from Debian packages only;
# with --build-only, just what building the program needs (a first try: scripts/demo.sh).
# Idempotent: packages already present are left as they are.
set -euo pipefail
# What building the `vramscope` program needs (scripts/demo.sh, --build-only) ...
build_packages=(
  build-essential cmake ninja-build g++ pkg-config
  libfmt-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libpugixml-dev libtomlplusplus-dev
  libcpp-httplib-dev libncurses-dev
  # watch --prometheus's TLS (OpenSSL) and basic-auth passwords (libcrypt's bcrypt), named
  # although cpp-httplib and the C library already pull them in
  libssl-dev libcrypt-dev
)
# ... and what only the tests, the fuzzers, the packaging checks and the Python package need
# (scripts/test.sh): a browser, a Prometheus server and a terminal multiplexer among them.
test_packages=(
  clang libclang-rt-14-dev libgtest-dev libgmock-dev libbenchmark-dev python3 openssl
  prometheus chromium
  # watch's full screen under tmux
  tmux
  # install: the man page check (groff, man -l), the .deb (dpkg-dev for dpkg-shlibdeps), the
  # zsh completion check (zsh -n)
  groff-base man-db dpkg-dev zsh
  # the Python package, built and tested offline: python/, scripts/test.sh
  # (python3-wheel: pip's bdist_wheel, which `pip install --no-build-isolation ./python` needs)
  python3-dev pybind11-dev python3-pybind11 python3-setuptools python3-wheel python3-pip python3-pytest
)
case "${1:-}" in
  --build-only) packages=("${build_packages[@]}") ;;
  "") packages=("${build_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: scripts/install-deps.sh [--build-only]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "install-deps: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
