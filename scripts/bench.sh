#!/usr/bin/env bash
# The main job: set up, build, and run tessera-bench on every available device.
# Arguments go to tessera-bench (e.g. --size large --json results.json).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup-debian.sh"
"$root/scripts/build.sh"
exec "${TESSERA_BUILD_DIR:-$root/build}/bin/tessera-bench" "$@"
