#!/usr/bin/env bash
# Cross-builds Tessera for ARM on Debian 12 and runs the test suite under QEMU user mode, once
# per Highway target of the emulated CPU (each forced with TESSERA_CPU_TARGET), then tessera-info
# and tessera-bench under QEMU. The first run is the whole suite; the later ones run what a SIMD
# target can change: the per-target tests of the cpu kernels and the SELL tests (below).
#   scripts/cross-arm.sh [aarch64]        (build folder build-<arch>; armv7/armhf: not yet)
# Environment: TESSERA_ARM_BUILD_DIR (build folder), TESSERA_ARM_RUNS (e.g. "NEON SVE_256": only
# these runs), TESSERA_TEST_SCALE (size of the big random test cases, default 0.1 here: see
# tests/support/scale.hpp; 1 gives the full native sizes), TESSERA_ARM_LATER_SCALE (the same for
# the runs after the first, default half of TESSERA_TEST_SCALE).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-aarch64}
# One run per target: "TARGET QEMU_CPU". The vector lengths differ on purpose, so that the
# kernels meet 128, 256 and 512-bit SVE (4, 8 and 16 f32 lanes): the NEON run has qemu's default
# 512 bits, and the per-target tests of tests/test_cpu_targets*.cpp loop over SVE and SVE2 there
# too (the length-agnostic targets, which a 512-bit CPU such as A64FX runs); at 256 bits a
# Graviton3 / Neoverse V1 runs SVE_256, at 128 bits a Graviton4 / Neoverse N2 runs SVE2_128:
# Highway takes these fixed-length targets wherever the CPU's length matches them. The generic SVE
# and SVE2 at 256 and 128 bits, which no CPU runs while those are compiled in, were half of the
# later runs' time (until session 42 they ran too).
case $arch in
  aarch64)
    deb=arm64 qemu=qemu-aarch64
    runs=("NEON max" "SVE_256 max,sve256=on" "SVE2_128 max,sve128=on") ;;
  *) echo "cross-arm: unknown architecture '$arch' (aarch64; armhf is not done yet)" >&2; exit 2 ;;
esac
build=${TESSERA_ARM_BUILD_DIR:-$root/build-$arch}
jobs=$(nproc)
source "$root/scripts/ctest-selections.sh"
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
first_cpu=${runs[0]#* } first_target=${runs[0]%% *}
start "tessera-info under $qemu -cpu $first_cpu"
info=$(QEMU_CPU=$first_cpu "$qemu" "$build/bin/tessera-info")
echo "$info"
grep -E "SIMD target +(NEON|SVE|SVE2|SVE_256|SVE2_128) " <<<"$info" >/dev/null ||
  { echo "cross-arm: tessera-info does not show an ARM SIMD target" >&2; exit 1; }
done_stage "tessera-info" "$(grep -m1 -E 'SIMD target' <<<"$info" | sed 's/^ *//')"

# The non-temporal-store probe's test (tests/test_cpu_stencil_kernel.cpp) runs natively only:
# the probe sweeps two grids of twice the last-level cache, and qemu-user reports the build
# machine's (260 MiB of L3 on a session-43 VM: 256 MiB grids, 107 s emulated beside other work).
# What it checks, the setting obeyed and the verdict kept, is the same C++ on every target; the
# sweep's kernel with and without streaming stores is the per-target stencil tests'.
stream_probe_case='stencil.stream_stores off / on obeyed'  # its name's middle: a ctest regex and a doctest glob
status=0
caller_devices=${TESSERA_TEST_DEVICES:-}
# The work after the first run: a queue of independent QEMU processes, $jobs at a time, longest
# first (mostly one thread each: the wavefront and per-target tests call the kernels directly;
# the bench and the SELL tests go through the cpu device's thread team). Run a target after the
# other in two shards each and the bench alone at the end, the same work left a core idle for a
# third of the time (SVE, SVE2 and bench: 106 + 133 + 71 s).
declare -a job_names=() job_cmds=() later_targets=()
declare -A later_env=()
add_job() { job_names+=("$1"); job_cmds+=("$2"); }
first_scale=$TESSERA_TEST_SCALE
for run in "${runs[@]}"; do
  target=${run%% *} cpu=${run#* }
  [[ -n ${TESSERA_ARM_RUNS:-} && " $TESSERA_ARM_RUNS " != *" $target "* ]] && continue
  # The cap must really hold: the cpu device reports the target it runs.
  running=$(QEMU_CPU=$cpu TESSERA_CPU_TARGET=$target "$qemu" "$build/bin/tessera-info" --json --device cpu |
    grep -o '"simd_target": *"[^"]*"' | head -n 1)
  if [[ $running != *"\"$target\"" ]]; then
    echo "cross-arm: with TESSERA_CPU_TARGET=$target under -cpu $cpu the cpu device runs $running" >&2
    exit 1
  fi
  if [[ $run == "${runs[0]}" ]]; then
    export QEMU_CPU=$cpu TESSERA_CPU_TARGET=$target TESSERA_EMULATED="$qemu -cpu $cpu"
    log=$build/ctest-$target.log
    start "ctest under $qemu -cpu $cpu, TESSERA_CPU_TARGET=$target"
    # -LE opencl: the tests labelled opencl need an OpenCL device, and there is none under QEMU
    # (PoCL for arm64 would compile its kernels with an emulated LLVM, far beyond the CI budget);
    # the OpenCL plugin is still built, loaded and reported unavailable with its reason. -E bench:
    # the bench runs on its own below (its checks are the same, its timings mean nothing here).
    # cpu.team_full: the thread-team policy, the same on every target (run natively; 73 s here);
    # cg.separate_cpu: the solvers through separate operations instead of the fused loop, whose
    # kernels the vector-algebra and spmv tests run here (the solver logic runs natively; 47 s).
    # The cases shaped for the CUDA kernels (scripts/ctest-selections.sh; 122 s here).
    # The stencil suites rerun with the cpu's temporally blocked and packed-plane policies
    # forced (cpu.stencil_*: 182 s here): which path runs is the same C++ on every target, and
    # their kernels on each target are the per-target tests' (the wavefront and packed-plane
    # files compare them, bit for bit, with the one-step kernel). Likewise the spmv suites rerun
    # with the short-row gather forced on every matrix (cpu.spmv_short_gather_always: 91 s here):
    # the per-target spmv kernel tests run that gather on each target, both ways.
    if ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE opencl \
         -E "^(bench[.]|cpu[.]team_full\$|cg[.]separate_cpu\$|cpu[.]stencil_|cpu[.]spmv_short_gather_always\$|cpu stencil: $stream_probe_case|$gpu_only_shape_tests)" 2>&1 | tee "$log"; then :; else status=1; fi
    done_stage "ctest $target (-cpu $cpu)" "$(grep -E 'tests passed' "$log" | tail -n 1)"
    unset QEMU_CPU TESSERA_CPU_TARGET TESSERA_EMULATED
    continue
  fi
  # A later target changes only what runs through the cpu kernels, and the per-target tests
  # (tests/test_cpu_*.cpp) run every op's kernels on each target they loop over, at odd sizes
  # and tails: here over the fixed-length target of this run (the first run looped over all
  # the others, at 512 bits). With them the SELL tests, whose slice height C is the target's
  # lane count. The op suites through the device, solvers, file readers, the registry, the
  # bench and the install are the same code whatever the target and ran in the first run
  # (before session 40 the later runs repeated the op suites too: 279 s and 272 s each).
  # The cpu device only (a caller's TESSERA_TEST_DEVICES still wins), at half the first run's
  # sizes: the big cases' floors keep every code path (tests/support/scale.hpp), and the first
  # run covered the sizes themselves. Three shards: the wavefront test, split by dtype (SVE2_128:
  # 40 s in f64, 32 s in f32), and all the rest (61 s).
  env_of_run=$(printf '%q ' QEMU_CPU="$cpu" TESSERA_CPU_TARGET="$target" TESSERA_EMULATED="$qemu -cpu $cpu" \
    TESSERA_TEST_DEVICES="${caller_devices:-cpu}" TESSERA_TEST_CPU_TARGETS="$target" \
    TESSERA_TEST_SCALE="${TESSERA_ARM_LATER_SCALE:-$(awk -v s="$first_scale" 'BEGIN {print s / 2}')}")
  later_targets=("$target" "${later_targets[@]}")  # the narrowest vectors (the longest runs) first
  later_env[$target]=$env_of_run
done
# The queue, longest first: the bench (70 s alone, 100 s beside another job: its cpu device takes
# both cores), the kernel tests (60 s each), the wavefront shards (29-40 s; measured together,
# 190 s for the lot, the bench last).
# The bench on the emulated CPU: its checks must pass; its timings mean nothing (it says so).
# One dtype: every op, baseline and report path runs in f32, and f64 doubled its time (75 s).
# On the first run's target (NEON): the bench's checks and report paths are the same on every
# target, whose kernels the per-target tests run. On its own choice, 512-bit SVE2 under -cpu max,
# its peak measurement alone ran past 8 minutes on a development VM (an Intel Xeon with 260 MiB
# of L3, session 43; on NEON the whole bench took 17 s there) where the whole bench had taken
# 70 s on an AMD one.
add_job bench "$(printf '%q ' env QEMU_CPU="$first_cpu" TESSERA_CPU_TARGET="$first_target" \
  TESSERA_EMULATED="$qemu -cpu $first_cpu" \
  "$qemu" "$build/bin/tessera-bench" --size small --dtypes f32 --min-time 0.005 --reps 1)"
tests=$(printf '%q %q' "$qemu" "$build/bin/tessera-tests")
wavefront="--source-file=*test_cpu_stencil_wavefront*"
for t in "${later_targets[@]}"; do
  add_job "$t-kernels" "env ${later_env[$t]} $tests \
'--source-file=*test_cpu_stencil_kernel*,*test_cpu_targets*,*test_spmv_sell*,*test_cpu_stencil_general_packed*,*test_cpu_spmv_kernel*' \
'--test-case-exclude=*$stream_probe_case*'"
done
for dtype in double float; do
  for t in "${later_targets[@]}"; do
    add_job "$t-wavefront-$dtype" "env ${later_env[$t]} $tests '$wavefront' '-tc=*<$dtype>'"
  done
done

start "the later targets' kernel tests and tessera-bench --size small, under $qemu, $jobs at a time"
declare -A job_of_pid=()
declare -a job_rc=() job_t0=() job_secs=()
next=0
while (( next < ${#job_names[@]} || ${#job_of_pid[@]} > 0 )); do
  while (( next < ${#job_names[@]} && ${#job_of_pid[@]} < jobs )); do
    bash -c "${job_cmds[$next]}" >"$build/job-${job_names[$next]}.log" 2>&1 &
    job_of_pid[$!]=$next job_t0[next]=$(date +%s)
    next=$((next + 1))
  done
  if wait -n -p finished; then rc=0; else rc=$?; fi
  i=${job_of_pid[$finished]}
  unset "job_of_pid[$finished]"
  job_rc[i]=$rc job_secs[i]=$(($(date +%s) - job_t0[i]))
done
bench_rc=0
for i in "${!job_names[@]}"; do
  name=${job_names[$i]} log=$build/job-${job_names[$i]}.log
  if [[ $name == bench ]]; then
    bench_rc=${job_rc[i]}
  else
    grep -qE 'test cases: +[1-9]' "$log" || { echo "cross-arm: $name ran no test" >&2; status=1; }
    [[ ${job_rc[i]} == 0 ]] || cat "$log"
  fi
  [[ ${job_rc[i]} == 0 ]] || status=1
  printf '%-26s %4d s  exit %d  %s\n' "$name" "${job_secs[i]}" "${job_rc[i]}" \
    "$(grep -E '^\[doctest\] test cases' "$log" | tr -s ' ')"
done
cat "$build/job-bench.log"
done_stage "later targets and bench, $jobs at a time" "bench exit $bench_rc"
for run in "${runs[@]:1}"; do
  target=${run%% *}
  [[ -n ${TESSERA_ARM_RUNS:-} && " $TESSERA_ARM_RUNS " != *" $target "* ]] && continue
  summary+=("$(printf '%-44s %6s  %s' "  kernel tests $target (-cpu ${run#* })" "" \
    "$(cat "$build/job-$target-"*.log | awk '/test cases:/{p += $6; f += $9} END {print p " test cases passed, " f " failed"}')")")
done

echo "== summary ($arch, TESSERA_TEST_SCALE=$TESSERA_TEST_SCALE)"
printf '%s\n' "${summary[@]}"
exit $status
