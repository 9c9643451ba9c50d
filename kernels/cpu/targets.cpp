// Which Highway target the cpu device runs, and capping it (tessera/cpu_target.hpp).
//
// The cap is hwy::DisableTargets(T - 1): Highway numbers targets best-first from the lowest bit,
// so T - 1 is every target better than T. DisableTargets also DeInit()s the chosen-target
// monostate, so the next HWY_DYNAMIC_DISPATCH in any file re-reads SupportedTargets() and
// picks T. Targets worse than T stay enabled, harmlessly: every file compiles the same set.
#include <cstddef>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/cpu/targets.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace tessera::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

std::size_t LanesF32() { return hn::Lanes(hn::ScalableTag<float>()); }
std::size_t LanesF64() { return hn::Lanes(hn::ScalableTag<double>()); }
std::int64_t RunningTarget() { return HWY_TARGET; }

}  // namespace tessera::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/cpu/dispatch.hpp"
#include "tessera/cpu_target.hpp"
#include "tessera/errors.hpp"

namespace tessera {
namespace cpu {
HWY_EXPORT(LanesF32);
HWY_EXPORT(LanesF64);
HWY_EXPORT(RunningTarget);

std::size_t lanes_f32() { return HWY_DYNAMIC_DISPATCH(LanesF32)(); }
std::size_t lanes_f64() { return HWY_DYNAMIC_DISPATCH(LanesF64)(); }

namespace {

std::mutex& target_mutex() {
  static std::mutex m;
  return m;
}

// Compiled here and supported by this CPU, as bits. Read before any cap of ours is applied
// (this runs on first use, under target_mutex), so it is the uncapped set.
std::int64_t available_mask() {
  static const std::int64_t mask = hwy::SupportedTargets() & HWY_TARGETS;
  return mask;
}

std::vector<std::string> available_names() {
  std::vector<std::string> names;
  for (std::int64_t m = available_mask(); m != 0; m &= m - 1) names.emplace_back(hwy::TargetName(m & -m));
  return names;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Caller holds target_mutex.
void apply_cap_locked(const std::string& name) {
  const std::int64_t avail = available_mask();
  std::string want = upper(name);
  if (want == "BEST") {
    hwy::DisableTargets(0);
    return;
  }
  if (want == "AVX512") want = "AVX3";
  if (want == "SCALAR" && (avail & HWY_EMU128) != 0) want = "EMU128";
  for (std::int64_t m = avail; m != 0; m &= m - 1) {
    const std::int64_t t = m & -m;
    if (want == hwy::TargetName(t)) {
      hwy::DisableTargets(t - 1);
      return;
    }
  }
  throw InvalidArgument("set_cpu_target: '" + name + "' is not a SIMD target of this build on this CPU; available: " +
                        joined(available_names()) + ", best (aliases: avx512 = AVX3, scalar = the portable fallback)");
}

std::once_flag env_once;

}  // namespace

// An unusable TESSERA_CPU_TARGET must not make the device unopenable (devices() opens every
// backend), so it is reported once on stderr and ignored.
void ensure_env_target() {
  std::call_once(env_once, [] {
    std::lock_guard<std::mutex> lock(target_mutex());
    available_mask();
    const char* env = std::getenv("TESSERA_CPU_TARGET");
    if (env == nullptr || *env == '\0') return;
    try {
      apply_cap_locked(env);
    } catch (const InvalidArgument& e) {
      std::fprintf(stderr, "tessera: ignoring TESSERA_CPU_TARGET: %s\n", e.what());
    }
  });
}

}  // namespace cpu

std::vector<std::string> cpu_targets() {
  cpu::ensure_env_target();
  std::lock_guard<std::mutex> lock(cpu::target_mutex());
  return cpu::available_names();
}

std::string cpu_target() {
  cpu::ensure_env_target();
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(cpu::RunningTarget)());
}

void set_cpu_target(const std::string& name) {
  cpu::ensure_env_target();
  std::lock_guard<std::mutex> lock(cpu::target_mutex());
  cpu::apply_cap_locked(name);
}

}  // namespace tessera
#endif  // HWY_ONCE
