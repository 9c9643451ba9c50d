#!/bin/bash
# The CUDA plugin's check on the GPU machine, from the repository root, over binaries built on the
# development machine and carried in $DIST (see backends/cuda/README.md):
#   1. tessera-cuda-check (every op on cuda:0 against host loops),
#   2. the test suite (every op on every device, cuda:0 included, against the reference),
#   3. the suite's cuda tests and tessera-cuda-check under compute-sanitizer memcheck
#      (and racecheck on a short selection),
#   4. with BENCH=1, tessera-cuda-check --bench.
# Logs go to $OUT (or /tmp); a summary is printed last.
set -u
DIST=${DIST:-build-cuda-carry}
LOG=${OUT:-/tmp}
export LD_LIBRARY_PATH=$PWD/$DIST/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Runtime libraries the development machine has and this one may lack (libhwy, libgomp, zlib).
if ldd "$DIST/bin/tessera-tests" | grep -q "not found"; then
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$PWD/$DIST/syslib
fi
ldd "$DIST/bin/tessera-tests" | grep "not found"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used --format=csv,noheader
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
summary=()

t0=$(date +%s)
timeout ${T_CHECK:-240} "$DIST/bin/tessera-cuda-check" ${CHECK_ARGS:-} > "$LOG/check.log" 2>&1
rc=$?
grep -E "^device|profile: gemm f32" "$LOG/check.log" | head -3
grep -E "FAIL|first bad|ERROR|message|wrong" "$LOG/check.log" | head -40
summary+=("cuda-check rc=$rc: $(grep -E '^CHECK' "$LOG/check.log") [$(($(date +%s) - t0)) s]")

if [ "${SUITE:-1}" = 1 ]; then
  t0=$(date +%s)
  timeout ${T_SUITE:-240} "$DIST/bin/tessera-tests" ${SUITE_ARGS:-} > "$LOG/suite.log" 2>&1
  rc=$?
  grep -E "ERROR|FAILED|SKIPPED.*cuda|cuda.*(error|Error)" "$LOG/suite.log" | sort | uniq -c | head -40
  summary+=("suite rc=$rc: $(grep -E '^\[doctest\] (test cases|assertions)' "$LOG/suite.log" | tr '\n' ' ') [$(($(date +%s) - t0)) s]")
fi

if [ "${SANITIZE:-1}" = 1 ] && [ -n "$SAN" ]; then
  t0=$(date +%s)
  timeout ${T_MEMCHECK:-240} "$SAN" --tool memcheck --report-api-errors no --error-exitcode 9 --print-limit 20 "$DIST/bin/tessera-tests" ${SAN_SUITE_ARGS:-} \
    > "$LOG/memcheck-suite.log" 2>&1
  rc=$?
  grep -E "=========.*(Invalid|Error|error|Leaked)|ERROR SUMMARY" "$LOG/memcheck-suite.log" | sort | uniq -c | head -20
  summary+=("memcheck suite rc=$rc: $(grep -E 'ERROR SUMMARY' "$LOG/memcheck-suite.log" | tail -1) [$(($(date +%s) - t0)) s]")
  t0=$(date +%s)
  timeout ${T_RACECHECK:-120} "$SAN" --tool racecheck --error-exitcode 9 --print-limit 20 "$DIST/bin/tessera-cuda-check" ${RACE_ARGS:-} \
    > "$LOG/racecheck.log" 2>&1
  rc=$?
  grep -E "=========.*(hazard|Error|error)|RACECHECK SUMMARY|ERROR SUMMARY|^CHECK" "$LOG/racecheck.log" | sort | uniq -c | head -20
  summary+=("racecheck cuda-check ${RACE_ARGS:-} rc=$rc: $(grep -E 'SUMMARY' "$LOG/racecheck.log" | tail -1) [$(($(date +%s) - t0)) s]")
fi

if [ "${BENCH:-0}" = 1 ]; then
  t0=$(date +%s)
  "$DIST/bin/tessera-cuda-check" --bench ${BENCH_ARGS:-} > "$LOG/bench.log" 2>&1
  summary+=("bench rc=$? [$(($(date +%s) - t0)) s]")
  grep -E "^BENCH|ERROR" "$LOG/bench.log"
fi

printf '%s\n' "---- summary" "${summary[@]}"
