#!/usr/bin/env bash
# Cross-builds Tessera for ARM on Debian 12 and runs the whole test suite under QEMU user mode,
# once per Highway target of the emulated CPU (each forced with TESSERA_CPU_TARGET), then
# tessera-info and tessera-bench under QEMU.
#   scripts/cross-arm.sh [aarch64]        (build folder build-<arch>; armv7/armhf: not yet)
# Environment: TESSERA_ARM_BUILD_DIR (build folder), TESSERA_ARM_RUNS (e.g. "NEON SVE": only
# these runs), TESSERA_TEST_SCALE (size of the big random test cases, default 0.1 here: see
# tests/support/scale.hpp; 1 gives the full native sizes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-aarch64}
# One run per target: "TARGET QEMU_CPU". The vector lengths differ on purpose, so that
# vector-length-agnostic code meets 128, 256 and 512-bit SVE: the NEON run has qemu's default
# 512 bits (and the per-target tests of tests/test_cpu_targets*.cpp loop over SVE and SVE2 at
# 512 bits too); SVE at 256 bits is a Graviton3 / Neoverse V1, whose specialised SVE_256 target
# those tests then cover; SVE2 at 128 bits is a Graviton4 / Neoverse N2 (SVE2_128 likewise).
case $arch in
  aarch64)
    deb=arm64 qemu=qemu-aarch64
    runs=("NEON max" "SVE max,sve256=on" "SVE2 max,sve128=on") ;;
  *) echo "cross-arm: unknown architecture '$arch' (aarch64; armhf is not done yet)" >&2; exit 2 ;;
esac
build=${TESSERA_ARM_BUILD_DIR:-$root/build-$arch}
jobs=$(nproc)
export TESSERA_TEST_SCALE=${TESSERA_TEST_SCALE:-0.1}

declare -a summary
stage_start=0
start() { echo "== $*"; stage_start=$(date +%s); }
done_stage() { summary+=("$(printf '%-44s %5ds  %s' "$1" $(($(date +%s) - stage_start)) "${2:-}")"); }

"$root/scripts/setup-arm.sh" "$deb"

start "configure and build for $arch in $build"
# -O2: the emulated runs check results, not speed, and -O2 compiles the per-target kernels
# faster. No CUDA: the build machine's nvcc makes x86 code (README: Jetson builds natively).
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$arch-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DTESSERA_WITH_CUDA=OFF >/dev/null
cmake --build "$build" -j "$jobs"
done_stage "build ($arch)"

# tessera-info must name the ARM target the emulated CPU runs.
first_cpu=${runs[0]#* }
start "tessera-info under $qemu -cpu $first_cpu"
info=$(QEMU_CPU=$first_cpu "$qemu" "$build/bin/tessera-info")
echo "$info"
grep -E "SIMD target +(NEON|SVE|SVE2|SVE_256|SVE2_128) " <<<"$info" >/dev/null ||
  { echo "cross-arm: tessera-info does not show an ARM SIMD target" >&2; exit 1; }
done_stage "tessera-info" "$(grep -m1 -E 'SIMD target' <<<"$info" | sed 's/^ *//')"

status=0
caller_devices=${TESSERA_TEST_DEVICES:-}
for run in "${runs[@]}"; do
  target=${run%% *} cpu=${run#* }
  [[ -n ${TESSERA_ARM_RUNS:-} && " $TESSERA_ARM_RUNS " != *" $target "* ]] && continue
  export QEMU_CPU=$cpu TESSERA_CPU_TARGET=$target TESSERA_EMULATED="$qemu -cpu $cpu"
  # The reference device computes the same whatever the SIMD target: the first run covers it,
  # the later ones test the cpu device only (a test's own TESSERA_TEST_DEVICES still wins).
  if [[ $run != "${runs[0]}" ]]; then export TESSERA_TEST_DEVICES=${caller_devices:-cpu}; fi
  # The cap must really hold: the cpu device reports the target it runs.
  running=$("$qemu" "$build/bin/tessera-info" --json --device cpu | grep -o '"simd_target": *"[^"]*"' | head -n 1)
  if [[ $running != *"\"$target\"" ]]; then
    echo "cross-arm: with TESSERA_CPU_TARGET=$target under -cpu $cpu the cpu device runs $running" >&2
    exit 1
  fi
  start "ctest under $qemu -cpu $cpu, TESSERA_CPU_TARGET=$target"
  log=$build/ctest-$target.log
  # -LE opencl: the tests labelled opencl need an OpenCL device, and there is none under QEMU
  # (PoCL for arm64 would compile its kernels with an emulated LLVM, far beyond the CI budget);
  # the OpenCL plugin is still built, loaded and reported unavailable with its reason.
  if ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE opencl 2>&1 | tee "$log"; then :; else status=1; fi
  done_stage "ctest $target (-cpu $cpu)" "$(grep -E 'tests passed' "$log" | tail -n 1)"
  unset QEMU_CPU TESSERA_CPU_TARGET TESSERA_EMULATED
done

# The bench on the emulated CPU: its checks must pass; its timings mean nothing (it says so).
start "tessera-bench --size small under $qemu -cpu $first_cpu"
QEMU_CPU=$first_cpu TESSERA_EMULATED="$qemu -cpu $first_cpu" \
  "$qemu" "$build/bin/tessera-bench" --size small --min-time 0.005 --reps 1 || status=1
done_stage "tessera-bench --size small"

echo "== summary ($arch, TESSERA_TEST_SCALE=$TESSERA_TEST_SCALE)"
printf '%s\n' "${summary[@]}"
exit $status
