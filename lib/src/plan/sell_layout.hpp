// SELL-C-sigma (Kreutzer et al., SIAM J. Sci. Comput. 2014): rows in slices of C, each slice
// stored column-major and padded to its longest row, so C SIMD lanes or C threads of a warp
// each take one row and read the slice's entries contiguously. Rows are first sorted by length
// (longest first) within windows of sigma rows, which keeps a slice's rows alike (little
// padding) while the permutation moves rows only within a window (the writes of y stay local).
// ELL is the case C = rows, sigma = 1.
//
// This is the structure half, computed on the host from the host row offsets (CsrView::
// host_row_ptr) in O(rows log sigma): the permutation, the sorted row lengths and the slices'
// offsets. Backends then fill the padded column and value arrays from the CSR arrays (on the
// device on GPUs: sell_fill kernels) and refill the values after update_values.
#pragma once

#include <cstdint>
#include <vector>

namespace tessera::plan {

struct SellLayout {
  int c = 1;      // rows per slice
  int sigma = 1;  // sorting window (1: rows keep their order and perm is empty)
  std::int64_t rows = 0, slices = 0;
  std::int64_t padded = 0;  // entries stored: sum over slices of C x (longest row)
  // slices + 1 offsets: slice s holds entries [slice_ptr[s], slice_ptr[s + 1]), column-major:
  // entry j of the slice's row `lane` at slice_ptr[s] + j * C + lane.
  std::vector<std::int32_t> slice_ptr;
  // slices * C lengths, slot by slot (slot = s * C + lane); 0 for the slots past the last row.
  std::vector<std::int32_t> row_len;
  // rows entries: the original row of each slot (slots < rows); empty when sigma == 1 (identity).
  std::vector<std::int32_t> perm;
  bool sorted() const { return !perm.empty(); }
};

// The layout of a CSR matrix's rows (rows + 1 offsets in host memory). c >= 1; sigma is 1 or a
// multiple of c (callers round it). padded may exceed int32: the caller checks (keep_sell).
SellLayout sell_layout(const std::int32_t* row_ptr, std::int64_t rows, int c, int sigma);

// A sigma valid for c: 1 stays 1, anything else is rounded up to a multiple of c.
int sell_sigma_for(int sigma, int c);

// Host fill of the padded arrays from CSR arrays (the cpu backend; tests): col and val hold
// layout.padded entries; padding gets column 0 and value 0.
template <class T>
void sell_fill(const SellLayout& layout, const std::int32_t* row_ptr, const std::int32_t* col_idx, const T* values,
               std::int32_t* col, T* val);
// Only the values (after update_values; the columns do not change).
template <class T>
void sell_fill_values(const SellLayout& layout, const std::int32_t* row_ptr, const T* values, T* val);

}  // namespace tessera::plan
