// C = alpha * op(A) * op(B) + beta * C (kernels/opencl/gemm.cl): op(A) and op(B) are packed
// into panels (which absorbs the transposes, the leading dimensions and the ragged edges),
// then one compute kernel runs: gpu kernels = gemm_tiled (local-memory tiles of mwg x nwg x kwg,
// register blocks per work-item), cpu kernels = gemm_regblock (register blocks of
// (mwg/mdimc) x (nwg/ndimc) per work-item as vw-wide vectors, no local memory), or, with
// gemm.kernels = 2 on NVIDIA's platform, gemm_ptx (kernels/opencl/gemm_ptx.cl: cp.async
// pipeline; f64 on the FP64 tensor cores) with its own tile shapes.
#include "gemm.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

namespace tessera::opencl {

namespace {

constexpr int kGemmNvidiaPtx = 2;  // gemm.kernels

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

// gemm_ptx.cl's tiles (its warp layout fixes them): f64 = 2 x 2 warps of 64 x 32 outputs
// (m16n8k4 fragments; 128 x 64 of 4 warps, 2 groups per SM, measured best in CUDA),
// f32 = 16 x 16 work-items of 8 x 8. k-tiles of 8: three (f64) or four (f32) stages fit the
// 48 KB of local memory a group may use.
struct PtxTile {
  int bm, bn, bk, pad, threads;
};
template <class T>
PtxTile ptx_tile() {
  return std::is_same_v<T, double> ? PtxTile{128, 64, 8, 4, 128} : PtxTile{128, 128, 8, 0, 256};
}

// The gemm tuning values for T. gemm_ptx: panels as wide as its tiles, Kp a multiple of its
// k-tile. cpu kernels: a work-item's register block is sized in registers, i.e. bytes: in f64
// the same vector registers hold half the columns, so nwg and vw halve (measured on
// PoCL/AVX-512: +10-40% for f64 gemm, where f32's block would spill).
template <class T>
tuning::Tuning gemm_tuning(const OpenCLBackend& cl) {
  tuning::Tuning t = cl.tuning();
  if (gemm_ptx(cl)) {
    const PtxTile p = ptx_tile<T>();
    t.set("gemm.mwg", p.bm), t.set("gemm.nwg", p.bn), t.set("gemm.kwg", p.bk);
    return t;
  }
  if (cl.cpu_kernels() && std::is_same_v<T, double> && t["gemm.vw"] > 1 &&
      (t["gemm.nwg"] / t["gemm.ndimc"]) % 2 == 0) {
    t.set("gemm.nwg", t["gemm.nwg"] / 2);
    t.set("gemm.vw", t["gemm.vw"] / 2);
  }
  return t;
}

template <class T>
GemmShape shape_for(const OpenCLBackend& cl, const tuning::Tuning& t, std::int64_t m, std::int64_t n,
                    std::int64_t k) {
  GemmShape s;
  s.m = m, s.n = n, s.k = k;
  if (cl.cpu_kernels()) {
    s.panel_m = t.get("gemm.mwg") / t.get("gemm.mdimc");  // a work-item's rows
    s.panel_n = t.get("gemm.nwg") / t.get("gemm.ndimc");  // a work-item's columns
    s.kp = k;
  } else {
    s.panel_m = t.get("gemm.mwg");  // a work-group's tile
    s.panel_n = t.get("gemm.nwg");
    s.kp = round_up(k, t["gemm.kwg"]);
  }
  s.mp = round_up(m, s.panel_m);
  s.np = round_up(n, s.panel_n);
  return s;
}

}  // namespace

bool gemm_ptx(const OpenCLBackend& cl) {
  return cl.nvidia_ptx() && !cl.cpu_kernels() && cl.tuning()["gemm.kernels"] == kGemmNvidiaPtx;
}

template <class T>
GemmShape gemm_shape(const OpenCLBackend& cl, std::int64_t m, std::int64_t n, std::int64_t k) {
  return shape_for<T>(cl, gemm_tuning<T>(cl), m, n, k);
}

template <class T>
std::string gemm_defines(const OpenCLBackend& cl) {
  const tuning::Tuning t = gemm_tuning<T>(cl);
  const GemmShape s = shape_for<T>(cl, t, 1, 1, 1);  // for the panel widths
  return t.defines("gemm") + " -DPANEL_A=" + std::to_string(s.panel_m) + " -DPANEL_B=" + std::to_string(s.panel_n);
}

template <class T>
std::string gemm_ptx_defines(const OpenCLBackend& cl, bool conv_gather) {
  const PtxTile t = ptx_tile<T>();
  const std::size_t stage_bytes = static_cast<std::size_t>((t.bm + t.pad + t.bn + t.pad) * t.bk) * sizeof(T);
  const std::size_t stages = std::max<std::size_t>(2, std::min<std::size_t>(4, cl.local_mem_limit() / stage_bytes));
  std::string d = "-DBM=" + std::to_string(t.bm) + " -DBN=" + std::to_string(t.bn) + " -DBK=" + std::to_string(t.bk) +
                  " -DPAD=" + std::to_string(t.pad) + " -DSTAGES=" + std::to_string(stages) +
                  " -DCONV_GATHER=" + (conv_gather ? "1" : "0");
  // f32: 64 accumulators per work-item; at most 128 registers keeps two groups of 256 per SM
  // (as the CUDA kernel's __launch_bounds__(256, 2)).
  if (std::is_same_v<T, float>) d += " -cl-nv-maxrregcount=128";
  return d;
}

template <class T>
std::size_t gemm_ptx_threads() {
  return static_cast<std::size_t>(ptx_tile<T>().threads);
}

template <class T>
void gemm_pack(OpenCLBackend& cl, bool is_a, const void* src, std::int64_t ld, std::int64_t rows, std::int64_t k,
               bool src_rows_contiguous, const cl::Buffer& dst, std::int64_t padded_rows, std::int64_t kp) {
  if (padded_rows == 0 || kp == 0) return;
  cl::Kernel& kern = cl.kernel("gemm.cl", dtype_v<T>, gemm_defines<T>(cl), is_a ? "gemm_pack_a" : "gemm_pack_b");
  cl.set_args<T>(kern, const_cast<void*>(src), ld, rows, k, src_rows_contiguous ? 1 : 0, dst, padded_rows, kp);
  // Dimension 0 follows the source's contiguous index; 16 x 4 fits every class's limits.
  const std::int64_t d0 = src_rows_contiguous ? padded_rows : kp, d1 = src_rows_contiguous ? kp : padded_rows;
  cl.launch(kern, cl::NDRange(static_cast<std::size_t>(round_up(d0, 16)), static_cast<std::size_t>(round_up(d1, 4))),
            cl::NDRange(16, 4));
}

template <class T>
void gemm_packed(OpenCLBackend& cl, const GemmShape& s, double alpha, const cl::Buffer& Ap, const cl::Buffer& Bp,
                 double beta, void* C, std::int64_t c_offset, std::int64_t ldc, std::int64_t group_cols,
                 std::int64_t group_stride) {
  const tuning::Tuning t = gemm_tuning<T>(cl);
  const int read_c = beta != 0.0 ? 1 : 0;  // beta == 0: C is not read
  // n and the column groups are int in the kernels (the stores' index arithmetic).
  const int n = static_cast<int>(s.n), gcols = static_cast<int>(group_cols);
  const auto mdimc = static_cast<std::size_t>(t["gemm.mdimc"]), ndimc = static_cast<std::size_t>(t["gemm.ndimc"]);
  if (cl.cpu_kernels()) {
    const int panels_m = static_cast<int>(s.mp / s.panel_m), panels_n = static_cast<int>(s.np / s.panel_n);
    cl::Kernel& k = cl.kernel("gemm.cl", dtype_v<T>, gemm_defines<T>(cl), "gemm_regblock");
    cl.set_args<T>(k, Ap, Bp, C, c_offset, ldc, s.m, n, static_cast<int>(s.kp), Real{alpha}, Real{beta}, read_c, gcols,
                   group_stride, panels_m, panels_n);
    cl.launch(k,
              cl::NDRange(static_cast<std::size_t>(round_up(panels_n, t["gemm.ndimc"])),
                          static_cast<std::size_t>(round_up(panels_m, t["gemm.mdimc"]))),
              cl::NDRange(ndimc, mdimc));
    return;
  }
  if (gemm_ptx(cl)) {
    const std::size_t threads = gemm_ptx_threads<T>();
    cl::Kernel& k = cl.kernel("gemm_ptx.cl", dtype_v<T>, gemm_ptx_defines<T>(cl, false), "gemm_ptx");
    cl.set_args<T>(k, Ap, Bp, C, c_offset, ldc, s.m, n, static_cast<int>(s.kp), Real{alpha}, Real{beta}, read_c, gcols,
                   group_stride);
    const auto tiles_n = static_cast<std::size_t>(s.np / s.panel_n);
    const auto tiles_m = static_cast<std::size_t>(s.mp / s.panel_m);
    cl.launch(k, cl::NDRange(tiles_n * threads, tiles_m), cl::NDRange(threads, 1));
    return;
  }
  cl::Kernel& k = cl.kernel("gemm.cl", dtype_v<T>, gemm_defines<T>(cl), "gemm_tiled");
  cl.set_args<T>(k, Ap, Bp, C, c_offset, ldc, s.m, n, static_cast<int>(s.kp), Real{alpha}, Real{beta}, read_c, gcols,
                 group_stride);
  cl.launch(k,
            cl::NDRange(static_cast<std::size_t>(s.np / t["gemm.nwg"]) * ndimc,
                        static_cast<std::size_t>(s.mp / t["gemm.mwg"]) * mdimc),
            cl::NDRange(ndimc, mdimc));
}

template <class T>
void OpenCLBackend::gemm(Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B, double beta,
                         const MatView& C) {
  const std::int64_t m = C.rows, n = C.cols, k = ta == Trans::N ? A.cols : A.rows;
  const GemmShape s = gemm_shape<T>(*this, m, n, k);
  cl::Buffer& Ap = scratch(Scratch::gemm_a, static_cast<std::size_t>(s.mp * s.kp) * sizeof(T));
  cl::Buffer& Bp = scratch(Scratch::gemm_b, static_cast<std::size_t>(s.np * s.kp) * sizeof(T));
  // Packed A: rows i of op(A); op(A)(i, p) = A[i * lda + p] (N) or A[p * lda + i] (T).
  gemm_pack<T>(*this, true, A.data, A.ld, m, k, ta == Trans::T, Ap, s.mp, s.kp);
  // Packed B: columns j of op(B); op(B)(p, j) = B[p * ldb + j] (N) or B[j * ldb + p] (T).
  gemm_pack<T>(*this, false, B.data, B.ld, n, k, tb == Trans::N, Bp, s.np, s.kp);
  gemm_packed<T>(*this, s, alpha, Ap, Bp, beta, C.data, 0, C.ld, n, 0);  // one group of n columns
}

#define TESSERA_GEMM_HELPERS_(T)                                                                                    \
  template GemmShape gemm_shape<T>(const OpenCLBackend&, std::int64_t, std::int64_t, std::int64_t);               \
  template std::string gemm_defines<T>(const OpenCLBackend&);                                                      \
  template std::string gemm_ptx_defines<T>(const OpenCLBackend&, bool);                                            \
  template std::size_t gemm_ptx_threads<T>();                                                                      \
  template void gemm_pack<T>(OpenCLBackend&, bool, const void*, std::int64_t, std::int64_t, std::int64_t, bool,    \
                             const cl::Buffer&, std::int64_t, std::int64_t);                                       \
  template void gemm_packed<T>(OpenCLBackend&, const GemmShape&, double, const cl::Buffer&, const cl::Buffer&,     \
                               double, void*, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
TESSERA_GEMM_HELPERS_(float)
TESSERA_GEMM_HELPERS_(double)
#undef TESSERA_GEMM_HELPERS_

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, gemm)

}  // namespace tessera::opencl
