// Conjugate Gradient with a Jacobi preconditioner on a 3D Laplacian, on any device:
//   cg_jacobi [device] [n]      e.g. cg_jacobi cuda:0 128   (default: auto, n = 32)
// Nothing inside the loop waits for the device: dots land in device Scalars, and the step
// lengths are ratios of them read on the device. The host looks at the residual every 10th
// iteration only.
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "tessera/tessera.hpp"

using namespace tessera;

int main(int argc, char** argv) {
  const Device dev = Device::open(argc > 1 ? argv[1] : "auto");
  const std::int64_t n = argc > 2 ? std::stoll(argv[2]) : 32;
  const HostCsr<double> h = laplacian_3d<double>(n, n, n);
  const std::int64_t rows = h.rows;
  std::vector<double> inverse_diagonal(static_cast<std::size_t>(rows));
  for (std::int64_t i = 0; i < rows; ++i)
    for (auto k = h.row_ptr[i]; k < h.row_ptr[i + 1]; ++k)
      if (h.col_idx[k] == i) inverse_diagonal[i] = 1.0 / h.values[k];
  const auto A = CsrMatrix<double>::from_host(dev, h);

  Vector<double> x(dev, rows), r(dev, rows), z(dev, rows), p(dev, rows), q(dev, rows);
  const auto dinv = Vector<double>::from_host(dev, inverse_diagonal);
  Scalar<double> rz(dev), rz_new(dev), pq(dev), rr(dev);
  fill(1.0, r);  // b = 1, x = 0: r = b
  fill(0.0, x);
  multiply(dinv, r, z);
  copy(z, p);
  dot(r, z, rz);

  const double tol = 1e-8 * std::sqrt(static_cast<double>(rows));  // ||r|| / ||b|| < 1e-8
  int it = 0;
  for (; it < 1000; ++it) {
    spmv(1.0, A, p, 0.0, q);
    dot(p, q, pq);
    axpy(rz / pq, p, x);                      // x += alpha p, alpha = rz / pq on the device
    axpby_dot(-(rz / pq), q, 1.0, r, r, rr);  // r -= alpha q; rr = r . r, one pass
    multiply(dinv, r, z);
    dot(r, z, rz_new);
    axpby(1.0, z, rz_new / rz, p);            // p = z + beta p
    std::swap(rz, rz_new);
    if (it % 10 == 9 && std::sqrt(rr.get()) < tol) break;  // the only wait
  }
  std::printf("%s: %lld unknowns, %d iterations, |r| = %.3e, host waits %llu\n", dev.spec().c_str(),
              static_cast<long long>(rows), it + 1, std::sqrt(rr.get()), static_cast<unsigned long long>(dev.host_waits()));
  return std::sqrt(rr.get()) < tol ? 0 : 1;
}
