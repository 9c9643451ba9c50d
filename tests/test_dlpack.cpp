// DLPack: Tessera containers out as DLManagedTensor and back in, without copies, on every
// device; the storage lives until the consumer's deleter runs; foreign tensors are checked.
#if TESSERA_TEST_DLPACK
#include "tessera/dlpack.hpp"

#include <doctest/doctest.h>

#include <vector>

#include "support/devices.hpp"
#include "tessera/tessera.hpp"

using namespace tessera;
using namespace tessera_test;

TEST_CASE("dlpack: vectors and matrix blocks round-trip without copies on every device") {
  for (const Device& d : all_devices()) {
    INFO(d.spec());
    Vector<double> whole = Vector<double>::from_host(d, {1, 2, 3, 4, 5, 6});
    DLManagedTensor* t = to_dlpack(whole.sub(2, 3));
    CHECK(t->dl_tensor.ndim == 1);
    CHECK(t->dl_tensor.shape[0] == 3);
    CHECK(t->dl_tensor.byte_offset == 2 * sizeof(double));
    CHECK(t->dl_tensor.dtype.bits == 64);
    Vector<double> back = vector_from_dlpack<double>(d, t);  // takes t
    CHECK(back.to_host() == std::vector<double>{3, 4, 5});
    scal(-1.0, back);  // the same memory
    CHECK(whole.to_host() == std::vector<double>{1, 2, -3, -4, -5, 6});

    DenseMatrix<float> m = DenseMatrix<float>::from_host(d, 3, 4, std::vector<float>(12, 1.0f), 6);
    DLManagedTensor* mt = to_dlpack(m.block(1, 1, 2, 2));
    CHECK(mt->dl_tensor.strides[0] == 6);
    CHECK(mt->dl_tensor.byte_offset == (6 + 1) * sizeof(float));
    DenseMatrix<float> mb = matrix_from_dlpack<float>(d, mt);
    CHECK(mb.rows() == 2);
    CHECK(mb.ld() == 6);
    mb.upload(std::vector<float>{7, 8, 9, 10}.data());
    const auto all = m.to_host();
    CHECK(all == std::vector<float>{1, 1, 1, 1, 1, 7, 8, 1, 1, 9, 10, 1});
  }
}

namespace {
int deleted = 0;
void count_delete(DLManagedTensor*) { ++deleted; }
}  // namespace

TEST_CASE("dlpack: an imported tensor's deleter runs when the last handle goes, or at once on error") {
  const Device cpu = Device::open("cpu");
  std::vector<double> memory{1, 2, 3, 4};
  std::int64_t shape[1] = {4};
  DLManagedTensor t{};
  t.dl_tensor.data = memory.data();
  t.dl_tensor.device = {kDLCPU, 0};
  t.dl_tensor.ndim = 1;
  t.dl_tensor.dtype = {kDLFloat, 64, 1};
  t.dl_tensor.shape = shape;
  t.deleter = count_delete;
  deleted = 0;
  {
    Vector<double> v = vector_from_dlpack<double>(cpu, &t);
    Vector<double> view = v.sub(1, 2);
    CHECK(dot(view, view) == 13.0);
    v = Vector<double>();
    CHECK(deleted == 0);  // the view still holds the storage
  }
  CHECK(deleted == 1);
  CHECK(memory == std::vector<double>{1, 2, 3, 4});  // not freed: the application owns it

  // Errors: a float64 tensor as float, another device type, another rank; each calls the deleter.
  deleted = 0;
  CHECK_THROWS_AS(vector_from_dlpack<float>(cpu, &t), InvalidArgument);
  t.dl_tensor.device = {kDLCUDA, 0};
  CHECK_THROWS_AS(vector_from_dlpack<double>(cpu, &t), InvalidArgument);
  t.dl_tensor.device = {kDLCPU, 0};
  CHECK_THROWS_AS(matrix_from_dlpack<double>(cpu, &t), InvalidArgument);
  CHECK(deleted == 3);
  CHECK_THROWS_AS(vector_from_dlpack<double>(cpu, nullptr), InvalidArgument);
  // The device still works.
  CHECK(sum(Vector<double>::from_host(cpu, {1, 2})) == 3.0);
}
#endif
