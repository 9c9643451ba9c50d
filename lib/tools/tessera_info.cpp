#include <cstdio>
#include "tessera/tessera.hpp"
int main() {
  for (const auto& d : tessera::devices()) std::printf("%s\t%s\n", d.spec.c_str(), d.name.c_str());
}
