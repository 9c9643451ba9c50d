#!/usr/bin/env bash
# Cross-builds Tessera for ARM on Debian 12 and runs the test suite under QEMU user mode, once
# per Highway target of the emulated CPU (each forced with TESSERA_CPU_TARGET), then tessera-info
# and tessera-bench under QEMU. The first run is the whole suite; the later ones run what a SIMD
# target can change: the per-target tests of the cpu kernels and the SELL tests (below).
#   scripts/cross-arm.sh [aarch64]        (build folder build-<arch>; armv7/armhf: not yet)
# Environment: TESSERA_ARM_BUILD_DIR (build folder), TESSERA_ARM_RUNS (e.g. "NEON SVE": only
# these runs), TESSERA_TEST_SCALE (size of the big random test cases, default 0.1 here: see
# tests/support/scale.hpp; 1 gives the full native sizes), TESSERA_ARM_LATER_SCALE (the same for
# the runs after the first, default half of TESSERA_TEST_SCALE).
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
    runs=("NEON max" "SVE max,sve256=on" "SVE2 max,sve128=on")
    # The per-target tests of the later runs: the target its vector length specialises, and its own.
    declare -A added_targets=([SVE]="SVE_256 SVE" [SVE2]="SVE2_128 SVE2") ;;
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
# The bench without its OpenCL baselines (ViennaCL, CLBlast): there is no OpenCL device under
# QEMU for them to run on, and the x86 build compiles the same files (27 s of compile here).
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$arch-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" -DTESSERA_WITH_CUDA=OFF \
  -DTESSERA_BENCH_WITH_VIENNACL=OFF -DTESSERA_BENCH_WITH_CLBLAST=OFF >/dev/null
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
  per_target=${added_targets[$target]:-$target}
  [[ -n ${TESSERA_ARM_RUNS:-} && " $TESSERA_ARM_RUNS " != *" $target "* ]] && continue
  export QEMU_CPU=$cpu TESSERA_CPU_TARGET=$target TESSERA_EMULATED="$qemu -cpu $cpu"
  # The reference device computes the same whatever the SIMD target: the first run covers it,
  # the later ones test the cpu device only (a test's own TESSERA_TEST_DEVICES still wins).
  later=0
  if [[ $run != "${runs[0]}" ]]; then later=1; export TESSERA_TEST_DEVICES=${caller_devices:-cpu}; fi
  # The cap must really hold: the cpu device reports the target it runs.
  running=$("$qemu" "$build/bin/tessera-info" --json --device cpu | grep -o '"simd_target": *"[^"]*"' | head -n 1)
  if [[ $running != *"\"$target\"" ]]; then
    echo "cross-arm: with TESSERA_CPU_TARGET=$target under -cpu $cpu the cpu device runs $running" >&2
    exit 1
  fi
  log=$build/ctest-$target.log
  if [[ $later == 0 ]]; then
    start "ctest under $qemu -cpu $cpu, TESSERA_CPU_TARGET=$target"
    # -LE opencl: the tests labelled opencl need an OpenCL device, and there is none under QEMU
    # (PoCL for arm64 would compile its kernels with an emulated LLVM, far beyond the CI budget);
    # the OpenCL plugin is still built, loaded and reported unavailable with its reason. -E bench:
    # the bench runs on its own below (its checks are the same, its timings mean nothing here).
    # cpu.team_full: the thread-team policy, the same on every target (run natively; 73 s here);
    # cg.separate_cpu: the solvers through separate operations instead of the fused loop, whose
    # kernels the vector-algebra and spmv tests run here (the solver logic runs natively; 47 s).
    # The GPU kernels' gemm shapes (tile edges, Hopper's copy-engine shapes, a long k), which
    # here only the cpu and reference devices would run (60 s; their own edges are the
    # per-target tests').
    # The stencil suites rerun with the cpu's temporally blocked and packed-plane policies
    # forced (cpu.stencil_*: 182 s here): which path runs is the same C++ on every target, and
    # their kernels on each target are the per-target tests' (the wavefront and packed-plane
    # files compare them, bit for bit, with the one-step kernel). Likewise the spmv suites rerun
    # with the short-row gather forced on every matrix (cpu.spmv_short_gather_always: 91 s here):
    # the per-target spmv kernel tests run that gather on each target, both ways.
    gpu_shapes='gpu cases: gemm on exact tiles|gemm math modes: (16-byte aligned|a longer product)'
    if ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE opencl \
         -E "^(bench[.]|cpu[.]team_full\$|cg[.]separate_cpu\$|cpu[.]stencil_|cpu[.]spmv_short_gather_always\$|$gpu_shapes)" 2>&1 | tee "$log"; then :; else status=1; fi
    done_stage "ctest $target (-cpu $cpu)" "$(grep -E 'tests passed' "$log" | tail -n 1)"
  else
    # A later target changes only what runs through the cpu kernels, and the per-target tests
    # (tests/test_cpu_*.cpp) run every op's kernels on each target they loop over, at odd sizes
    # and tails: here only over the targets this vector length adds (the first run looped over
    # all of them at 512 bits). With them the SELL tests, whose slice height C is the target's
    # lane count. The op suites through the device, solvers, file readers, the registry, the
    # bench and the install are the same code whatever the target and ran in the first run
    # (before session 40 the later runs repeated the op suites too: 279 s and 272 s; about
    # 125 s each now). Two shards in parallel, each one process (doctest).
    start "kernel tests under $qemu -cpu $cpu, TESSERA_CPU_TARGET=$target"
    export TESSERA_TEST_CPU_TARGETS=$per_target
    # Half the first run's sizes: the big cases' floors keep every code path (tests/support/
    # scale.hpp), and the first run covered the sizes themselves (CI's 45-minute budget).
    first_scale=$TESSERA_TEST_SCALE
    export TESSERA_TEST_SCALE=${TESSERA_ARM_LATER_SCALE:-$(awk -v s="$first_scale" 'BEGIN {print s / 2}')}
    # (SVE2 at 128 bits, both at once on 2 cores: 126 s and 66 s. The wavefront test is most of
    # the first, and alone at the end its OpenMP team has both cores: a finer split changes
    # little.)
    shards=("*test_cpu_stencil_wavefront*,*test_cpu_stencil_kernel*"
            "*test_cpu_targets*,*test_spmv_sell*,*test_cpu_stencil_general_packed*,*test_cpu_spmv_kernel*")
    : >"$log"
    pids=()
    for i in "${!shards[@]}"; do
      "$qemu" "$build/bin/tessera-tests" "--source-file=${shards[$i]}" >"$log.$i" 2>&1 &
      pids+=($!)
    done
    for i in "${!pids[@]}"; do
      if wait "${pids[$i]}"; then :; else status=1; cat "$log.$i"; fi
      grep -qE 'test cases: +[1-9]' "$log.$i" || { echo "cross-arm: shard $i ran no test" >&2; status=1; }
      grep -E '^\[doctest\] (test cases|assertions|Status)' "$log.$i" | tee -a "$log"
    done
    done_stage "kernel tests $target (-cpu $cpu)" \
      "$(awk '/test cases:/{p += $6; f += $9} END {print p " test cases passed, " f " failed"}' "$log")"
    unset TESSERA_TEST_CPU_TARGETS
    export TESSERA_TEST_SCALE=$first_scale
  fi
  unset QEMU_CPU TESSERA_CPU_TARGET TESSERA_EMULATED
done

# The bench on the emulated CPU: its checks must pass; its timings mean nothing (it says so).
# One dtype: every op, baseline and report path runs in f32, and f64 doubled the stage (75 s).
start "tessera-bench --size small under $qemu -cpu $first_cpu"
QEMU_CPU=$first_cpu TESSERA_EMULATED="$qemu -cpu $first_cpu" \
  "$qemu" "$build/bin/tessera-bench" --size small --dtypes f32 --min-time 0.005 --reps 1 || status=1
done_stage "tessera-bench --size small"

echo "== summary ($arch, TESSERA_TEST_SCALE=$TESSERA_TEST_SCALE)"
printf '%s\n' "${summary[@]}"
exit $status
