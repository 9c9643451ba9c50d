// C = alpha * op(A) * op(B) + beta * C (kernels/opencl/gemm.cl): op(A) and op(B) are packed
// into panels (which absorbs the transposes, the leading dimensions and the ragged edges),
// then one compute kernel runs: gpu kernels = gemm_tiled (local-memory tiles of mwg x nwg x kwg,
// register blocks per work-item), cpu kernels = gemm_regblock (register blocks of
// (mwg/mdimc) x (nwg/ndimc) per work-item as vw-wide vectors, no local memory), or, with
// gemm.kernels = 2 on NVIDIA's platform, gemm_ptx (kernels/opencl/gemm_ptx.cl: cp.async
// pipeline; f64 on the FP64 tensor cores) with its own tile shapes.
#include "gemm.hpp"

#include <algorithm>
#include <mutex>
#include <string>
#include <type_traits>

namespace tessera::opencl {

namespace {

constexpr int kGemmNvidiaPtx = 2;  // gemm.kernels

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

// gemm_ptx.cl's tiles (its warp layout fixes them): f64 = 2 x 2 warps of 64 x 32 outputs
// (m16n8k4 fragments; 128 x 64 of 4 warps, 2 groups per SM, measured best in CUDA),
// f32 = 16 x 16 work-items of 8 x 8, or under the TF32 modes 2 x 4 warps of 64 x 32 (m16n8k8
// fragments) on the same tile, its local rows padded to 8 mod 32 words. k-tiles of 8: three
// (f64) or four (f32) stages fit the 48 KB of local memory a group may use.
struct PtxTile {
  int bm, bn, bk, pad, threads;
};
template <class T>
PtxTile ptx_tile(MathMode math = MathMode::exact) {
  if (std::is_same_v<T, double>) return PtxTile{128, 64, 8, 4, 128};
  return PtxTile{128, 128, 8, math == MathMode::tf32 ? 8 : 0, 256};
}

// The gemm tuning values for T. gemm_ptx: panels as wide as its tiles, Kp a multiple of its
// k-tile. cpu kernels: a work-item's register block is sized in registers, i.e. bytes: in f64
// the same vector registers hold half the columns, so nwg and vw halve (measured on
// PoCL/AVX-512: +10-40% for f64 gemm, where f32's block would spill).
template <class T>
tuning::Tuning gemm_tuning_for(const OpenCLBackend& cl) {
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

// gemm's values for one dtype, derived once per device (the tuning is fixed when it opens).
struct GemmTuned {
  int mwg = 0, nwg = 0, kwg = 0, mdimc = 0, ndimc = 0;
  int panel_m = 0, panel_n = 0;  // see GemmShape
  std::string defines;           // gemm.cl's build options
};
struct GemmState {
  std::once_flag f32_once, f64_once;  // several queues' threads may ask first
  GemmTuned f32, f64;
};

template <class T>
void derive_gemm_tuned(OpenCLBackend& cl, GemmTuned& g);

template <class T>
const GemmTuned& gemm_tuned(OpenCLBackend& cl) {
  GemmState& state = cl.state<GemmState>();
  GemmTuned& g = std::is_same_v<T, float> ? state.f32 : state.f64;
  std::call_once(std::is_same_v<T, float> ? state.f32_once : state.f64_once, [&] { derive_gemm_tuned<T>(cl, g); });
  return g;
}

template <class T>
void derive_gemm_tuned(OpenCLBackend& cl, GemmTuned& g) {
  const tuning::Tuning t = gemm_tuning_for<T>(cl);
  g.mwg = t.get("gemm.mwg"), g.nwg = t.get("gemm.nwg"), g.kwg = t.get("gemm.kwg");
  g.mdimc = t.get("gemm.mdimc"), g.ndimc = t.get("gemm.ndimc");
  // cpu kernels: a work-item's rows and columns; gpu: a work-group's tile.
  g.panel_m = cl.cpu_kernels() ? g.mwg / g.mdimc : g.mwg;
  g.panel_n = cl.cpu_kernels() ? g.nwg / g.ndimc : g.nwg;
  g.defines = t.defines("gemm") + " -DPANEL_A=" + std::to_string(g.panel_m) + " -DPANEL_B=" + std::to_string(g.panel_n);
}

}  // namespace

bool gemm_ptx(const OpenCLBackend& cl) {
  return cl.nvidia_ptx() && !cl.cpu_kernels() && cl.tuning()["gemm.kernels"] == kGemmNvidiaPtx;
}

template <class T>
GemmShape gemm_shape(OpenCLBackend& cl, std::int64_t m, std::int64_t n, std::int64_t k) {
  const GemmTuned& g = gemm_tuned<T>(cl);
  GemmShape s;
  s.m = m, s.n = n, s.k = k;
  s.panel_m = g.panel_m, s.panel_n = g.panel_n;
  s.kp = cl.cpu_kernels() ? k : round_up(k, g.kwg);  // gpu: whole k-steps
  s.mp = round_up(m, s.panel_m);
  s.np = round_up(n, s.panel_n);
  return s;
}

template <class T>
const std::string& gemm_defines(OpenCLBackend& cl) {
  return gemm_tuned<T>(cl).defines;
}

template <class T>
std::string gemm_ptx_defines(const OpenCLBackend& cl, bool conv_gather, MathMode math) {
  // tf32x3 runs the FFMA path (gemm_ptx.cl's file comment: measured as fast, 11x more accurate).
  if (!std::is_same_v<T, float> || math == MathMode::tf32x3) math = MathMode::exact;
  const PtxTile t = ptx_tile<T>(math);
  const std::size_t stage_bytes = static_cast<std::size_t>((t.bm + t.pad + t.bn + t.pad) * t.bk) * sizeof(T);
  const std::size_t stages = std::max<std::size_t>(2, std::min<std::size_t>(4, cl.local_mem_limit() / stage_bytes));
  std::string d = "-DBM=" + std::to_string(t.bm) + " -DBN=" + std::to_string(t.bn) + " -DBK=" + std::to_string(t.bk) +
                  " -DPAD=" + std::to_string(t.pad) + " -DSTAGES=" + std::to_string(stages) +
                  " -DCONV_GATHER=" + (conv_gather ? "1" : "0") +
                  " -DMATH=" + (math == MathMode::tf32 ? "1" : "0");
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
void gemm_pack(OpenCLBackend& cl, OpenClQueue& q, bool is_a, const void* src, std::int64_t src_off, std::int64_t ld,
               std::int64_t rows, std::int64_t k, bool src_rows_contiguous, const cl::Buffer& dst,
               std::int64_t padded_rows, std::int64_t kp) {
  if (padded_rows == 0 || kp == 0) return;
  cl::Kernel& kern = cl.kernel("gemm.cl", dtype_v<T>, gemm_defines<T>(cl), is_a ? "gemm_pack_a" : "gemm_pack_b");
  // Dimension 0 follows the source's contiguous index; 16 x 4 fits every class's limits.
  const std::int64_t d0 = src_rows_contiguous ? padded_rows : kp, d1 = src_rows_contiguous ? kp : padded_rows;
  cl.launch<T>(q, kern,
               cl::NDRange(static_cast<std::size_t>(round_up(d0, 16)), static_cast<std::size_t>(round_up(d1, 4))),
               cl::NDRange(16, 4), const_cast<void*>(src), src_off, ld, rows, k, src_rows_contiguous ? 1 : 0, dst,
               padded_rows, kp);
}

template <class T>
void gemm_packed(OpenCLBackend& cl, OpenClQueue& q, const GemmShape& s, double alpha, const cl::Buffer& Ap, const cl::Buffer& Bp,
                 double beta, void* C, std::int64_t c_offset, std::int64_t ldc, std::int64_t group_cols,
                 std::int64_t group_stride, MathMode math) {
  const GemmTuned& g = gemm_tuned<T>(cl);
  const int read_c = beta != 0.0 ? 1 : 0;  // beta == 0: C is not read
  // n and the column groups are int in the kernels (the stores' index arithmetic).
  const int n = static_cast<int>(s.n), gcols = static_cast<int>(group_cols);
  const auto mdimc = static_cast<std::size_t>(g.mdimc), ndimc = static_cast<std::size_t>(g.ndimc);
  if (cl.cpu_kernels()) {
    const int panels_m = static_cast<int>(s.mp / s.panel_m), panels_n = static_cast<int>(s.np / s.panel_n);
    cl::Kernel& k = cl.kernel("gemm.cl", dtype_v<T>, gemm_defines<T>(cl), "gemm_regblock");
    cl.launch<T>(q, k,
                 cl::NDRange(static_cast<std::size_t>(round_up(panels_n, g.ndimc)),
                             static_cast<std::size_t>(round_up(panels_m, g.mdimc))),
                 cl::NDRange(ndimc, mdimc), Ap, Bp, C, c_offset, ldc, s.m, n, static_cast<int>(s.kp), Real{alpha},
                 Real{beta}, read_c, gcols, group_stride, panels_m, panels_n);
    return;
  }
  if (gemm_ptx(cl)) {
    const std::size_t threads = gemm_ptx_threads<T>();
    cl::Kernel& k = cl.kernel("gemm_ptx.cl", dtype_v<T>, gemm_ptx_defines<T>(cl, false, math), "gemm_ptx");
    const auto tiles_n = static_cast<std::size_t>(s.np / s.panel_n);
    const auto tiles_m = static_cast<std::size_t>(s.mp / s.panel_m);
    cl.launch<T>(q, k, cl::NDRange(tiles_n * threads, tiles_m), cl::NDRange(threads, 1), Ap, Bp, C, c_offset, ldc, s.m,
                 n, static_cast<int>(s.kp), Real{alpha}, Real{beta}, read_c, gcols, group_stride);
    return;
  }
  cl::Kernel& k = cl.kernel("gemm.cl", dtype_v<T>, gemm_defines<T>(cl), "gemm_tiled");
  cl.launch<T>(q, k,
               cl::NDRange(static_cast<std::size_t>(s.np / g.nwg) * ndimc,
                           static_cast<std::size_t>(s.mp / g.mwg) * mdimc),
               cl::NDRange(ndimc, mdimc), Ap, Bp, C, c_offset, ldc, s.m, n, static_cast<int>(s.kp), Real{alpha},
               Real{beta}, read_c, gcols, group_stride);
}

template <class T>
void OpenCLBackend::gemm(QueueImpl& qi, Trans ta, Trans tb, double alpha, const MatView& A, const MatView& B,
                         double beta, const MatView& C, MathMode math) {
  // f32 under tf32: the TF32 tensor cores where gemm_ptx.cl runs (NVIDIA); tf32x3 and the other
  // devices: exact FP32 (the contract's bounds allow it).
  OpenClQueue& q = cl_queue(qi);
  const std::int64_t m = C.rows, n = C.cols, k = ta == Trans::N ? A.cols : A.rows;
  const GemmShape s = gemm_shape<T>(*this, m, n, k);
  GemmScratch& scratch = q.state<GemmScratch>();
  cl::Buffer& Ap = grow(scratch.a, static_cast<std::size_t>(s.mp * s.kp) * sizeof(T));
  cl::Buffer& Bp = grow(scratch.b, static_cast<std::size_t>(s.np * s.kp) * sizeof(T));
  // Packed A: rows i of op(A); op(A)(i, p) = A[i * lda + p] (N) or A[p * lda + i] (T).
  gemm_pack<T>(*this, q, true, A.data, A.offset, A.ld, m, k, ta == Trans::T, Ap, s.mp, s.kp);
  // Packed B: columns j of op(B); op(B)(p, j) = B[p * ldb + j] (N) or B[j * ldb + p] (T).
  gemm_pack<T>(*this, q, false, B.data, B.offset, B.ld, n, k, tb == Trans::N, Bp, s.np, s.kp);
  gemm_packed<T>(*this, q, s, alpha, Ap, Bp, beta, C.data, C.offset, C.ld, n, 0, math);  // one group of n columns
}

#define TESSERA_GEMM_HELPERS_(T)                                                                                    \
  template GemmShape gemm_shape<T>(OpenCLBackend&, std::int64_t, std::int64_t, std::int64_t);                     \
  template const std::string& gemm_defines<T>(OpenCLBackend&);                                                     \
  template std::string gemm_ptx_defines<T>(const OpenCLBackend&, bool, MathMode);                                  \
  template std::size_t gemm_ptx_threads<T>();                                                                      \
  template void gemm_pack<T>(OpenCLBackend&, OpenClQueue&, bool, const void*, std::int64_t, std::int64_t,          \
                             std::int64_t, std::int64_t, bool, const cl::Buffer&, std::int64_t, std::int64_t);     \
  template void gemm_packed<T>(OpenCLBackend&, OpenClQueue&, const GemmShape&, double, const cl::Buffer&, const cl::Buffer&,     \
                               double, void*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, MathMode);
TESSERA_GEMM_HELPERS_(float)
TESSERA_GEMM_HELPERS_(double)
#undef TESSERA_GEMM_HELPERS_

TESSERA_INSTANTIATE_TYPED_OP(OpenCLBackend, gemm)

}  // namespace tessera::opencl
