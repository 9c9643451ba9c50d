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

// ---- additive reductions: the accumulator and the last step (reduce.cl, vector.cl's fused dots) ----
// ACC: double for float data on devices with doubles (-DTESSERA_ACC_FP64), else the data's type.
#ifdef TESSERA_ACC_FP64
#define ACC double
#else
#define ACC REAL
#endif
#ifndef REDUCE_WG
#define REDUCE_WG 256  // work-group size of the reductions' tree kernels, a power of two
#endif
#ifndef REDUCE_SINGLE_PASS
#define REDUCE_SINGLE_PASS 0
#endif

// out[out_off] = the sum of the `count` partials p[0..count) (with root: its square root), in
// REAL. Every work-item of one group of REDUCE_WG calls it; `part` is REDUCE_WG of local memory.
// Compensated (Kahan) per work-item, then a tree: the same arithmetic whether a separate final
// launch runs it (reduce_sum_final) or the first pass's last group does (REDUCE_SINGLE_PASS), so
// both give the same bits. p is read volatile: in the single pass, other groups wrote it during
// this kernel, and a cached copy in this compute unit's L1 would be stale.
inline void sum_partials(__global volatile const ACC* p, long count, __local ACC* part, __global REAL* out,
                         long out_off, int root) {
  const int l = get_local_id(0);
  ACC s = 0, c = 0;
  for (long i = l; i < count; i += REDUCE_WG) {
    const ACC t = p[i] - c;
    const ACC u = s + t;
    c = (u - s) - t;
    s = u;
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // the caller may still be reading part
  part[l] = s - c;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = REDUCE_WG / 2; off > 0; off >>= 1) {
    if (l < off) part[l] += part[l + off];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[out_off] = (REAL)(root ? sqrt(part[0]) : part[0]);
}

// One launch instead of two (REDUCE_SINGLE_PASS, the tuning value reduce.single_pass): after a
// group has stored its partials, it takes a ticket; the group that draws the last one sums all
// partials (sum_partials) and puts the ticket back to zero for the next reduction on the queue.
// Launches cost more than the few hundred partials on NVIDIA's OpenCL (a CG iteration is
// launch-bound below ~10^5 rows). Called by every work-item; true in the last group only.
inline bool last_group_arrived(__global int* ticket, __local int* flag) {
  if (get_local_id(0) == 0) {
    DEVICE_FENCE();  // this group's partials, visible before its ticket
    *flag = atomic_inc(ticket) == (int)get_num_groups(0) - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const bool last = *flag != 0;
  if (last) DEVICE_FENCE();  // every other group's partials, before reading them
  return last;
}

// The work-group's sum of s into partial[slot] (all work-items of a REDUCE_WG group
// call it): reduce.cl's first passes, vector.cl's fused dots and spmv.cl's spmv_*_dot.
inline void group_sum(ACC s, __local ACC* part, __global ACC* partial, long slot) {
  const int l = get_local_id(0);
  part[l] = s;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = REDUCE_WG / 2; off > 0; off >>= 1) {
    if (l < off) part[l] += part[l + off];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) partial[slot] = part[0];
}

// After every group has stored its partial (group_sum): with REDUCE_SINGLE_PASS the last group to
// arrive sums the partials into out[out_off] (with root: the square root) and puts the ticket
// back to zero for the next reduction on the queue. Called by every work-item.
inline void finish_single_pass(__global ACC* partial, __local ACC* part, __global int* ticket, __local int* last,
                               __global REAL* out, long out_off, int root) {
  if (REDUCE_SINGLE_PASS && last_group_arrived(ticket, last)) {
    sum_partials(partial, get_num_groups(0), part, out, out_off, root);
    if (get_local_id(0) == 0) *ticket = 0;
  }
}
