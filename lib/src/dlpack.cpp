// DLPack export and import (tessera/dlpack.hpp). Export: the tensor's manager_ctx owns a
// shared_ptr to the container's Buffer and the shape/stride arrays, so the storage outlives
// every Tessera handle until the consumer calls the deleter. Import: the tensor becomes the
// keep-alive of a wrapped Buffer, whose release calls the tensor's deleter.
#include "tessera/dlpack.hpp"

#include <memory>
#include <string>

#include "tessera/errors.hpp"

namespace tessera {

namespace {

DLDevice dl_device_of(const Device& d) {
  const DeviceInfo& info = d.info();
  if (info.backend == "cuda") return {kDLCUDA, info.index};
  if (info.backend == "opencl") return {kDLOpenCL, info.index};
  return {kDLCPU, 0};
}

template <class T>
DLDataType dl_dtype() {
  return {static_cast<std::uint8_t>(kDLFloat), static_cast<std::uint8_t>(sizeof(T) * 8), 1};
}

struct Export {
  std::shared_ptr<Buffer> storage;
  std::int64_t shape[2] = {0, 0};
  std::int64_t strides[2] = {1, 1};
  DLManagedTensor tensor{};
};

void delete_export(DLManagedTensor* self) {
  if (self != nullptr) delete static_cast<Export*>(self->manager_ctx);
}

template <class T>
DLManagedTensor* make_export(const std::shared_ptr<Buffer>& storage, const Device& device, int ndim,
                             std::int64_t offset, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  if (!storage) throw InvalidArgument("to_dlpack: the container is empty (default-constructed)");
  auto e = std::make_unique<Export>();
  e->storage = storage;
  DLTensor& t = e->tensor.dl_tensor;
  t.data = storage->handle();
  t.device = dl_device_of(device);
  t.ndim = ndim;
  t.dtype = dl_dtype<T>();
  if (ndim == 1) {
    e->shape[0] = rows;
  } else {
    e->shape[0] = rows;
    e->shape[1] = cols;
    e->strides[0] = ld;
  }
  t.shape = e->shape;
  t.strides = e->strides;
  t.byte_offset = static_cast<std::uint64_t>(offset) * sizeof(T);
  e->tensor.manager_ctx = e.get();
  e->tensor.deleter = delete_export;
  return &e.release()->tensor;
}

// Owns an imported tensor until handed to a Buffer; calls its deleter if the import fails.
struct ImportGuard {
  DLManagedTensor* t;
  ~ImportGuard() {
    if (t != nullptr && t->deleter != nullptr) t->deleter(t);
  }
  std::shared_ptr<void> release() {
    DLManagedTensor* owned = t;
    t = nullptr;
    return std::shared_ptr<void>(owned, [](void* p) {
      auto* m = static_cast<DLManagedTensor*>(p);
      if (m->deleter != nullptr) m->deleter(m);
    });
  }
};

template <class T>
void check_import(const char* what, const Device& device, const DLTensor& t, int ndim) {
  const DLDevice want = dl_device_of(device);
  if (t.device.device_type != want.device_type || t.device.device_id != want.device_id)
    throw InvalidArgument(std::string(what) + ": the tensor is on DLPack device (" +
                          std::to_string(static_cast<int>(t.device.device_type)) + ", " +
                          std::to_string(t.device.device_id) + "), " + device.spec() + " is (" +
                          std::to_string(static_cast<int>(want.device_type)) + ", " + std::to_string(want.device_id) +
                          ")");
  const DLDataType dt = dl_dtype<T>();
  if (t.dtype.code != dt.code || t.dtype.bits != dt.bits || t.dtype.lanes != dt.lanes)
    throw InvalidArgument(std::string(what) + ": the tensor's dtype (code " + std::to_string(t.dtype.code) + ", " +
                          std::to_string(t.dtype.bits) + " bits, " + std::to_string(t.dtype.lanes) +
                          " lanes) is not " + to_string(dtype_v<T>));
  if (t.ndim != ndim)
    throw InvalidArgument(std::string(what) + ": the tensor has " + std::to_string(t.ndim) + " dimensions, expected " +
                          std::to_string(ndim));
  if (t.data == nullptr) throw InvalidArgument(std::string(what) + ": the tensor's data is null");
  if (t.byte_offset % sizeof(T) != 0)
    throw InvalidArgument(std::string(what) + ": byte_offset " + std::to_string(t.byte_offset) +
                          " is not a whole number of elements");
  for (int i = 0; i < ndim; ++i)
    if (t.shape[i] < 0) throw InvalidArgument(std::string(what) + ": a negative extent");
}

}  // namespace

template <class T>
DLManagedTensor* to_dlpack(const Vector<T>& x) {
  return make_export<T>(x.storage(), x.device(), 1, x.offset(), x.size(), 1, 1);
}

template <class T>
DLManagedTensor* to_dlpack(const DenseMatrix<T>& A) {
  return make_export<T>(A.storage(), A.device(), 2, A.offset(), A.rows(), A.cols(), A.ld());
}

template <class T>
Vector<T> vector_from_dlpack(const Device& device, DLManagedTensor* mt) {
  if (mt == nullptr) throw InvalidArgument("vector_from_dlpack: the tensor is null");
  ImportGuard guard{mt};
  const DLTensor& t = mt->dl_tensor;
  check_import<T>("vector_from_dlpack", device, t, 1);
  if (t.strides != nullptr && t.strides[0] != 1 && t.shape[0] > 1)
    throw InvalidArgument("vector_from_dlpack: stride " + std::to_string(t.strides[0]) + ", expected 1");
  const std::int64_t offset = static_cast<std::int64_t>(t.byte_offset / sizeof(T)), n = t.shape[0];
  const std::size_t bytes = checked_bytes(offset + n, sizeof(T), "vector_from_dlpack size");
  void* data = t.data;
  auto storage = std::make_shared<Buffer>(Buffer::wrap(device, data, bytes, guard.release()));
  return Vector<T>(std::move(storage), offset, n);
}

template <class T>
DenseMatrix<T> matrix_from_dlpack(const Device& device, DLManagedTensor* mt) {
  if (mt == nullptr) throw InvalidArgument("matrix_from_dlpack: the tensor is null");
  ImportGuard guard{mt};
  const DLTensor& t = mt->dl_tensor;
  check_import<T>("matrix_from_dlpack", device, t, 2);
  const std::int64_t rows = t.shape[0], cols = t.shape[1];
  std::int64_t ld = cols > 0 ? cols : 1;
  if (t.strides != nullptr) {
    if (t.strides[1] != 1 && cols > 1)
      throw InvalidArgument("matrix_from_dlpack: column stride " + std::to_string(t.strides[1]) +
                            ", expected 1 (row-major)");
    if (rows > 1) ld = t.strides[0];
    if (ld < cols) throw InvalidArgument("matrix_from_dlpack: row stride " + std::to_string(ld) + " < cols");
  }
  const std::int64_t offset = static_cast<std::int64_t>(t.byte_offset / sizeof(T));
  // Wrap the span from the allocation's start to the last element, then view the matrix at its offset.
  const std::int64_t span = rows == 0 || cols == 0 ? 0 : (rows - 1) * ld + cols;
  void* data = t.data;
  const std::size_t bytes = checked_bytes(offset + span, sizeof(T), "matrix_from_dlpack size");
  return DenseMatrix<T>(std::make_shared<Buffer>(Buffer::wrap(device, data, bytes, guard.release())), offset, rows,
                        cols, ld);
}

#define TESSERA_INSTANTIATE_DLPACK(T)                                              \
  template DLManagedTensor* to_dlpack<T>(const Vector<T>&);                        \
  template DLManagedTensor* to_dlpack<T>(const DenseMatrix<T>&);                   \
  template Vector<T> vector_from_dlpack<T>(const Device&, DLManagedTensor*);       \
  template DenseMatrix<T> matrix_from_dlpack<T>(const Device&, DLManagedTensor*);

TESSERA_INSTANTIATE_DLPACK(float)
TESSERA_INSTANTIATE_DLPACK(double)

}  // namespace tessera
