#!/usr/bin/env bash
# Installs what collsim needs (Debian packages; run as root, or have sudo), then configures and
# builds it into build/ (Release). Extra CMake flags can be passed in COLLSIM_CMAKE_ARGS,
# e.g. COLLSIM_CMAKE_ARGS="-DCOLLSIM_WERROR=ON" as CI does.
# tools/setup.sh --fuzz also installs clang and its libFuzzer runtime and builds the fuzz harnesses
# into build-fuzz/ instead (docs/development.md, "Fuzzing"); build/ is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzz=0
case "${1:-}" in
  "") ;;
  --fuzz) fuzz=1 ;;
  *) echo "usage: tools/setup.sh [--fuzz]" >&2; exit 2 ;;
esac

# pybind11-dev and python3-dev build the Python module (python/); python3-pandas and python3-pytest run its tests.
# dpkg-dev (dpkg-shlibdeps) and file let CPack compute the .deb's dependencies (README, "Install as a package").
packages=(g++ make cmake libboost-graph-dev nlohmann-json3-dev libcli11-dev catch2 libfmt-dev libbenchmark-dev
          gnuplot-nox pybind11-dev python3-dev python3-pandas python3-pytest dpkg-dev file)
# Debian 12's clang is clang 14; libFuzzer and the sanitizer runtimes are its libclang-rt-14-dev.
if ((fuzz)); then packages+=(clang libclang-rt-14-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: run as root (or install sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ((fuzz)); then
  # shellcheck disable=SC2086  # COLLSIM_CMAKE_ARGS is a list of flags
  cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DCOLLSIM_FUZZ=ON \
        ${COLLSIM_CMAKE_ARGS:-} >/dev/null
  cmake --build build-fuzz -j"$(nproc)"
  exit 0
fi
# shellcheck disable=SC2086  # COLLSIM_CMAKE_ARGS is a list of flags
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${COLLSIM_CMAKE_ARGS:-} >/dev/null
cmake --build build -j"$(nproc)"
