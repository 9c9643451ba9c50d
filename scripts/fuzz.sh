#!/usr/bin/env bash
# The fuzz stage: builds the fuzz targets in tests/fuzz with clang's libFuzzer + ASan + UBSan
# (into build-fuzz/) and runs each for a bounded number of executions, starting from the corpus
# kept in tests/fuzz/corpus/<target> (read only: new inputs go to a scratch folder). A finding
# fails the stage and leaves the crashing input in build-fuzz/ (crash-*, named in the output);
# add it to the corpus once fixed, so the plain ctest (fuzz.<target>.corpus) keeps checking it.
#   FUZZ_RUNS (default 200000 per target, split between nproc processes), FUZZ_MAX_SECONDS
#   (default 240 per process)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_FUZZ_BUILD_DIR:-$root/build-fuzz}

# clang and its runtime (libFuzzer is part of compiler-rt), only if missing.
missing=()
for p in clang libclang-rt-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=(); [[ $(id -u) -ne 0 ]] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cmake -S "$root/tests/fuzz" -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j "$(nproc)"
# Each target's executions split between as many processes as there are cores, each with its own
# seed and scratch folder (libFuzzer runs one thread): one process after the other the stage's
# run took 92 s on 2 cores, nearly all of it the Matrix Market reader (88 s; CSR 4 s).
targets=(matrix_market csr)
workers=$(nproc)
runs_each=$(( (${FUZZ_RUNS:-200000} + workers - 1) / workers ))
declare -A pid scratch
for target in "${targets[@]}"; do
  echo "== fuzz-$target: ${FUZZ_RUNS:-200000} executions in $workers processes (at most ${FUZZ_MAX_SECONDS:-240} s)"
  for ((w = 0; w < workers; ++w)); do
    scratch[$target.$w]=$(mktemp -d)
    (cd "$build" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      exec ./fuzz-$target -runs="$runs_each" -seed=$((w + 1)) -max_total_time="${FUZZ_MAX_SECONDS:-240}" \
        -print_final_stats=1 "${scratch[$target.$w]}" "$root/tests/fuzz/corpus/$target" \
        > "$build/fuzz-$target.$w.log" 2>&1) &
    pid[$target.$w]=$!
  done
done
status=0
for target in "${targets[@]}"; do
  for ((w = 0; w < workers; ++w)); do
    rc=0
    wait "${pid[$target.$w]}" || rc=$?
    echo "== fuzz-$target, process $w (seed $((w + 1)), exit $rc)"
    grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss)|ERROR|SUMMARY|crash-|Test unit written" \
      "$build/fuzz-$target.$w.log" || true
    rm -rf "${scratch[$target.$w]}"
    [[ $rc -eq 0 ]] || { echo "fuzz-$target found a bug (exit $rc; $build/fuzz-$target.$w.log)"; status=1; }
  done
done
exit $status
