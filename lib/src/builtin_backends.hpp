// Factories of the backends compiled into libtessera itself.
#pragma once

#include <memory>

#include "tessera/backend.hpp"

namespace tessera {

std::unique_ptr<Backend> make_reference_backend();
std::unique_ptr<Backend> make_cpu_backend();

}  // namespace tessera
