# Test selections shared by the CI scripts (sourced by scripts/test.sh and scripts/cross-arm.sh).
#
# gpu_only_shape_tests (a ctest -E regular expression, without anchors): the GPU kernels' gemm
# shapes (exact tiles, k = 0 and 1 over several tiles and k-steps, Hopper's copy-engine shapes, a
# long k). Without a GPU only the cpu and reference devices run them, whose own edges the gemm
# suite and the per-target tests take; the GPU machine's suite runs them on cuda:0 and NVIDIA
# OpenCL, and the Release run on PoCL. Left out of the emulated run (60 s there) and of the
# sanitizer run (36 s of test time there).
gpu_only_shape_tests='gpu cases: gemm on exact tiles|gemm math modes: (16-byte aligned|a longer product)'
