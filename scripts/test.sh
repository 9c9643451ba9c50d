#!/usr/bin/env bash
# The whole test suite: set up, build (Release) and run every test; then build the tests again
# with AddressSanitizer + UndefinedBehaviorSanitizer and run them once more, and the
# thread-safety tests under ThreadSanitizer (scripts/tsan.sh).
# Then the fuzz targets under libFuzzer (scripts/fuzz.sh); last, the aarch64 cross build under
# QEMU (scripts/cross-arm.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
source "$root/scripts/ctest-selections.sh"
# ctest -j runs $jobs test processes at once, each with an OpenMP team of every core: threads
# that spin at the end of a parallel region then take the cores from the other process's working
# threads. Passive waiting (sleep at once) ran the Release cpu/reference tests 162 -> 115 s and
# the ASan policy variants 169 -> 135 s on 2 cores; under QEMU it changes nothing. The library's
# own default (the OpenMP runtime's) is left alone: a program owns its cores.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
# Each stage's wall time, printed at the end: CI's budget is 45 minutes on 2 cores.
declare -a stage_times
stage_name="" stage_t0=0
stage() {
  local now; now=$(date +%s)
  [[ -n $stage_name ]] && stage_times+=("$(printf '%5ds  %s' $((now - stage_t0)) "$stage_name")")
  stage_name=$1 stage_t0=$now
  [[ -n $stage_name ]] && echo "== $stage_name"
  return 0
}
t_begin=$(date +%s)
stage "setup (scripts/setup-debian.sh)"
"$root/scripts/setup-debian.sh"

stage "Release build"
# Where nvcc is installed the CUDA plugin is compiled, though without a GPU it cannot run here:
# for that compile check sm_90 does (the GPU machine's, an H200), not the five architectures of a
# release build (backends/cuda/CMakeLists.txt). The kernels' only code for older GPUs is the
# FP64 MMA's m8n8k4 form (kernels/cuda/gemm_dmma.cuh), inline PTX that only ptxas for sm_80
# would check; sm_80's PTX was a third of each file's compile (kernels/cuda/gemm.cu 90 -> 60 s;
# its machine code, before, another quarter). A plain scripts/build.sh builds all five.
# CUDAARCHS set by the caller wins.
CUDAARCHS=${CUDAARCHS:-90-real} TESSERA_BUILD_DIR=$root/build "$root/scripts/build.sh"
stage "Release tests"
# Without the cpu device's forced-policy reruns, which the sanitizer build runs below
# (tests/CMakeLists.txt, label cpu_policy).
ctest --test-dir "$root/build" --output-on-failure -j "$jobs" -LE cpu_policy

stage "ASan + UBSan build"
# Flags shared with the TSan build: scripts/sanitizer-cmake-args.sh (why -O1 -g1).
# The SIMD widths under the sanitizers: AVX2 (and AVX3 on a builder with AVX-512), which the
# suites dispatch to, and the scalar fallback, whose one-lane loops take every tail. SSSE3 and
# SSE4 (128-bit) are left out: the Release run tests every target and the QEMU runs test 128-bit
# NEON and SVE2; SSE4 was nearly a third of the kernels' compile here (conv.cpp 104 -> 72 s).
# On a builder without AVX-512 the AVX3 target is left out too: compiled under ASan it would
# never run there (the Release build still compiles it, and runs it where the CPU has it).
asan_hwy_disabled="HWY_SSSE3|HWY_SSE4"
grep -qw avx512f /proc/cpuinfo 2>/dev/null || asan_hwy_disabled="HWY_SSSE3|HWY_SSE4|HWY_AVX3"
source "$root/scripts/sanitizer-cmake-args.sh"
TESSERA_BUILD_DIR=$root/build-asan "$root/scripts/build.sh" "${sanitizer_cmake_args[@]}" \
  "-DTESSERA_HWY_DISABLED_TARGETS=$asan_hwy_disabled" -DTESSERA_SANITIZE=ON
stage "ASan + UBSan tests"
# All but the cases shaped for the CUDA kernels (scripts/ctest-selections.sh), the big random
# cases at half their size (tests/support/scale.hpp: each keeps the floor that takes it past its
# thresholds, and the Release run above has them whole): 266 -> 224 s on 2 cores. A caller's
# TESSERA_TEST_SCALE wins.
TESSERA_TEST_SCALE=${TESSERA_TEST_SCALE:-0.5} \
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  ctest --test-dir "$root/build-asan" --output-on-failure -j "$jobs" -E "^($gpu_only_shape_tests)"

stage "ThreadSanitizer: the thread-safety and execution-model tests on reference and cpu"
"$root/scripts/tsan.sh"

stage "Fuzz: the Matrix Market reader and CSR validation under libFuzzer + ASan + UBSan"
# >= 200,000 executions per target from the corpus in tests/fuzz/corpus (scripts/fuzz.sh);
# TESSERA_TEST_FUZZ=0 leaves it out.
if [[ ${TESSERA_TEST_FUZZ:-1} != 0 ]]; then
  "$root/scripts/fuzz.sh"
fi

stage "aarch64 cross build, tests under QEMU (NEON, SVE_256, SVE2_128)"
# The same suite on 64-bit ARM, emulated, with the big random cases scaled down
# (scripts/cross-arm.sh). TESSERA_TEST_ARM=0 leaves this stage out, e.g. on a machine without
# a package registry.
if [[ ${TESSERA_TEST_ARM:-1} != 0 ]]; then
  "$root/scripts/cross-arm.sh" aarch64
fi
stage ""
echo "== stage times (total $(($(date +%s) - t_begin)) s)"
printf '%s\n' "${stage_times[@]}"
