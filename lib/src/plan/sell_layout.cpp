#include "plan/sell_layout.hpp"

#include <algorithm>
#include <numeric>

namespace tessera::plan {

int sell_sigma_for(int sigma, int c) {
  if (sigma <= 1) return 1;
  return (sigma + c - 1) / c * c;
}

SellLayout sell_layout(const std::int32_t* row_ptr, std::int64_t rows, int c, int sigma) {
  SellLayout l;
  l.c = c;
  l.sigma = sell_sigma_for(sigma, c);
  l.rows = rows;
  l.slices = (rows + c - 1) / c;
  const auto len = [&](std::int64_t r) { return row_ptr[r + 1] - row_ptr[r]; };
  if (l.sigma > 1) {
    l.perm.resize(static_cast<std::size_t>(rows));
    std::iota(l.perm.begin(), l.perm.end(), 0);
    // Longest first; stable, so equal rows keep their order (a Laplacian stays in order).
    for (std::int64_t w = 0; w < rows; w += l.sigma) {
      const auto b = l.perm.begin() + w, e = l.perm.begin() + std::min(rows, w + l.sigma);
      std::stable_sort(b, e, [&](std::int32_t a, std::int32_t z) { return len(a) > len(z); });
    }
  }
  l.row_len.assign(static_cast<std::size_t>(l.slices * c), 0);
  for (std::int64_t slot = 0; slot < rows; ++slot)
    l.row_len[static_cast<std::size_t>(slot)] = len(l.sorted() ? l.perm[static_cast<std::size_t>(slot)] : slot);
  l.slice_ptr.assign(static_cast<std::size_t>(l.slices + 1), 0);
  std::int64_t total = 0;
  for (std::int64_t s = 0; s < l.slices; ++s) {
    const auto first = l.row_len.begin() + s * c;
    total += static_cast<std::int64_t>(*std::max_element(first, first + c)) * c;
    // Past int32 the layout is refused (keep_sell); the offsets are then never read.
    l.slice_ptr[static_cast<std::size_t>(s + 1)] = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
  }
  l.padded = total;
  return l;
}

template <class T>
void sell_fill(const SellLayout& l, const std::int32_t* row_ptr, const std::int32_t* col_idx, const T* values,
               std::int32_t* col, T* val) {
  std::fill(col, col + l.padded, 0);
  std::fill(val, val + l.padded, T(0));
  for (std::int64_t slot = 0; slot < l.rows; ++slot) {
    const std::int64_t s = slot / l.c, lane = slot % l.c;
    const std::int64_t r = l.sorted() ? l.perm[static_cast<std::size_t>(slot)] : slot;
    const std::int64_t n = l.row_len[static_cast<std::size_t>(slot)];
    for (std::int64_t j = 0; j < n; ++j) {
      const std::int64_t k = l.slice_ptr[static_cast<std::size_t>(s)] + j * l.c + lane;
      col[k] = col_idx[row_ptr[r] + j];
      val[k] = values[row_ptr[r] + j];
    }
  }
}

template <class T>
void sell_fill_values(const SellLayout& l, const std::int32_t* row_ptr, const T* values, T* val) {
  for (std::int64_t slot = 0; slot < l.rows; ++slot) {
    const std::int64_t s = slot / l.c, lane = slot % l.c;
    const std::int64_t r = l.sorted() ? l.perm[static_cast<std::size_t>(slot)] : slot;
    const std::int64_t n = l.row_len[static_cast<std::size_t>(slot)];
    for (std::int64_t j = 0; j < n; ++j) val[l.slice_ptr[static_cast<std::size_t>(s)] + j * l.c + lane] = values[row_ptr[r] + j];
  }
}

template void sell_fill<float>(const SellLayout&, const std::int32_t*, const std::int32_t*, const float*, std::int32_t*,
                               float*);
template void sell_fill<double>(const SellLayout&, const std::int32_t*, const std::int32_t*, const double*,
                                std::int32_t*, double*);
template void sell_fill_values<float>(const SellLayout&, const std::int32_t*, const float*, float*);
template void sell_fill_values<double>(const SellLayout&, const std::int32_t*, const double*, double*);

}  // namespace tessera::plan
