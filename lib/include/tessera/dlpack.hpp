/// \file
/// DLPack interop: Tessera vectors and matrices as DLManagedTensor (the DLPack 0.6 struct of
/// Debian's libdlpack-dev, dlpack/dlpack.h) and back, without copying, so that buffers of CuPy,
/// PyTorch or NumPy can be used in place and Tessera's given to them. Not included by
/// tessera.hpp: include it where needed. Built where dlpack/dlpack.h was found at configure
/// time (Debian: libdlpack-dev); elsewhere these functions are absent from libtessera.
///
/// Devices: cpu and reference are kDLCPU (device_id 0), cuda:N is kDLCUDA N, opencl:N is
/// kDLOpenCL N (`data` a cl_mem, as the DLPack header defines it). Data types: kDLFloat of 32
/// or 64 bits, one lane. A view's offset travels as byte_offset.
#pragma once

#include <dlpack/dlpack.h>

#include "tessera/dense_matrix.hpp"
#include "tessera/vector.hpp"

namespace tessera {

/// A DLManagedTensor over x's elements (1-D, contiguous), sharing its storage: the storage lives
/// until the consumer calls the tensor's deleter, even if every Vector handle is gone.
template <class T>
DLManagedTensor* to_dlpack(const Vector<T>& x);
/// A DLManagedTensor over A (2-D, shape {rows, cols}, strides {ld, 1}), sharing its storage.
template <class T>
DLManagedTensor* to_dlpack(const DenseMatrix<T>& A);

/// A Vector over a 1-D tensor's memory (compact or stride 1) on `device`, used in place. Takes
/// ownership of `t`: its deleter runs when the last handle to the vector's storage goes, or at
/// once if this throws. Throws InvalidArgument for null, a tensor of another device (type or
/// id), another dtype, ndim != 1 or a stride other than 1.
template <class T>
Vector<T> vector_from_dlpack(const Device& device, DLManagedTensor* t);
/// A DenseMatrix over a 2-D tensor's memory, row-major with strides {ld, 1} (ld >= cols), or
/// compact. Ownership and errors as vector_from_dlpack.
template <class T>
DenseMatrix<T> matrix_from_dlpack(const Device& device, DLManagedTensor* t);

}  // namespace tessera
