// What every file of the OpenCL backend shares: the C++ bindings (OpenCL 1.2 API, exceptions
// on), and the translation of OpenCL errors into Tessera's typed errors.
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_ENABLE_EXCEPTIONS
#endif

// The bindings use clCreateCommandQueue etc., deprecated after 1.2 but the only calls a 1.2
// driver has; their deprecation warnings would drown ours.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#pragma GCC diagnostic ignored "-Wignored-attributes"
#include <CL/opencl.hpp>
#pragma GCC diagnostic pop

#include <string>

namespace tessera::opencl {

// "CL_OUT_OF_RESOURCES (-5)" for any status code, known or not.
std::string error_name(cl_int code);

// True for the codes that mean "the device or host ran out of memory".
bool is_out_of_memory(cl_int code);

// Rethrows the OpenCL error in flight (cl::Error or cl::BuildError) as a Tessera error whose
// message starts with `context` and names the failing call and its code: OutOfMemory for
// allocation failures, Error otherwise. Must be called from inside a catch block.
[[noreturn]] void rethrow_as_tessera(const std::string& context, const cl::Error& e);

// Runs f(); any cl::Error escaping it becomes a Tessera error (see rethrow_as_tessera).
template <class F>
auto translate_errors(const std::string& context, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const cl::Error& e) {
    rethrow_as_tessera(context, e);
  }
}

}  // namespace tessera::opencl
