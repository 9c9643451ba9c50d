// Conjugate gradients on a small system in one work-group (backends/opencl/cg.cpp): the
// iterations between two of the solver's checks run in one launch, each costing a few barriers
// instead of the four launches of the separate operations (on NVIDIA's OpenCL a launch costs
// ~10 us, an iteration of a small system ~53 us that way). The state and its updates are those
// of Backend::cg_steps; each update is the separate operations' arithmetic on each element.
// Built with reduce.cl's defines (ACC: double accumulators for float data where the device has
// them) and cg's (CG_WG). GPU devices only (the tuning value cg.fused_max_nnz is 0 elsewhere).
#ifndef CG_WG
#define CG_WG 256  // work-items of the one group: a multiple of 32
#endif
#define CG_LEAVES (CG_WG / 32)
#define ACC2 TS_CAT(ACC, 2)

// (sum of a, sum of b) over the group, the same bits in every work-item: the pairs into local
// memory (transposed, so a leaf's work-item reads across banks), CG_LEAVES work-items each add
// 32 of them, then every work-item adds the leaves in order. Three barriers' worth of latency
// instead of a log2(CG_WG)-level tree.
inline ACC2 group_sum2(ACC a, ACC b, __local ACC2* red, __local ACC2* leaf) {
  const int l = get_local_id(0);
  red[(l % 32) * CG_LEAVES + l / 32] = (ACC2)(a, b);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < CG_LEAVES) {
    ACC2 s = (ACC2)(0, 0);
    for (int i = 0; i < 32; ++i) s += red[i * CG_LEAVES + l];
    leaf[l] = s;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  ACC2 t = (ACC2)(0, 0);
  for (int i = 0; i < CG_LEAVES; ++i) t += leaf[i];
  return t;
}

// `steps` iterations of CG (Jacobi with d = 1 / diag(A) when d is not null, else z is r). Work-item
// l owns rows l, l + CG_WG, ...: for the product and every vector update,
// so a row's ap, r, z written in one phase are read by the same work-item in the next. Between
// iterations a global barrier publishes p to the whole group before the next product reads it.
__kernel __attribute__((reqd_work_group_size(CG_WG, 1, 1))) void cg_steps(
    __global const int* row_ptr, __global const int* col_idx, __global const REAL* values, __global const REAL* d,
    long doff, __global REAL* x, long xoff, __global REAL* r, long roff, __global REAL* p, long poff,
    __global REAL* ap, long apoff, __global REAL* z, long zoff, __global REAL* rz_io, long rzoff,
    __global REAL* rr_out, long rroff, long n, int steps) {
  __local ACC2 red[CG_WG];
  __local ACC2 leaf[CG_LEAVES];
  const int l = get_local_id(0);
  const int precond = d != 0;
  if (precond) d += doff;
  x += xoff;
  r += roff;
  p += poff;
  ap += apoff;
  z += zoff;
  REAL rz = rz_io[rzoff], rr = 0;
  for (int it = 0; it < steps; ++it) {
    // ap = A p and p . ap
    ACC pq_part = 0;
    // Each work-item sums its rows' products itself, four in flight: no barrier, and a row's
    // entries are one contiguous run the work-item's loads walk (in cache after the first
    // iteration: the system is small). Staging a group's nonzeros in local memory as
    // spmv_stream does measured no faster (bench/RESULTS.md, session 10).
    for (long row = l; row < n; row += CG_WG) {
      const int end = row_ptr[row + 1];
      int k = row_ptr[row];
      REAL s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (; k + 3 < end; k += 4) {
        s0 += values[k] * p[col_idx[k]];
        s1 += values[k + 1] * p[col_idx[k + 1]];
        s2 += values[k + 2] * p[col_idx[k + 2]];
        s3 += values[k + 3] * p[col_idx[k + 3]];
      }
      for (; k < end; ++k) s0 += values[k] * p[col_idx[k]];
      const REAL sum = (s0 + s1) + (s2 + s3);
      ap[row] = sum;
      pq_part += (ACC)p[row] * (ACC)sum;
    }
    const REAL pq = (REAL)group_sum2(pq_part, 0, red, leaf).x;
    // r += (-rz / pq) ap, z = d r, r . z and r . r (axpy_multiply_dot2's arithmetic)
    const REAL alpha = (REAL)((ACC)rz / (ACC)pq), minus_alpha = (REAL)(-(ACC)rz / (ACC)pq);
    ACC rz_part = 0, rr_part = 0;
    for (long i = l; i < n; i += CG_WG) {
      const REAL ri = r[i] + minus_alpha * ap[i];
      r[i] = ri;
      const REAL zi = precond ? d[i] * ri : ri;
      if (precond) z[i] = zi;
      rz_part += (ACC)ri * (ACC)zi;
      rr_part += (ACC)ri * (ACC)ri;
    }
    const ACC2 s = group_sum2(rz_part, rr_part, red, leaf);
    const REAL rz_new = (REAL)s.x;
    rr = (REAL)s.y;
    // x += alpha p, then p = z + (rz_new / rz) p (axpby_pair's)
    const REAL beta = (REAL)((ACC)rz_new / (ACC)rz);
    for (long i = l; i < n; i += CG_WG) {
      const REAL pi = p[i];
      x[i] = alpha * pi + x[i];
      p[i] = (precond ? z[i] : r[i]) + beta * pi;
    }
    rz = rz_new;
    barrier(CLK_GLOBAL_MEM_FENCE);  // p complete before the next product gathers it
  }
  if (l == 0) {
    rz_io[rzoff] = rz;
    rr_out[rroff] = rr;
  }
}
