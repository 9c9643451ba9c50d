// Fuzz target: CSR structure validation (what CsrMatrix::from_host checks before it allocates)
// on arbitrary arrays. Whenever validate_csr accepts a structure, everything a backend may then
// assume must hold: a product over it reads only inside row_ptr, col_idx, values and x (ASan
// watches), and the row statistics agree with it. Rejections must be InvalidArgument.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tessera/csr_matrix.hpp"
#include "tessera/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Layout: rows (1 byte), cols (1 byte), row_ptr length (1 byte), nnz (1 byte), then int32s.
  if (size < 4) return 0;
  const std::int64_t rows = static_cast<std::int8_t>(data[0]);  // negative sizes are bad input too
  const std::int64_t cols = static_cast<std::int8_t>(data[1]);
  const std::size_t rp_len = data[2], nnz = data[3];
  std::vector<std::int32_t> ints((size - 4) / 4);
  if (!ints.empty()) std::memcpy(ints.data(), data + 4, ints.size() * 4);
  std::vector<std::int32_t> row_ptr, col_idx;
  for (std::size_t k = 0; k < ints.size(); ++k) (k < rp_len ? row_ptr : col_idx).push_back(ints[k]);
  if (col_idx.size() > nnz) col_idx.resize(nnz);
  const std::vector<double> values(col_idx.size(), 1.0);
  try {
    tessera::detail::validate_csr(rows, cols, row_ptr.data(), row_ptr.size(), col_idx.data(), col_idx.size(),
                                  values.size());
  } catch (const tessera::InvalidArgument&) {
    return 0;
  }
  // Accepted: a reference product touches exactly the promised ranges.
  const std::vector<double> x(static_cast<std::size_t>(cols), 1.0);
  double sum = 0.0;
  std::int64_t longest = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    longest = std::max<std::int64_t>(longest, row_ptr[static_cast<std::size_t>(i) + 1] - row_ptr[static_cast<std::size_t>(i)]);
    for (std::int32_t k = row_ptr[static_cast<std::size_t>(i)]; k < row_ptr[static_cast<std::size_t>(i) + 1]; ++k)
      sum += values.at(static_cast<std::size_t>(k)) * x.at(static_cast<std::size_t>(col_idx.at(static_cast<std::size_t>(k))));
  }
  const tessera::CsrStats s = tessera::csr_stats(row_ptr.data(), rows);
  if (s.max_row != longest || sum != static_cast<double>(col_idx.size())) {
    std::fprintf(stderr, "accepted CSR disagrees with its statistics or its entry count\n");
    std::abort();
  }
  return 0;
}
