#!/usr/bin/env bash
# The thread-safety stage: builds the test binary with ThreadSanitizer and runs the tests that
# use one device from many threads (test_threads.cpp) and the execution-model tests
# (queues, events, scalars) on the reference and cpu devices; the test binary holds only those
# files (TESSERA_TEST_FILES). OMP_NUM_THREADS=1: GCC's libgomp is not instrumented, so its
# barriers would show as false races; the host threads of the tests are what is under test.
# Any report fails the stage (halt_on_error). Flags as for the ASan build (scripts/test.sh says
# why).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_TSAN_BUILD_DIR:-$root/build-tsan}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -fno-var-tracking-assignments -DNDEBUG" -DTESSERA_SANITIZE_THREAD=ON \
  -DTESSERA_WITH_CUDA=OFF -DTESSERA_WITH_OPENCL=OFF -DTESSERA_BUILD_BENCH=OFF \
  "-DTESSERA_TEST_FILES=test_threads.cpp;test_execution.cpp;test_vector_algebra.cpp" >/dev/null
cmake --build "$build" -j "$(nproc)" --target tessera-tests
TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1} OMP_NUM_THREADS=1 \
TESSERA_TEST_DEVICES=cpu \
  "$build/bin/tessera-tests"
