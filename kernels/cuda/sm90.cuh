// Hopper-only (sm_90a) building blocks, in inline PTX: mbarriers, the bulk tensor copy (TMA),
// warpgroup MMA (wgmma) and register reallocation. Included only by translation units built for
// sm_90a (kernels/cuda/gemm_wgmma.cu, stencil_tma.cu); their machine code runs on compute capability 9.0 alone.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace tessera::cuda::sm90 {

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ---------------------------------------------------------------- mbarriers
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
// Makes the initialisations visible to the copy engine (before the block's barrier).
__device__ __forceinline__ void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
// One arrival that also announces `bytes` of copies to complete on the barrier.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
// Waits until the phase of parity `parity` has completed (a fresh barrier counts its phase
// before the first as completed with parity 1).
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n"
      "}\n" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
}

// ---------------------------------------------------------------- bulk tensor copy
// The box of a 3D `map` at coordinates (c0 innermost, c1, c2) into shared memory at dst;
// completes on bar.
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, int c0, int c1, int c2,
                                            std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::
          "r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar))
      : "memory");
}
// Orders this thread's ordinary shared-memory writes before later reads by the async proxy
// (wgmma, the copy engine).
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// ---------------------------------------------------------------- registers
template <int N>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

// ---------------------------------------------------------------- wgmma
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Shared-memory matrix descriptor of a K-major operand in the 128-byte swizzle (what the copy
// engine writes with CU_TENSOR_MAP_SWIZZLE_128B and a 128-byte inner box): rows of 128 bytes,
// 8-row groups 1024 bytes apart (the stride offset); the leading offset is unused in this mode.
// `p` must lie 1024-byte aligned plus a multiple of 32 bytes (a k8 step of tf32 within the row).
__device__ __forceinline__ std::uint64_t desc_k_major_sw128(const void* p) {
  const std::uint64_t addr = smem_addr(p);
  return ((addr & 0x3FFFF) >> 4) | (std::uint64_t{1} << 16) | (std::uint64_t{1024 >> 4} << 32) |
         (std::uint64_t{1} << 62);
}

// D (64 x N, f32) = A (64 x 8, tf32, registers) * B (8 x N, tf32, shared memory K-major, descriptor
// b) + (scale_d ? D : 0). Per thread: A's (row g, k t), (g + 8, t), (g, t + 4), (g + 8, t + 4) of
// its warp's 16 rows (g = lane / 4, t = lane % 4); d[4 j + 2 h + e] = D(16 warp + g + 8 h, 8 j + 2 t + e).
// The accumulators are N / 2 operands of the instruction, spelled out by the macros below.
template <int N>
__device__ __forceinline__ void wgmma_tf32_rs(float (&d)[N / 2], const unsigned (&a)[4], std::uint64_t b, int scale_d);

#define TESSERA_WGMMA_REGS_0_63 \
  "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
  "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
  "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define TESSERA_WGMMA_REGS_64_127 \
  "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
  "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95," \
  "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111," \
  "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
#define TESSERA_WGMMA_D16(i) \
  "+f"(d[i + 0]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), \
  "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7]), \
  "+f"(d[i + 8]), "+f"(d[i + 9]), "+f"(d[i + 10]), "+f"(d[i + 11]), \
  "+f"(d[i + 12]), "+f"(d[i + 13]), "+f"(d[i + 14]), "+f"(d[i + 15])

template <>
__device__ __forceinline__ void wgmma_tf32_rs<128>(float (&d)[64], const unsigned (&a)[4], std::uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {" TESSERA_WGMMA_REGS_0_63
      "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
      : TESSERA_WGMMA_D16(0), TESSERA_WGMMA_D16(16), TESSERA_WGMMA_D16(32), TESSERA_WGMMA_D16(48)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));
}
template <>
__device__ __forceinline__ void wgmma_tf32_rs<256>(float (&d)[128], const unsigned (&a)[4], std::uint64_t b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {" TESSERA_WGMMA_REGS_0_63 "," TESSERA_WGMMA_REGS_64_127
      "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}\n"
      : TESSERA_WGMMA_D16(0), TESSERA_WGMMA_D16(16), TESSERA_WGMMA_D16(32), TESSERA_WGMMA_D16(48),
        TESSERA_WGMMA_D16(64), TESSERA_WGMMA_D16(80), TESSERA_WGMMA_D16(96), TESSERA_WGMMA_D16(112)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scale_d));
}

#undef TESSERA_WGMMA_REGS_0_63
#undef TESSERA_WGMMA_REGS_64_127
#undef TESSERA_WGMMA_D16

}  // namespace tessera::cuda::sm90
