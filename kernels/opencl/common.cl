// Prepended by the host to every kernel file: the real type and helpers shared by all kernels.
// OpenCL C 1.2. The host passes -DREAL=float or -DREAL=double (with -DTESSERA_FP64 when double,
// only on devices that report cl_khr_fp64), plus each file's tuning macros from the profile.
#ifdef TESSERA_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifndef REAL
#define REAL float
#endif

// The profile's kernel family (-DTESSERA_CPU_KERNELS=1 or -DTESSERA_GPU_KERNELS=1): each file
// compiles only its variants for that family. Fewer kernels per program is less driver time
// (PoCL compiles every kernel of a program when its binary is queried for the disk cache).
#ifndef TESSERA_CPU_KERNELS
#define TESSERA_CPU_KERNELS 0
#endif
#ifndef TESSERA_GPU_KERNELS
#define TESSERA_GPU_KERNELS 0
#endif

// Two-step token pasting so that macro arguments are expanded first: REALV(8) -> float8.
#define TS_CAT_(a, b) a##b
#define TS_CAT(a, b) TS_CAT_(a, b)
#define REALV(n) TS_CAT(REAL, n)
#define VLOADN(n) TS_CAT(vload, n)
#define VSTOREN(n) TS_CAT(vstore, n)
