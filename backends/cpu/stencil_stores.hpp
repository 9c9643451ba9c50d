// Whether the cpu stencil sweeps write grids beyond the last-level cache with non-temporal
// stores (tuning key stencil.stream_stores). Measured, not assumed: a non-temporal store saves
// the destination line's read (a third of a step's traffic) and so paid on the Sapphire Rapids
// and Zen 5 VMs where the kernels were tuned (256^3 f32, 2 threads: 43 -> 30 ms for 10 steps),
// but on a Zen VM without AVX-512 (AVX2, 2 cores, 2026-11-29) the same sweep ran 1.9x *slower*
// with them (7-point 512^3 f32: 118 -> 61 ms a step without; a plain 3-point z sweep there was
// faster streamed, so the slowdown comes with the in-row neighbours' loads and no simple
// bandwidth probe predicts it). Hence a probe of the kernel itself, once per process.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// setting: stencil.stream_stores (0 never, 1 always, 2 the probe's verdict). The probe runs at
// the first call that asks for it (a few tens of ms: two grids of twice the last-level cache,
// three alternating sweeps each way, the faster kept) and is kept for the process.
bool stencil_stream_stores(std::int64_t setting, std::int64_t block_bytes);

}  // namespace tessera::cpu
