// Real matrices from the shared collection (SuiteSparse / Matrix Market): spmv on every device
// against the reference, and a unit lower triangular solve with each square matrix's lower
// triangle. The folder is TESSERA_MATRIX_DIR from the environment, or else the build's
// TESSERA_DEFAULT_MATRIX_DIR; where it is absent the test says so and passes.
//
// Bounds: spmv as in test_ops_spmv.cpp (gamma_{k_i + 2} times the row's magnitude sum, computed
// by the reference on absolute values). The triangular solves of real matrices can be
// arbitrarily ill-conditioned (a unit lower triangle of a graph's adjacency grows like its path
// counts), so forward agreement with the reference is not a meaningful test; each device's
// solution is checked for componentwise backward error instead,
//   |b_i - (L x)_i| <= gamma_{k_i + 1} (|b_i| + sum_j |l_ij x_j|),
// which every substitution order satisfies regardless of conditioning. Matrices whose reference
// solution overflows T are reported and skipped for the solve.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "support/compare.hpp"
#include "support/devices.hpp"
#include "support/random.hpp"
#include "support/scale.hpp"
#include "support/sparse.hpp"
#include "support/spmm.hpp"
#include "tessera/tessera.hpp"

#ifndef TESSERA_DEFAULT_MATRIX_DIR
#define TESSERA_DEFAULT_MATRIX_DIR ""
#endif

using namespace tessera;
using namespace tessera_test;
namespace fs = std::filesystem;

namespace {

// The largest matrix tested: every one of the collection at full scale (dblp-2010, 1.6M after
// symmetric expansion, is the largest). A scaled run (emulated: tests/support/scale.hpp) tests
// those up to 200k nonzeros, 36 of the 44 real ones, and names the 8 it skips (under QEMU the
// two cases ran 60 s, 32 s so); the native runs test them all.
inline std::int64_t max_nnz() { return scaled(2000000, 200000); }

std::string matrix_dir() {
  if (const char* env = std::getenv("TESSERA_MATRIX_DIR"); env != nullptr && *env != '\0') return env;
  return TESSERA_DEFAULT_MATRIX_DIR;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::vector<fs::path> matrix_files(const std::string& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && (ends_with(name, ".mtx") || ends_with(name, ".mtx.gz"))) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// For a plain .mtx file: whether its banner names a field this library reads (real, integer,
// pattern) in coordinate format. Compressed files are judged by the reader's answer instead.
bool readable_banner(const fs::path& p, std::string& banner) {
  std::ifstream in(p);
  std::getline(in, banner);
  std::string lower = banner;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("coordinate") != std::string::npos && lower.find("complex") == std::string::npos;
}

template <class T>
void check_spmv(const HostCsr<T>& h, const std::string& what) {
  const Device ref = reference_device();
  const auto hx = random_vector<T>(static_cast<std::size_t>(h.cols), 11);
  const auto hy = random_vector<T>(static_cast<std::size_t>(h.rows), 12);
  const T alpha = T(-0.5), beta = T(2);
  std::vector<T> expected, magnitude;
  if (!on_reference(what.c_str(), [&] {
        auto y = Vector<T>::from_host(ref, hy);
        spmv(alpha, CsrMatrix<T>::from_host(ref, h), Vector<T>::from_host(ref, hx), beta, y);
        expected = y.to_host();
        auto ym = Vector<T>::from_host(ref, abs_of(hy));
        spmv(T(0.5), CsrMatrix<T>::from_host(ref, abs_values(h)), Vector<T>::from_host(ref, abs_of(hx)), T(2), ym);
        magnitude = ym.to_host();
      }))
    return;
  std::vector<double> bound(expected.size());
  for (std::size_t i = 0; i < bound.size(); ++i)
    bound[i] = gamma_bound<T>(static_cast<double>(h.row_ptr[i + 1] - h.row_ptr[i] + 2)) * static_cast<double>(magnitude[i]);
  for_each_device<T>(Op::spmv, [&](const Device& d) {
    auto y = Vector<T>::from_host(d, hy);
    spmv(alpha, CsrMatrix<T>::from_host(d, h), Vector<T>::from_host(d, hx), beta, y);
    check_close(y.to_host(), expected, bound, what + ": spmv");
  });
}

template <class T>
bool backward_ok(const HostCsr<T>& h, const std::vector<T>& x, const std::vector<T>& b, const std::string& what) {
  if (!all_finite(x)) {
    FAIL_CHECK(what << ": the solution is not finite");
    return false;
  }
  const TriangularResidual res = triangular_residual(h, Uplo::lower, Diag::unit, x, b);
  std::size_t bad = 0, worst = 0;
  double worst_ratio = 0;
  for (std::size_t i = 0; i < res.r.size(); ++i) {
    const double allowed = gamma_bound<T>(res.k[i] + 1) * static_cast<double>(res.m[i]) + std::numeric_limits<T>::min();
    const double ratio = static_cast<double>(std::abs(res.r[i])) / allowed;
    if (!(ratio <= 1)) ++bad;
    if (!(ratio <= worst_ratio)) {
      worst_ratio = ratio;
      worst = i;
    }
  }
  CHECK_MESSAGE(bad == 0, what << ": backward error above the bound in " << bad << " rows; worst row " << worst
                               << " at " << worst_ratio << " times the bound");
  return bad == 0;
}

// The same structure with each row's strict lower part scaled to magnitude sum 1/2: the unit
// lower triangle is then well conditioned (||L^{-1}||_inf <= 2, Varah), so the solution can be
// compared with the reference's. The sparsity pattern, which decides the dependency levels a
// parallel solver schedules, is the real matrix's.
template <class T>
HostCsr<T> scaled_lower(HostCsr<T> h) {
  for (std::int64_t i = 0; i < h.rows; ++i) {
    const auto b = static_cast<std::size_t>(h.row_ptr[static_cast<std::size_t>(i)]);
    const auto e = static_cast<std::size_t>(h.row_ptr[static_cast<std::size_t>(i + 1)]);
    long double sum = 0;
    for (std::size_t p = b; p < e; ++p)
      if (h.col_idx[p] < i) sum += std::abs(static_cast<long double>(h.values[p]));
    if (sum == 0) continue;
    for (std::size_t p = b; p < e; ++p)
      if (h.col_idx[p] < i) h.values[p] = static_cast<T>(static_cast<long double>(h.values[p]) * 0.5L / sum);
  }
  return h;
}

template <class T>
void check_sptrsv(const HostCsr<T>& h, const std::string& what, bool compare_with_reference) {
  const Device ref = reference_device();
  const auto hb = random_vector<T>(static_cast<std::size_t>(h.rows), 13);
  std::vector<T> x_ref;
  if (!on_reference(what.c_str(), [&] {
        const auto plan = sptrsv_analyze(Uplo::lower, Diag::unit, CsrMatrix<T>::from_host(ref, h));
        Vector<T> x(ref, h.rows);
        sptrsv_solve(plan, Vector<T>::from_host(ref, hb), x);
        x_ref = x.to_host();
      }))
    return;
  if (!all_finite(x_ref)) {
    note_once(what + ": the unit lower solve overflows " + std::string(to_string(dtype_v<T>)) +
              " (ill-conditioned); only the scaled copy is solved");
    return;
  }
  backward_ok(h, x_ref, hb, what + ": sptrsv (reference)");
  // Forward agreement where Varah's bound applies: ||x - x_ref|| <= ||L^{-1}|| (|r| + |r_ref|)
  // <= ||L^{-1}|| * 2 max_i gamma_{k_i + 1} m_i (the backward-error bounds of both solutions).
  const double inv_bound = compare_with_reference ? inverse_norm_bound(h, Uplo::lower, Diag::unit) : 0.0;
  double allowed = 0;
  if (compare_with_reference) {
    REQUIRE(std::isfinite(inv_bound));
    const TriangularResidual res = triangular_residual(h, Uplo::lower, Diag::unit, x_ref, hb);
    for (std::size_t i = 0; i < res.m.size(); ++i)
      allowed = std::max(allowed, gamma_bound<T>(res.k[i] + 1) * static_cast<double>(res.m[i]));
  }
  for_each_device<T>(Op::sptrsv, [&](const Device& d) {
    const auto plan = sptrsv_analyze(Uplo::lower, Diag::unit, CsrMatrix<T>::from_host(d, h));
    Vector<T> x(d, h.rows);
    sptrsv_solve(plan, Vector<T>::from_host(d, hb), x);
    const auto got = x.to_host();
    backward_ok(h, got, hb, what + ": sptrsv");
    if (compare_with_reference) check_close(got, x_ref, inv_bound * 2.5 * allowed, what + ": sptrsv vs reference");
  });
}

}  // namespace

TEST_CASE_TEMPLATE("real matrices: spmv and unit lower sptrsv on every device", T, float, double) {
  const std::string dir = matrix_dir();
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) {
    MESSAGE("matrix folder '" << dir << "' is absent (set TESSERA_MATRIX_DIR): real-matrix tests skipped");
    return;
  }
  const auto files = matrix_files(dir);
  if (files.empty()) {
    MESSAGE("no .mtx / .mtx.gz files in '" << dir << "': real-matrix tests skipped");
    return;
  }
  int tested = 0, skipped = 0;
  for (const fs::path& p : files) {
    const std::string name = p.filename().string();
    INFO("matrix " << name);
    std::string banner;
    if (ends_with(name, ".mtx") && !readable_banner(p, banner)) {
      note_once("real matrices: skipped " + name + " (" + banner + ")");
      ++skipped;
      continue;
    }
    HostCsr<T> h;
    try {
      h = read_matrix_market<T>(p.string());
    } catch (const ParseError& e) {
      FAIL_CHECK(name << ": ParseError: " << std::string(e.what()));
      continue;
    } catch (const InvalidArgument& e) {
      // The reader refuses complex and array files (matrix_market.hpp); anything else is a failure.
      const std::string msg = e.what();
      if (msg.find("complex") != std::string::npos || msg.find("array") != std::string::npos) {
        note_once("real matrices: skipped " + name + " (" + msg + ")");
        ++skipped;
      } else {
        FAIL_CHECK(name << ": " << msg);
      }
      continue;
    } catch (const std::exception& e) {
      FAIL_CHECK(name << ": " << std::string(e.what()));
      continue;
    }
    if (h.nnz() > max_nnz()) {
      note_once("real matrices: skipped " + name + " (nnz " + std::to_string(h.nnz()) + " > " +
                std::to_string(max_nnz()) + ")");
      ++skipped;
      continue;
    }
    std::ostringstream what;
    what << name << " (" << h.rows << " x " << h.cols << ", nnz " << h.nnz() << ", " << to_string(dtype_v<T>) << ")";
    check_spmv(h, what.str());
    spmm_case<T>(h, what.str(), 3, 1.0, 0.0, true, {}, 41);
    if (h.nnz() <= 200000) spmm_case<T>(h, what.str(), 32, -0.5, 1.5, false, {1, 2, 3}, 43);
    if (h.rows == h.cols) {
      check_sptrsv(h, what.str(), false);
      check_sptrsv(scaled_lower(h), what.str() + " scaled lower", true);
    }
    ++tested;
  }
  MESSAGE("real matrices (" << std::string(to_string(dtype_v<T>)) << "): " << tested << " tested, " << skipped << " skipped, from "
                            << dir);
}
