# The configure arguments shared by the sanitizer builds (scripts/test.sh's ASan + UBSan build,
# scripts/tsan.sh's ThreadSanitizer build): sourced by both, which add the sanitizer itself.
#
# -O1 as usual for sanitizers: Highway compiles every kernel once per SIMD target, and -O3 under
# ASan triples that time. -g1 -fno-var-tracking-assignments: the sanitizers' reports need line
# tables, not the locations of variables, and tracking those through Highway's unrolled
# per-target kernels was most of the build (kernels/cpu/conv.cpp: 369 s of a 853 s build on 2
# cores; one target of it 150 -> 26 s); -g1 keeps the line tables and function names and drops
# the descriptions of types and variables too (tests/test_bad_input.cpp 59 -> 52 s). The CUDA
# plugin cannot run without a GPU; the bench and the OpenCL plugin (PoCL compiles kernels with
# LLVM inside the process) are covered by the Release run.
sanitizer_cmake_args=(
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -fno-var-tracking-assignments -DNDEBUG"
  -DTESSERA_WITH_CUDA=OFF -DTESSERA_WITH_OPENCL=OFF -DTESSERA_BUILD_BENCH=OFF
)
