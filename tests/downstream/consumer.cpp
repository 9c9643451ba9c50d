// A downstream program: opens the device TESSERA_DEVICE names, runs a GEMM and an SpMV, and
// checks both against values known in closed form. Exit code 0 only when both are right.
#include <tessera/tessera.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  auto dev = tessera::Device::open("auto");
  const std::int64_t n = 64;
  // GEMM: A = all 2, B = all 3 -> every entry of C = 6n.
  auto A = tessera::DenseMatrix<float>::from_host(dev, n, n, std::vector<float>(n * n, 2.0f));
  auto B = tessera::DenseMatrix<float>::from_host(dev, n, n, std::vector<float>(n * n, 3.0f));
  tessera::DenseMatrix<float> C(dev, n, n);
  tessera::gemm(tessera::Trans::N, tessera::Trans::N, 1.0f, A, B, 0.0f, C);
  bool ok = true;
  for (float c : C.to_host()) ok = ok && c == 6.0f * n;
  // SpMV: the 2D Laplacian times the ones vector is 0 inside and positive at the border.
  auto L = tessera::CsrMatrix<double>::from_host(dev, tessera::laplacian_2d<double>(10, 10));
  auto x = tessera::Vector<double>::from_host(dev, std::vector<double>(100, 1.0));
  tessera::Vector<double> y(dev, 100);
  tessera::spmv(1.0, L, x, 0.0, y);
  // Row sums: 4 - (neighbours): corners 2, edges 1, interior 0 -> total 4*2 + 32*1 = 40.
  ok = ok && std::abs(tessera::sum(y) - 40.0) < 1e-12;
  std::printf("%s (%s): gemm and spmv %s\n", dev.spec().c_str(), dev.info().name.c_str(), ok ? "correct" : "WRONG");
  return ok ? 0 : 1;
}
