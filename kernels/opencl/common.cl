// Prepended by the host to every kernel file: the real type and helpers shared by all kernels.
// OpenCL C 1.2. The host passes -DREAL=float or -DREAL=double (with -DTESSERA_FP64 when double,
// only on devices that report cl_khr_fp64), plus each file's tuning macros,
// generated from the device's tuning values (lib/src/tuning: spmv.wg -> SPMV_WG).
// TESSERA_ACC_FP64: float data with double accumulators (reduce.cl), on devices with fp64.
#if defined(TESSERA_FP64) || defined(TESSERA_ACC_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef REAL
#define REAL float
#endif

// The kernel variants (-DDEVICE_CPU_KERNELS=0 or 1, the tuning value device.cpu_kernels, with
// the other device.* values): each file compiles only its variants for that kind of device.
// Fewer kernels per program is less driver time (PoCL compiles every kernel of a program when
// its binary is queried for the disk cache).
#ifndef DEVICE_CPU_KERNELS
#define DEVICE_CPU_KERNELS 0
#endif
#define TESSERA_CPU_KERNELS (DEVICE_CPU_KERNELS != 0)
#define TESSERA_GPU_KERNELS (DEVICE_CPU_KERNELS == 0)

// Two-step token pasting so that macro arguments are expanded first: REALV(8) -> float8.
#define TS_CAT_(a, b) a##b
#define TS_CAT(a, b) TS_CAT_(a, b)
#define REALV(n) TS_CAT(REAL, n)
#define VLOADN(n) TS_CAT(vload, n)
#define VSTOREN(n) TS_CAT(vstore, n)

// A fence that orders this work-item's global memory accesses for the whole device (release
// before publishing a flag, acquire after reading one). OpenCL 1.2's mem_fence only promises
// ordering as seen by the work-group (NVIDIA compiles it to membar.cta); on NVIDIA's compiler
// (TESSERA_NVIDIA_PTX, set by the host) inline PTX gives the device-wide membar.gl.
#if TESSERA_NVIDIA_PTX
#define DEVICE_FENCE()              \
  mem_fence(CLK_GLOBAL_MEM_FENCE); \
  asm volatile("membar.gl;")
#else
#define DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif
