#!/usr/bin/env bash
# Installs what collsim needs (Debian packages; run as root, or have sudo), then configures and
# builds it into build/ (Release). Extra CMake flags can be passed in COLLSIM_CMAKE_ARGS,
# e.g. COLLSIM_CMAKE_ARGS="-DCOLLSIM_WERROR=ON" as CI does.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ make cmake libboost-graph-dev nlohmann-json3-dev libcli11-dev catch2 libfmt-dev libbenchmark-dev
          gnuplot-nox)
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

# shellcheck disable=SC2086  # COLLSIM_CMAKE_ARGS is a list of flags
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release ${COLLSIM_CMAKE_ARGS:-} >/dev/null
cmake --build build -j"$(nproc)"
