// C = alpha * op(A) * op(B) + beta * C (kernels/opencl/gemm.cl): op(A) and op(B) are packed
// into panels (which absorbs the transposes, the leading dimensions and the ragged edges),
// then one compute kernel runs: gpu family = gemm_tiled (local-memory tiles of mwg x nwg x kwg,
// register blocks per work-item), cpu family = gemm_regblock (register blocks of
// (mwg/mdimc) x (nwg/ndimc) per work-item as vw-wide vectors, no local memory), or, with
// gemm.kernels = 2 on NVIDIA's platform, gemm_ptx (kernels/opencl/gemm_ptx.cl: cp.async
// pipeline; f64 on the FP64 tensor cores) with its own tile shapes.
#include <algorithm>
#include <string>

#include "opencl_backend.hpp"

namespace tessera::opencl {

namespace {

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

// gemm_ptx.cl's tiles (its warp layout fixes them): f64 = 2 x 2 warps of 64 x 32 outputs
// (m16n8k4 fragments; 128 x 64 of 4 warps, 2 groups per SM, measured best in CUDA),
// f32 = 16 x 16 work-items of 8 x 8. k-tiles of 8: three (f64) or four (f32) stages fit the
// 48 KB of local memory a group may use.
struct PtxTile {
  int bm, bn, bk, pad, threads;
};
PtxTile ptx_tile(DType dt) { return dt == DType::f64 ? PtxTile{128, 64, 8, 4, 128} : PtxTile{128, 128, 8, 0, 256}; }

}  // namespace

bool OpenCLBackend::gemm_ptx() const {
  return nvidia_ptx_ && !cpu_family() && profile_.gemm_kernels == kGemmNvidiaPtx;
}

std::string OpenCLBackend::gemm_ptx_defines(DType dt, bool conv_gather) const {
  const PtxTile t = ptx_tile(dt);
  const std::size_t esize = dtype_size(dt);
  const std::size_t stage_bytes = static_cast<std::size_t>((t.bm + t.pad + t.bn + t.pad) * t.bk) * esize;
  const std::size_t budget = std::min<std::size_t>(static_cast<std::size_t>(profile_.local_mem_kb) * 1024, local_mem_);
  const std::size_t stages = std::max<std::size_t>(2, std::min<std::size_t>(4, budget / stage_bytes));
  std::string d = "-DBM=" + std::to_string(t.bm) + " -DBN=" + std::to_string(t.bn) + " -DBK=" + std::to_string(t.bk) +
                  " -DPAD=" + std::to_string(t.pad) + " -DSTAGES=" + std::to_string(stages) +
                  " -DCONV_GATHER=" + (conv_gather ? "1" : "0");
  // f32: 64 accumulators per work-item; at most 128 registers keeps two groups of 256 per SM
  // (as the CUDA kernel's __launch_bounds__(256, 2)).
  if (dt == DType::f32) d += " -cl-nv-maxrregcount=128";
  return d;
}

std::size_t OpenCLBackend::gemm_ptx_threads(DType dt) const { return static_cast<std::size_t>(ptx_tile(dt).threads); }

// The profile's tile parameters, for dtype dt. A cpu work-item's register block is sized in
// registers, i.e. bytes: in f64 the same vector registers hold half the columns, so nwg and vw
// halve (measured on PoCL/AVX-512: +10-40% for f64 gemm, where f32's block would spill).
DeviceProfile OpenCLBackend::gemm_params(DType dt) const {
  DeviceProfile p = profile_;
  if (gemm_ptx()) {  // panels as wide as gemm_ptx's tiles, Kp a multiple of its k-tile
    const PtxTile t = ptx_tile(dt);
    p.gemm_mwg = t.bm, p.gemm_nwg = t.bn, p.gemm_kwg = t.bk;
    return p;
  }
  if (cpu_family() && dt == DType::f64 && p.gemm_vw > 1 && (p.gemm_nwg / p.gemm_ndimc) % 2 == 0) {
    p.gemm_nwg /= 2;
    p.gemm_vw /= 2;
  }
  return p;
}

OpenCLBackend::GemmShape OpenCLBackend::gemm_shape(DType dt, std::int64_t m, std::int64_t n, std::int64_t k) const {
  const DeviceProfile p = gemm_params(dt);
  GemmShape s;
  s.m = m, s.n = n, s.k = k;
  if (cpu_family()) {
    s.panel_m = p.gemm_mwg / p.gemm_mdimc;  // a work-item's rows
    s.panel_n = p.gemm_nwg / p.gemm_ndimc;  // a work-item's columns
    s.kp = k;
  } else {
    s.panel_m = p.gemm_mwg;  // a work-group's tile
    s.panel_n = p.gemm_nwg;
    s.kp = round_up(k, p.gemm_kwg);
  }
  s.mp = round_up(m, s.panel_m);
  s.np = round_up(n, s.panel_n);
  return s;
}

std::string OpenCLBackend::gemm_defines(DType dt) const {
  const DeviceProfile p = gemm_params(dt);
  const GemmShape s = gemm_shape(dt, 1, 1, 1);  // for the panel widths
  return "-DMWG=" + std::to_string(p.gemm_mwg) + " -DNWG=" + std::to_string(p.gemm_nwg) +
         " -DKWG=" + std::to_string(p.gemm_kwg) + " -DMDIMC=" + std::to_string(p.gemm_mdimc) +
         " -DNDIMC=" + std::to_string(p.gemm_ndimc) + " -DVW=" + std::to_string(p.gemm_vw) +
         " -DPANEL_A=" + std::to_string(s.panel_m) + " -DPANEL_B=" + std::to_string(s.panel_n);
}

void OpenCLBackend::gemm_pack(DType dt, bool is_a, const void* src, std::int64_t ld, std::int64_t rows, std::int64_t k,
                              bool src_rows_contiguous, const cl::Buffer& dst, std::int64_t padded_rows,
                              std::int64_t kp) {
  if (padded_rows == 0 || kp == 0) return;
  cl::Kernel& kern = kernel("gemm.cl", dt, gemm_defines(dt), is_a ? "gemm_pack_a" : "gemm_pack_b");
  set_args(kern, dt, const_cast<void*>(src), ld, rows, k, src_rows_contiguous ? 1 : 0, dst, padded_rows, kp);
  // Dimension 0 follows the source's contiguous index; 16 x 4 fits every profile's limits.
  const std::int64_t d0 = src_rows_contiguous ? padded_rows : kp, d1 = src_rows_contiguous ? kp : padded_rows;
  launch(kern, cl::NDRange(static_cast<std::size_t>(round_up(d0, 16)), static_cast<std::size_t>(round_up(d1, 4))),
         cl::NDRange(16, 4));
}

void OpenCLBackend::gemm_packed(DType dt, const GemmShape& s, double alpha, const cl::Buffer& Ap, const cl::Buffer& Bp,
                                double beta, void* C, std::int64_t c_offset, std::int64_t ldc, std::int64_t group_cols,
                                std::int64_t group_stride) {
  const DeviceProfile p = gemm_params(dt);
  const int read_c = beta != 0.0 ? 1 : 0;  // beta == 0: C is not read
  // n and the column groups are int in the kernels (the stores' index arithmetic).
  const int n = static_cast<int>(s.n), gcols = static_cast<int>(group_cols);
  if (cpu_family()) {
    const int panels_m = static_cast<int>(s.mp / s.panel_m), panels_n = static_cast<int>(s.np / s.panel_n);
    cl::Kernel& k = kernel("gemm.cl", dt, gemm_defines(dt), "gemm_regblock");
    set_args(k, dt, Ap, Bp, C, c_offset, ldc, s.m, n, static_cast<int>(s.kp), Real{alpha}, Real{beta}, read_c, gcols,
             group_stride, panels_m, panels_n);
    launch(k,
           cl::NDRange(static_cast<std::size_t>(round_up(panels_n, p.gemm_ndimc)),
                       static_cast<std::size_t>(round_up(panels_m, p.gemm_mdimc))),
           cl::NDRange(static_cast<std::size_t>(p.gemm_ndimc), static_cast<std::size_t>(p.gemm_mdimc)));
    return;
  }
  if (gemm_ptx()) {
    const std::size_t threads = gemm_ptx_threads(dt);
    cl::Kernel& k = kernel("gemm_ptx.cl", dt, gemm_ptx_defines(dt, false), "gemm_ptx");
    set_args(k, dt, Ap, Bp, C, c_offset, ldc, s.m, n, static_cast<int>(s.kp), Real{alpha}, Real{beta}, read_c, gcols,
             group_stride);
    const auto tiles_n = static_cast<std::size_t>(s.np / s.panel_n);
    const auto tiles_m = static_cast<std::size_t>(s.mp / s.panel_m);
    launch(k, cl::NDRange(tiles_n * threads, tiles_m), cl::NDRange(threads, 1));
    return;
  }
  cl::Kernel& k = kernel("gemm.cl", dt, gemm_defines(dt), "gemm_tiled");
  set_args(k, dt, Ap, Bp, C, c_offset, ldc, s.m, n, static_cast<int>(s.kp), Real{alpha}, Real{beta}, read_c, gcols,
           group_stride);
  launch(k,
         cl::NDRange(static_cast<std::size_t>(s.np / p.gemm_nwg * p.gemm_ndimc),
                     static_cast<std::size_t>(s.mp / p.gemm_mwg * p.gemm_mdimc)),
         cl::NDRange(static_cast<std::size_t>(p.gemm_ndimc), static_cast<std::size_t>(p.gemm_mdimc)));
}

void OpenCLBackend::gemm(DType dt, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
                         const MatView& C) {
  require_dtype(Op::gemm, dt);
  std::lock_guard<std::mutex> lock(mutex_);
  translate_errors(where("gemm"), [&] {
    const std::int64_t m = C.rows, n = C.cols, k = ta == Trans::N ? A.cols : A.rows;
    const GemmShape s = gemm_shape(dt, m, n, k);
    const std::size_t esize = dtype_size(dt);
    cl::Buffer& Ap = scratch(Scratch::gemm_a, static_cast<std::size_t>(s.mp * s.kp) * esize);
    cl::Buffer& Bp = scratch(Scratch::gemm_b, static_cast<std::size_t>(s.np * s.kp) * esize);
    // Packed A: rows i of op(A); op(A)(i, p) = A[i * lda + p] (N) or A[p * lda + i] (T).
    gemm_pack(dt, true, A.data, A.ld, m, k, ta == Trans::T, Ap, s.mp, s.kp);
    // Packed B: columns j of op(B); op(B)(p, j) = B[p * ldb + j] (N) or B[j * ldb + p] (T).
    gemm_pack(dt, false, B.data, B.ld, n, k, tb == Trans::N, Bp, s.np, s.kp);
    gemm_packed(dt, s, alpha, Ap, Bp, beta, C.data, 0, C.ld, n, 0);  // one group of n columns
  });
}

}  // namespace tessera::opencl
