#!/usr/bin/env bash
# Configures and builds Tessera (Release) into $TESSERA_BUILD_DIR (default: build/).
# Extra arguments go to cmake's configure step, e.g. -DTESSERA_WITH_CUDA=OFF.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)"
