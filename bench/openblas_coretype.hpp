// OpenBLAS picks its kernels (its "core type") once, when the library is loaded. Debian's
// DYNAMIC_ARCH build falls back to Haswell kernels on CPUs it does not know, e.g. recent AVX-512
// AMD parts, which halves gemm speed; OPENBLAS_CORETYPE overrides the choice but is read at load
// time, before main. So the bench sets it and re-executes itself (/proc/self/exe) so that the
// library loads with it:
//   --openblas-coretype NAME   forces NAME (e.g. SkylakeX, Cooperlake, Haswell) over anything;
//   otherwise a value already in the environment is respected (the header says so, and says
//   when it leaves AVX-512 unused);
//   otherwise, on a CPU with AVX-512F where OpenBLAS chose a core without AVX-512 kernels,
//   SkylakeX (OpenBLAS 0.3.21 itself picks Cooperlake on Zen 4/5, which needs no help).
#pragma once

#include <string>

namespace bench {

// Call first in main. Returns only if no re-execution happened (or it failed: then OpenBLAS
// keeps its own choice and the note says so).
void ensure_openblas_coretype(int argc, char** argv);

// OpenBLAS's openblas_get_corename() ("" without OpenBLAS), the variable's value, and how it
// came to be what it is, for the report header.
std::string openblas_core_name();
std::string openblas_coretype_env();
std::string openblas_coretype_note();

}  // namespace bench
