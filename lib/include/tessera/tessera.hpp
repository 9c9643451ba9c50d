/// \file
/// Tessera: one interface for reduce, SpMV, triangular solves, GEMM, stencils and convolution
/// on CUDA, OpenCL and SIMD CPUs, with the device chosen at run time.
#pragma once

/// \namespace tessera
/// Everything Tessera declares; tessera::detail holds implementation details of the headers.

#include "tessera/algebra.hpp"
#include "tessera/backend.hpp"
#include "tessera/buffer.hpp"
#include "tessera/cpu_target.hpp"
#include "tessera/csr_matrix.hpp"
#include "tessera/dense_matrix.hpp"
#include "tessera/device.hpp"
#include "tessera/device_info.hpp"
#include "tessera/errors.hpp"
#include "tessera/generate.hpp"
#include "tessera/grid.hpp"
#include "tessera/host_buffer.hpp"
#include "tessera/matrix_market.hpp"
#include "tessera/ops.hpp"
#include "tessera/queue.hpp"
#include "tessera/scalar.hpp"
#include "tessera/solve.hpp"
#include "tessera/stencil.hpp"
#include "tessera/tensor.hpp"
#include "tessera/types.hpp"
#include "tessera/vector.hpp"
#include "tessera/version.hpp"
