// placeholder: filled in by the CPU backend work
#include "tessera/cpu_target.hpp"
#include "tessera/errors.hpp"
namespace tessera {
std::vector<std::string> cpu_targets() { return {"baseline"}; }
std::string cpu_target() { return "baseline"; }
void set_cpu_target(const std::string& name) {
  if (name != "baseline" && name != "best") throw InvalidArgument("set_cpu_target: unknown target " + name);
}
}  // namespace tessera
