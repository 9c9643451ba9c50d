#!/usr/bin/env bash
# The thread-safety stage: builds the test binary with ThreadSanitizer and runs the tests that
# use one device from many threads (test_threads.cpp) and the execution-model tests
# (queues, events, scalars) on the reference and cpu devices; the test binary holds only those
# files (TESSERA_TEST_FILES). OMP_NUM_THREADS=1: GCC's libgomp is not instrumented, so its
# barriers would show as false races; the host threads of the tests are what is under test.
# Any report fails the stage (halt_on_error). Flags as for the ASan build
# (scripts/sanitizer-cmake-args.sh says why). One SIMD target and the scalar fallback: what is
# under test is the sharing of devices, plans and queues between host threads, the same C++
# whatever the vector width (the Release run tests every target). SSSE3, SSE4 and AVX-512 were
# half the kernels' compile here (121 -> 58 s; the stage 210 -> 170 s).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_TSAN_BUILD_DIR:-$root/build-tsan}
source "$root/scripts/sanitizer-cmake-args.sh"
cmake -S "$root" -B "$build" -G Ninja "${sanitizer_cmake_args[@]}" -DTESSERA_SANITIZE_THREAD=ON \
  "-DTESSERA_HWY_DISABLED_TARGETS=HWY_SSSE3|HWY_SSE4|HWY_AVX3|HWY_AVX3_DL" \
  "-DTESSERA_TEST_FILES=test_threads.cpp;test_execution.cpp;test_vector_algebra.cpp" >/dev/null
cmake --build "$build" -j "$(nproc)" --target tessera-tests
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} OMP_NUM_THREADS=1 \
  TESSERA_TEST_DEVICES=cpu
# Two processes at once, the thread tests and the rest: one process kept 1.15 of the 2 cores
# busy (78 s, the thread tests 35 s of it; 61 s so).
shards=("*test_threads*" "*test_execution*,*test_vector_algebra*")
pids=()
for i in "${!shards[@]}"; do
  "$build/bin/tessera-tests" "--source-file=${shards[$i]}" >"$build/tsan-$i.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$build/tsan-$i.log"
  grep -qE 'test cases: +[1-9]' "$build/tsan-$i.log" || { echo "tsan: shard ${shards[$i]} ran no test" >&2; status=1; }
done
exit $status
