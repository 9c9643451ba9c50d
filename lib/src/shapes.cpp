// Size checks and host-side copies used by the container templates.
#include <atomic>
#include <cstring>
#include <limits>
#include <string>

#include "tessera/csr_matrix.hpp"
#include "tessera/dense_matrix.hpp"
#include "tessera/grid.hpp"
#include "tessera/vector.hpp"

namespace tessera::detail {

std::size_t dense_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t elem_size) {
  if (rows < 0 || cols < 0)
    throw InvalidArgument("DenseMatrix: negative shape " + std::to_string(rows) + " x " + std::to_string(cols));
  if (ld < cols || ld < 1)
    throw InvalidArgument("DenseMatrix: leading dimension " + std::to_string(ld) + " is smaller than cols = " +
                          std::to_string(cols) + " (expected ld >= max(cols, 1))");
  if (rows > 0 && ld > std::numeric_limits<std::int64_t>::max() / rows)
    throw InvalidArgument("DenseMatrix: rows * ld overflows (" + std::to_string(rows) + " x " + std::to_string(ld) + ")");
  return checked_bytes(rows * ld, elem_size, "DenseMatrix size");
}

void copy_rows(void* dst, std::int64_t dst_ld, const void* src, std::int64_t src_ld, std::int64_t rows,
               std::int64_t cols, std::size_t elem_size) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (std::int64_t i = 0; i < rows; ++i)
    std::memcpy(d + i * dst_ld * elem_size, s + i * src_ld * elem_size, static_cast<std::size_t>(cols) * elem_size);
}

std::int64_t checked_cells(std::initializer_list<std::int64_t> extents, const char* what) {
  std::int64_t cells = 1;
  for (std::int64_t e : extents) {
    if (e < 0) throw InvalidArgument(std::string(what) + ": negative extent " + std::to_string(e));
    if (e > 0 && cells > std::numeric_limits<std::int64_t>::max() / e)
      throw InvalidArgument(std::string(what) + ": the element count overflows");
    cells *= e;
  }
  return cells;
}

}  // namespace tessera::detail

namespace tessera::detail {

void check_subrange(const char* what, std::int64_t offset, std::int64_t length, std::int64_t size) {
  if (offset < 0 || length < 0 || offset > size || length > size - offset)
    throw InvalidArgument(std::string(what) + ": elements [" + std::to_string(offset) + ", " +
                          std::to_string(offset + length) + ") do not lie within [0, " + std::to_string(size) + ")");
}

}  // namespace tessera::detail
