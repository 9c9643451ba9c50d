// The ViennaCL context of an opencl:N device (baselines/viennacl.cpp sets it up once, on the
// device's own context and queue); shared by the ViennaCL baselines' files.
#pragma once

#include <viennacl/context.hpp>

#include "baselines/opencl_device.hpp"

namespace bench::viennacl_lib {

viennacl::context context_for(const opencl_baseline::ClDevice& dev);

}  // namespace bench::viennacl_lib
