#include "openblas_coretype.hpp"

#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#if TESSERA_BENCH_WITH_OPENBLAS
#include <cblas.h>
#endif

namespace bench {

namespace {

// Set in the re-executed process to say why: "cli", or "auto:<the core OpenBLAS had chosen>".
constexpr const char* kMarker = "TESSERA_BENCH_SET_OPENBLAS_CORETYPE";
std::string g_note;

// The value of --openblas-coretype NAME / --openblas-coretype=NAME, or "".
[[maybe_unused]] std::string forced_coretype(int argc, char** argv) {
  const std::string flag = "--openblas-coretype";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == flag && i + 1 < argc) return argv[i + 1];
    if (a.rfind(flag + "=", 0) == 0) return a.substr(flag.size() + 1);
  }
  return "";
}

// Core types whose kernels use AVX-512 (names as openblas_get_corename() spells them).
[[maybe_unused]] bool uses_avx512(const std::string& core) {
  for (const char* n : {"SkylakeX", "Cooperlake", "SapphireRapids"})
    if (strcasecmp(core.c_str(), n) == 0) return true;
  return false;
}

[[maybe_unused]] bool cpu_has_avx512f() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

[[maybe_unused]] void reexec_with(const std::string& core, const std::string& why, char** argv) {
  setenv("OPENBLAS_CORETYPE", core.c_str(), 1);
  setenv(kMarker, why.c_str(), 1);
  execv("/proc/self/exe", argv);
  // Still here: OpenBLAS keeps the choice it was loaded with.
  g_note = "re-exec with OPENBLAS_CORETYPE=" + core + " failed (" + std::strerror(errno) + "): OpenBLAS kept its choice";
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv(kMarker);
}

}  // namespace

void ensure_openblas_coretype([[maybe_unused]] int argc, [[maybe_unused]] char** argv) {
#if TESSERA_BENCH_WITH_OPENBLAS
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  const char* marker = std::getenv(kMarker);
  if (marker && env) {  // this is the re-executed process
    const std::string why = marker;
    if (why == "cli")
      g_note = "set by --openblas-coretype";
    else
      g_note = "set by tessera-bench: the CPU has AVX-512F and OpenBLAS's own choice, " + why.substr(why.find(':') + 1) +
               ", has no AVX-512 kernels";
    return;
  }
  const std::string forced = forced_coretype(argc, argv);
  if (!forced.empty()) {
    if (env && forced == env)
      g_note = "from the environment (as --openblas-coretype asks)";
    else
      reexec_with(forced, "cli", argv);
    return;
  }
  if (env) {
    g_note = "from the environment";
    if (cpu_has_avx512f() && !uses_avx512(env))
      g_note += "; this CPU has AVX-512F, which that core type does not use: --openblas-coretype SkylakeX for the "
                "AVX-512 kernels";
    return;
  }
  // OpenBLAS is linked, so it has loaded already and its own choice can be asked: only a
  // fallback to kernels without AVX-512 on an AVX-512 CPU is worth a re-exec.
  const std::string own = openblas_core_name();
  if (cpu_has_avx512f() && !uses_avx512(own)) {
    reexec_with("SkylakeX", "auto:" + own, argv);
    return;
  }
  g_note = "OpenBLAS's own choice";
#endif
}

std::string openblas_core_name() {
#if TESSERA_BENCH_WITH_OPENBLAS
  const char* n = openblas_get_corename();
  return n ? n : "?";
#else
  return "";
#endif
}

std::string openblas_coretype_env() {
  const char* env = std::getenv("OPENBLAS_CORETYPE");
  return env ? env : "";
}

std::string openblas_coretype_note() { return g_note; }

}  // namespace bench
