#include "plan/csr_columns.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "host_memory_backend.hpp"

namespace tessera::plan {

std::int64_t csr_bandwidth(const std::int32_t* row_ptr, const std::int32_t* col, std::int64_t rows) {
  std::int64_t bw = 0;
#pragma omp parallel for schedule(static) reduction(max : bw)
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const std::int64_t d = static_cast<std::int64_t>(col[k]) - i;
      bw = std::max(bw, d < 0 ? -d : d);
    }
  return bw;
}

void HostFree::operator()(std::int16_t* p) const noexcept { host_memory::deallocate(p); }

NarrowColumns narrow_columns(const std::int32_t* row_ptr, const std::int32_t* col, std::int64_t rows) {
  const std::int64_t nnz = row_ptr[rows];
  NarrowColumns out(static_cast<std::int16_t*>(
      host_memory::allocate(static_cast<std::size_t>(nnz + kNarrowPadding) * sizeof(std::int16_t))));
  std::int16_t* o = out.get();
  for (std::int64_t k = nnz; k < nnz + kNarrowPadding; ++k) o[k] = 0;
  std::atomic<bool> fits{true};
  // In parallel: on a multi-socket host the pages are first touched by threads near the ones
  // that will stream them (the products split rows by nonzeros, close to this static split).
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < rows; ++i) {
    bool row_fits = true;
    for (std::int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
      const std::int64_t d = static_cast<std::int64_t>(col[k]) - i;
      row_fits &= d >= INT16_MIN && d <= INT16_MAX;
      o[k] = static_cast<std::int16_t>(d);
    }
    if (!row_fits) fits.store(false, std::memory_order_relaxed);
  }
  if (!fits.load()) out.reset();
  return out;
}

}  // namespace tessera::plan
