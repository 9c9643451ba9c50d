// Shared by the solver tests: the real-matrix folder, making a preconditioner by name, and one
// solve on a device with b = A * ones.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/sparse.hpp"
#include "tessera/tessera.hpp"

#ifndef TESSERA_DEFAULT_MATRIX_DIR
#define TESSERA_DEFAULT_MATRIX_DIR ""
#endif

namespace tessera_test {

// A matrix of the shared collection, or nothing when the folder (or the file) is absent.
inline std::optional<tessera::HostCsr<double>> shared_matrix(const std::string& name) {
  const char* env = std::getenv("TESSERA_MATRIX_DIR");
  const std::string dir = env != nullptr && *env != '\0' ? env : TESSERA_DEFAULT_MATRIX_DIR;
  const std::filesystem::path p = std::filesystem::path(dir) / name;
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_regular_file(p, ec)) return std::nullopt;
  return tessera::read_matrix_market<double>(p.string());
}

enum class Precond { none, jacobi, ilu0, ic0 };
inline const char* name(Precond p) {
  switch (p) {
    case Precond::none: return "none";
    case Precond::jacobi: return "jacobi";
    case Precond::ilu0: return "ilu0";
    case Precond::ic0: return "ic0";
  }
  return "?";
}

template <class T>
std::unique_ptr<tessera::Preconditioner<T>> make_preconditioner(Precond p, const tessera::CsrMatrix<T>& A) {
  switch (p) {
    case Precond::none: return nullptr;
    case Precond::jacobi: return std::make_unique<tessera::Jacobi<T>>(A);
    case Precond::ilu0: return std::make_unique<tessera::Ilu0<T>>(A);
    case Precond::ic0: return std::make_unique<tessera::Ic0<T>>(A);
  }
  return nullptr;
}

template <class T>
struct Solved {
  tessera::SolveResult result;
  std::vector<T> x;
  double b_norm = 0;
};

// Solves A x = A * ones from x = 0 on `device`.
template <class T>
Solved<T> solve_ones(const tessera::Device& device, const tessera::HostCsr<double>& h, tessera::SolverKind kind,
                     Precond p, tessera::SolveOptions o) {
  using namespace tessera;
  const auto A = CsrMatrix<T>::from_host(device, convert<T>(h));
  Vector<T> ones = Vector<T>::from_host(device, std::vector<T>(static_cast<std::size_t>(h.rows), T(1)));
  Vector<T> b(device, h.rows), x(device, h.rows);
  spmv(T(1), A, ones, T(0), b);
  fill(T(0), x);
  const auto M = make_preconditioner<T>(p, A);
  Solved<T> s;
  s.result = solve(kind, device.queue(), A, b, x, M.get(), o);
  s.x = x.to_host();
  return s;
}

}  // namespace tessera_test
