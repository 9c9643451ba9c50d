// CSR structure checks, run on the host arrays before a CsrMatrix allocates anything (and by
// the fuzz target tests/fuzz/csr_fuzz.cpp, which builds this file on its own).
#include <atomic>
#include <limits>
#include <string>

#include "tessera/csr_matrix.hpp"

namespace tessera::detail {

void validate_csr(std::int64_t rows, std::int64_t cols, const std::int32_t* row_ptr, std::size_t row_ptr_size,
                  const std::int32_t* col_idx, std::size_t col_idx_size, std::size_t values_size) {
  constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
  if (rows < 0 || cols < 0)
    throw InvalidArgument("CSR: negative shape " + std::to_string(rows) + " x " + std::to_string(cols));
  if (rows > int32_max - 1 || cols > int32_max)
    throw InvalidArgument("CSR: shape " + std::to_string(rows) + " x " + std::to_string(cols) +
                          " does not fit int32 indices");
  if (col_idx_size > static_cast<std::size_t>(int32_max))
    throw InvalidArgument("CSR: " + std::to_string(col_idx_size) + " nonzeros do not fit int32 indices");
  if (row_ptr_size != static_cast<std::size_t>(rows) + 1)
    throw InvalidArgument("CSR: row_ptr has " + std::to_string(row_ptr_size) + " entries, expected rows + 1 = " +
                          std::to_string(rows + 1));
  if (values_size != col_idx_size)
    throw InvalidArgument("CSR: " + std::to_string(values_size) + " values but " + std::to_string(col_idx_size) +
                          " column indices (expected equal counts)");
  if (row_ptr[0] != 0) throw InvalidArgument("CSR: row_ptr[0] = " + std::to_string(row_ptr[0]) + ", expected 0");
  for (std::int64_t i = 0; i < rows; ++i)
    if (row_ptr[i + 1] < row_ptr[i])
      throw InvalidArgument("CSR: row_ptr decreases at row " + std::to_string(i) + " (" + std::to_string(row_ptr[i]) +
                            " then " + std::to_string(row_ptr[i + 1]) + "), expected non-decreasing");
  if (static_cast<std::size_t>(row_ptr[rows]) != col_idx_size)
    throw InvalidArgument("CSR: row_ptr[rows] = " + std::to_string(row_ptr[rows]) + ", expected nnz = " +
                          std::to_string(col_idx_size));
  for (std::size_t k = 0; k < col_idx_size; ++k)
    if (col_idx[k] < 0 || col_idx[k] >= cols)
      throw InvalidArgument("CSR: column index " + std::to_string(col_idx[k]) + " at position " + std::to_string(k) +
                            " is out of range, expected 0 <= col < " + std::to_string(cols));
}

std::uint64_t next_generation() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

}  // namespace tessera::detail
