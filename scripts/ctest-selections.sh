# Test selections shared by the CI scripts (sourced by scripts/test.sh and scripts/cross-arm.sh).
#
# gpu_only_shape_tests (a ctest -E regular expression, without anchors): the cases shaped for the
# CUDA kernels. The gemm ones: exact tiles, k = 0 and 1 over several tiles and k-steps, Hopper's
# copy-engine shapes, a long k. The conv_layer ones: the Winograd path's tile edges and workspace
# chunks (only the CUDA plugin has that path). Without a GPU only the cpu and reference devices
# run them, whose own edges the gemm and conv suites and the per-target tests take; the GPU
# machine's suite runs them on cuda:0 and NVIDIA OpenCL, and the Release run on the cpu and PoCL.
# Left out of the emulated run (122 s of its test time) and of the sanitizer run (45 s).
gpu_only_shape_tests='gpu cases: gemm on exact tiles|gemm math modes: (16-byte aligned|a longer product)|conv_layer: (3x3 stride-1 layers .Winograd|a batch of 32 x 32 images)'
