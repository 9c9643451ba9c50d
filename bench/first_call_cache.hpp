// tessera-bench --first-call-cache: what the kernel disk caches save on the first call.
//
// Runs the rest of the command line twice, each time as a child process of this one writing
// JSON to a temporary folder:
//   cold: TESSERA_CACHE_DIR, POCL_CACHE_DIR (PoCL's kernel cache) and CUDA_CACHE_PATH (NVIDIA's
//         OpenCL JIT cache) name empty folders in a new temporary folder: every kernel is
//         compiled from source;
//   warm: the same folders, now holding what the cold run compiled: a new process, as a user's
//         second run of a program would be.
// Then prints, for every row of an OpenCL device (Tessera and the OpenCL baselines), the first
// call cold and warm, and the totals per device and implementation. The children's own tables
// are printed as they run. The temporary folder is removed at the end.
#pragma once

#include "options.hpp"

namespace bench {

// Returns the exit status: 0, 1 when a child reported a failed check or error, 2 on bad usage or
// when a child could not run.
int run_first_call_cache(int argc, char** argv, const Options& options);

}  // namespace bench
