#!/usr/bin/env bash
# Installs everything vramscope needs to build, test and fuzz, from Debian packages only.
# Idempotent: packages already present are left as they are.
set -euo pipefail
packages=(
  build-essential cmake ninja-build g++ clang libclang-rt-14-dev
  libfmt-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev libpugixml-dev libtomlplusplus-dev libcpp-httplib-dev python3
  prometheus chromium
  # watch --prometheus's TLS (OpenSSL) and basic-auth passwords (libcrypt's bcrypt), named
  # although cpp-httplib and the C library already pull them in
  libssl-dev libcrypt-dev openssl
  # watch's full screen (ncurses) and its test under tmux
  libncurses-dev tmux
  # install: the man page check (groff, man -l), the .deb (dpkg-dev for dpkg-shlibdeps), the
  # zsh completion check (zsh -n)
  groff-base man-db dpkg-dev zsh
  # the Python package, built and tested offline: python/, scripts/test.sh
  # (python3-wheel: pip's bdist_wheel, which `pip install --no-build-isolation ./python` needs)
  python3-dev pybind11-dev python3-pybind11 python3-setuptools python3-wheel python3-pip python3-pytest
)
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
