#!/usr/bin/env bash
# One full check on the GPU machine (see ../shared/docs/gpu-machine.md), over binaries built on
# the development machine and carried in $DIST with their Debian runtime libraries
# (syslib.tar.xz): device list, the whole test suite on every device (cuda:0 and NVIDIA's
# OpenCL included), tessera-bench on the GPU devices, then the suite under compute-sanitizer.
# Logs and JSON go to $OUT; a summary is printed last. The CUDA issue's table alone:
# BENCH_SIZE=gpu BENCH_DEVICES=cuda:0 T_BENCH=600 (tessera-bench --size gpu, see bench/README.md).
# STAGES picks stages (suite, forced, bench, memcheck, racecheck); SAN_TESTS narrows the suite
# under the sanitizers to the test cases a change touches (doctest -tc patterns).
set -u
DIST=${DIST:-build-gpu-carry}
OUT=${OUT:-/tmp/tessera-gpu}
mkdir -p "$OUT" /tmp/syslib /tmp/vendors
tar xJf "$DIST/syslib.tar.xz" -C /tmp/syslib
export LD_LIBRARY_PATH=$PWD/$DIST/lib:/tmp/syslib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# NVIDIA's OpenCL driver is there; the ICD loader (carried) needs to be told where.
echo /usr/lib/libnvidia-opencl.so.1 > /tmp/vendors/nvidia.icd
export OCL_ICD_VENDORS=/tmp/vendors
# cuDNN (tessera-bench's conv baselines, opened with dlopen) lives in the Python package
# nvidia.cudnn there, not in /usr/local/cuda (../shared/docs/gpu-machine.md); else search for it.
CUDNN_LIB=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0] + "/lib")' 2>/dev/null)
if [ ! -e "$CUDNN_LIB/libcudnn.so.9" ]; then
  CUDNN_LIB=$(dirname "$(timeout 60 find / -xdev -name libcudnn.so.9 2>/dev/null | head -1)" 2>/dev/null)
fi
if [ -e "$CUDNN_LIB/libcudnn.so.9" ]; then
  export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$CUDNN_LIB
  echo "cuDNN: $CUDNN_LIB/libcudnn.so.9"
else
  echo "cuDNN: libcudnn.so.9 not found (the bench's cuDNN rows will be absent, with the reason)"
fi
export TESSERA_MATRIX_DIR=${TESSERA_MATRIX_DIR:-$PWD/.gpu-data/matrices}
export TESSERA_CACHE_DIR=/tmp/tessera-cache
summary=()
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"

"$DIST/bin/tessera-info" > "$OUT/info.txt" 2>&1
grep -E "^  [a-z]+(:[0-9]+)?  |unavailable|reason" "$OUT/info.txt" | head -12

# STAGES picks what runs (default all): suite, forced, bench, memcheck, racecheck.
STAGES=${STAGES:-suite,forced,bench,memcheck,racecheck}
want() { [[ ",$STAGES," == *",$1,"* ]]; }

# The loader tests look for test plugins under the build tree's absolute path: not carried.
if want suite; then
t0=$(date +%s)
timeout "${T_SUITE:-240}" "$DIST/bin/tessera-tests" -tce='plugin loader*' > "$OUT/suite.log" 2>&1
rc=$?
grep -E "ERROR|FATAL|CRASH" "$OUT/suite.log" | sort | uniq -c | head -20
summary+=("suite rc=$rc: $(grep -E '^\[doctest\] (test cases|assertions)' "$OUT/suite.log" | tr '\n' ' ') [$(($(date +%s) - t0)) s]")
summary+=("devices the suite ran on: $(grep -oE 'ran [a-z_0-9<>]+ on [a-z:0-9]+' "$OUT/suite.log" | awk '{print $4}' | sort | uniq -c | tr '\n' ' ')")
fi

# Choices forced on cuda:0 (TESSERA_TUNE), each over the tests it changes: the gemm grid's
# (plan/gemm_grid.hpp's model): every gemm, trsm update and Winograd product split into 3 parts
# (f32 also computed as C^T), then neither; all on wide tiles, then all on narrow ones (f64: the
# pipelined and the plain DMMA loop); f32's wide tiles all on the 8 x 16 kernel, then none
# (gemm.deep_k); tf32 / tf32x3 on the wgmma kernel wherever it
# applies, its operand rounded (and split) through a 1 MiB workspace (in chunks of rows or of the
# batch) and in the kernel (gemm.tf32_round_mb=0); tf32 / tf32x3 conv layers on the direct
# tensor-core kernel wherever it applies, and never; Winograd's f32 products of layers with C <= 64
# on gemm's tiles, and on the streaming kernel with 3 blocks (runs across products and filter
# blocks; F(2 x 2)); the temporally blocked 7-point stencil on every test
# grid, the runs kernel in 1, 2 and 4 rows a thread and the tile kernel (tb_rows=0); the runs
# kernel with one level as every one-step pass, with z chunks of 1 plane, and 3 levels in chunks
# of 2, shorter than its pipeline (stencil.runs_z_chunk); the bulk-copy sweep on every stencil
# test in tiles of 32 x 8 threads (two blocks an SM, 6-plane chunks) and of 8 x 32 (two; the
# default is 16 x 16, three), and a shape not built (8 x 8: a typed error); sparse triangular solves by one block and by
# the sync-free launch everywhere, by the few-levels launch wherever there are at most 16 levels,
# by parts of the rows everywhere, the default with the sync-free launch, parts of few rows and of
# many (one block for two SMs); the
# analysis's levels by blocks of 32 threads, by blocks of 128 threads 3 rows each, and by one
# block wherever it holds them; skewed SpMV on merge path instead of the split kernel, and the
# long-row SpMM in two launches instead of one; every SpMV as SELL-C-sigma, rows in their order
# (CUDA's default sigma, 1) and sorted in windows of 256.
if want forced; then
gemm_tests='*gemm*,*trsm*,*conv_layer*,*Winograd*'
sptrsv_tests='*sptrsv*,*real matrices*'
tb='stencil.time_block_min_bytes=0,stencil.time_block'
for forced in "gemm.splits=3,gemm.c_trans=1|$gemm_tests" "gemm.splits=1,gemm.c_trans=0|$gemm_tests" \
  "gemm.tiles=0|$gemm_tests" "gemm.tiles=1|$gemm_tests" "gemm.deep_k=0|$gemm_tests" \
  "gemm.deep_k=1099511627776|$gemm_tests" \
  "gemm.tf32_kernel=1,gemm.tf32_round_mb=1|$gemm_tests" "gemm.tf32_kernel=1,gemm.tf32_round_mb=0|$gemm_tests" \
  "conv_layer.direct_tc=1|$gemm_tests" "conv_layer.direct_tc=0|$gemm_tests" \
  "conv_layer.winograd_products=0|$gemm_tests" "conv_layer.winograd_products=3,conv_layer.winograd=1|$gemm_tests" \
  "$tb=2,stencil.tb_rows=2|*stencil*" "$tb=3,stencil.tb_rows=1|*stencil*" "$tb=4,stencil.tb_rows=4|*stencil*" \
  "$tb=3,stencil.tb_rows=0|*stencil*" "stencil.plane_sweep=4,$tb=1|*stencil*" \
  "stencil.plane_sweep=4,$tb=1,stencil.runs_z_chunk=1|*stencil*" "$tb=3,stencil.runs_z_chunk=2|*stencil*" \
  "stencil.plane_sweep=3,stencil.bulk_lanes=32,stencil.bulk_rows=8,stencil.bulk_min_blocks=2,stencil.z_chunk=6|*stencil*" \
  "stencil.plane_sweep=3,stencil.bulk_lanes=8,stencil.bulk_rows=32,stencil.bulk_min_blocks=2|*stencil*" \
  "stencil.bulk_lanes=8,stencil.bulk_rows=8|*bulk stencil tile shape*" \
  "sptrsv.syncfree=0|$sptrsv_tests" "sptrsv.syncfree=1,sptrsv.parts=0,sptrsv.few_levels=0|$sptrsv_tests" \
  "sptrsv.syncfree=1,sptrsv.few_levels=16|$sptrsv_tests" \
  "sptrsv.syncfree=1,sptrsv.few_levels=0|$sptrsv_tests" "sptrsv.parts=0|$sptrsv_tests" \
  "sptrsv.parts=64,sptrsv.part_groups=1|$sptrsv_tests" "sptrsv.parts=4|$sptrsv_tests" \
  "sptrsv.level_threads=32|$sptrsv_tests" "sptrsv.level_rows=3|$sptrsv_tests" \
  "sptrsv.level_block_rows=1048576|$sptrsv_tests" \
  "spmv.split_max_nnz=0,spmm.one_launch_max_nnz=0|*spmv*,*spmm*,*real matrices*,*threads*" \
  "spmv.format=sell|*spmv*,*sell*,*real matrices*,*graph*" "spmv.format=sell,spmv.sell_sigma=256|*spmv*,*sell*,*real matrices*"; do
  tune=${forced%%|*}
  t0=$(date +%s)
  log="$OUT/forced-${tune//[=,.]/_}.log"
  TESSERA_TUNE=$(echo "$tune" | sed 's/^/cuda:0:/; s/,/,cuda:0:/g') TESSERA_TEST_DEVICES=cuda:0 timeout "${T_FORCED:-200}" \
    "$DIST/bin/tessera-tests" -tc="${forced#*|}" > "$log" 2>&1
  rc=$?
  summary+=("forced $tune rc=$rc: $(grep -E '^\[doctest\] (test cases|assertions)' "$log" | tr '\n' ' ') [$(($(date +%s) - t0)) s]")
done
fi

if want bench; then
t0=$(date +%s)
timeout "${T_BENCH:-200}" "$DIST/bin/tessera-bench" --devices "${BENCH_DEVICES:-cuda:0,opencl:0}" --size "${BENCH_SIZE:-large}" \
  --min-time 0.2 --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
rc=$?
summary+=("bench rc=$rc [$(($(date +%s) - t0)) s]")
fi

SAN=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
# The sanitizers watch the GPU devices only (SAN_DEVICES): host backends gain nothing from them.
# Left out under them: the loader tests (paths of the build tree), the bad-input and overflow
# tests (errors on purpose), and the queue-overlap test, whose copy and kernels the sanitizer
# serialises (it measured 200.6 ms both on two queues against 4.9 + 195.8 ms apart). Racecheck
# leaves out the sparse triangular analysis's level chain (kernels/cuda/sptrsv.cu, levels_kernel),
# whose threads poll levels other threads of the block write to shared memory, without a barrier
# by design: it reports those polls as hazards (session 32); memcheck and synccheck cover it. The
# pattern is a substring of the mangled name, its length prefix keeping solve_levels_kernel in.
for tool in memcheck racecheck; do
  if [ -n "$SAN" ] && want $tool; then
    t0=$(date +%s)
    TESSERA_TEST_DEVICES=${SAN_DEVICES:-cuda:0} timeout "${T_SAN:-200}" "$SAN" --tool $tool --error-exitcode 9 --print-limit 20 \
      $([ $tool = memcheck ] && echo --report-api-errors no) $([ $tool = racecheck ] && echo --kernel-name-exclude kns=13levels_kernel) \
      "$DIST/bin/tessera-tests" -tc="${SAN_TESTS:-*}" -tce="${SAN_EXCLUDE:-plugin loader*,*bad input*,*overflow*,*overlaps*}" > "$OUT/$tool.log" 2>&1
    rc=$?
    summary+=("$tool rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool.log" | tail -1) $(grep -E '^\[doctest\] test cases' "$OUT/$tool.log") [$(($(date +%s) - t0)) s]")
    # The temporally blocked stencil kernels, which the defaults keep for grids beyond the test
    # grids, forced onto the stencil tests of odd step counts and of whole 16-byte rows (z chunks
    # shorter than the levels among them): 3 levels in 2 rows a thread, and one level as every
    # one-step pass.
    i=0
    for forced in "stencil.time_block_min_bytes=0,stencil.time_block=3,stencil.tb_rows=2" \
      "stencil.plane_sweep=4,stencil.time_block=1"; do
      t0=$(date +%s) i=$((i + 1))
      TESSERA_TUNE=$(echo "$forced" | sed 's/^/cuda:0:/; s/,/,cuda:0:/g') TESSERA_TEST_DEVICES=cuda:0 \
        timeout "${T_SAN:-200}" "$SAN" --tool $tool --error-exitcode 9 --print-limit 20 \
        "$DIST/bin/tessera-tests" -tc='*steps 3/7/16*,*whole 16-byte runs*' > "$OUT/$tool-forced$i.log" 2>&1
      rc=$?
      summary+=("$tool forced $forced rc=$rc: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/$tool-forced$i.log" | tail -1) $(grep -E '^\[doctest\] test cases' "$OUT/$tool-forced$i.log") [$(($(date +%s) - t0)) s]")
    done
  fi
done

[ -f "$OUT/bench.txt" ] && grep -vE "^\s*$" "$OUT/bench.txt" | grep -E "opencl:0|cuda:0|==" | cut -c1-160 | head -70
printf '%s\n' "${summary[@]}"
