// The SpMV format and kernel policy: one decision, from a matrix's row statistics (CsrStats, computed once
// when it was built) and the device's tuning values, for every backend that has more than one
// kernel (CUDA and OpenCL). Backends launch what it picks; they never measure or decide again.
//
//  - rows:   a work-item per `rows_per_item` consecutive rows (OpenCL CPU kernels);
//  - merge:  the longest row exceeds spmv.long_row and spmv.merge_skew x the mean (a skewed,
//            e.g. power-law, matrix), and spmv.merge_long_row: merge-path over rows + nonzeros in
//            equal tiles, so one long row cannot keep a single warp busy while the others idle;
//            skewed rows no longer than spmv.merge_long_row take the vector kernel (never the
//            stream kernel, whose lanes would each sum a long row alone);
//  - split:  instead of merge for a matrix of at most spmv.split_max_nnz entries (small enough
//            that a call is latency-bound: merge path's partition search, staging and fix-up
//            pass cost more there than the imbalance they remove; CUDA's alone, 0: never) and the host row offsets are known (and an identity, CsrView::generation, to
//            keep the layout by): the rows longer than spmv.split_row cut into chunks of a fixed
//            number of entries (plan/split_layout.hpp), a warp a chunk, beside the vector
//            kernel's groups for the other rows, in one launch (lanes from the other rows' mean);
//  - stream: not skewed and mean row <= spmv.stream_mean: a group's rows read as one coalesced
//            run of nonzeros (short rows would leave most lanes of a vector kernel idle); for
//            spmv_dot the vector kernel with spmv.dot_lanes lanes instead, where that is set;
//  - vector: `lanes` work-items per row, lanes = (power of two >= mean) >> spmv.lanes_shift,
//            within spmv.min_lanes..spmv.max_lanes.
//
// The storage comes first (every backend but the reference): spmv.format forces csr or sell;
// auto takes SELL-C-sigma (plan/sell_layout.hpp) in two steps, the first from the statistics
// alone (sell_candidate: at least spmv.sell_min_rows rows, and either even rows, stddev <=
// spmv.sell_max_cv % of the mean, or irregular short rows where spmv.sell_irregular is set; on
// the cpu either only for a matrix within spmv.sell_max_llc last-level caches),
// the second once the backend has the layout (keep_sell: its padding <= spmv.sell_max_padding
// % of nnz). Where SELL is not taken the CSR kernel above runs.
//
// CSR's column indices may then be stored narrow (plan/csr_columns.hpp: int16 offsets from
// the row, half the index bytes; the cpu backend) where spmv.index asks for it
// (narrow_candidate) and every column is within +-32767 of its row (known once the backend has
// made its column pass).
#pragma once

#include <cstdint>
#include <string>

#include "tessera/backend.hpp"
#include "tuning/tuning.hpp"

namespace tessera::plan {

enum class SpmvKernel { rows, vector, stream, merge, split };
const char* to_string(SpmvKernel k);

enum class SpmvFormat { csr, sell };
// spmv.format's values.
enum class FormatSetting { automatic = 0, csr = 1, sell = 2 };
// Whether spmv.format forces SELL (what the format policy then obeys, and what keeps a backend's
// fused spmv_dot off its CSR kernel).
bool sell_forced(const tuning::Tuning& tune);
// Whether spmv_dot (CG's product and dot in one launch) runs SELL, and so unfused: only where
// forced. Where the automatic choice would take SELL, the fused CSR kernel still runs: a separate
// dot reads y and w again (two vectors), more than SELL saves (the row offsets, one int a row).
bool sell_in_spmv_dot(const tuning::Tuning& tune);

// Whether A's short rows vary in length from row to row, so that a loop over them would
// mispredict its exit about once per row: a quarter or more of the pairs of consecutive rows
// with a short one differ in length (CsrStats, counted once when the matrix was built).
bool irregular_short_rows(const CsrStats& s);

// Whether, over repeated products, the branch predictor learns the lengths of A's rows: fewer
// rows than spmv.short_gather_min_rows (tuning/spmv.cpp says how that was measured). Then a
// plain CSR loop predicts its exits, and neither the cpu's short-row gather nor SELL's
// irregular route pays.
bool predictor_learns_rows(const CsrView& A, const tuning::Tuning& tune);

// Whether A may run as SELL: forced, or auto and the statistics promise little padding (even
// rows, spmv.sell_max_cv) or a branch-free loop over irregular short rows (irregular_sell).
// Never for a matrix without rows or nonzeros, nor without host row offsets (nothing to build
// from). value_bytes: 4 (f32) or 8 (f64).
bool sell_candidate(const CsrView& A, const tuning::Tuning& tune, std::size_t value_bytes);
// Whether a SELL layout of A that stores `padded` entries is used (sell_candidate(A) held):
// forced, or its padding is small enough for a route that proposed it (even rows:
// spmv.sell_max_padding; irregular rows: spmv.sell_irregular_max_padding; where both did,
// either limit suffices). Never where `padded` overflows int32 indices.
bool keep_sell(const CsrView& A, std::int64_t padded, const tuning::Tuning& tune, std::size_t value_bytes);
// The irregular route: spmv.sell_irregular is set, the short rows are irregular and most of the
// rows (pairs of consecutive rows with a short one at least half the rows), and the matrix
// (values and column indices) is within spmv.sell_max_llc host last-level caches. There a CSR loop
// mispredicts its exit about once a row while the slices of rows sorted by length
// (spmv.sell_sigma) run fixed-length loops and padding costs little; a matrix streamed from
// memory pays for every padded entry and keeps CSR (and its x prefetch).
bool irregular_sell(const CsrView& A, const tuning::Tuning& tune, std::size_t value_bytes);
// "sell(C=32, sigma=256, padding 3.1%)": what tessera::spmv_kernel reports.
std::string describe_sell(int c, int sigma, std::int64_t padded, std::int64_t nnz);

// spmv.index's values.
enum class IndexSetting { int32 = 0, int16 = 1 };
// Whether A's CSR columns may be stored narrow: int16 asked for (tuning/spmv.cpp says why it is
// not the default). Never for a matrix without rows, nonzeros or identity (generation 0: the
// offsets would be rebuilt at every call).
bool narrow_candidate(const CsrView& A, const tuning::Tuning& tune);

struct SpmvChoice {
  SpmvKernel kernel = SpmvKernel::vector;
  int lanes = 1;  // vector: work-items per row (split: from the short rows, plan::split_layout)
};

// The vector kernel's work-items per row for rows of `mean` nonzeros on average: (power of two
// >= mean) >> spmv.lanes_shift, within spmv.min_lanes..spmv.max_lanes.
int vector_lanes(double mean, const tuning::Tuning& tune);

// `cpu_kernels`: the device runs the row-per-work-item kernels (OpenCL CPU classes).
// `merge_tile`: rows + nonzeros per merge tile; merge needs rows + nnz + tile to fit in int32.
// `dot`: the choice for spmv_dot (the product fused with a dot, CG's A p and p . Ap), where rows
// that would take the stream kernel take the vector kernel with spmv.dot_lanes lanes if that is
// set.
SpmvChoice choose_spmv(const CsrView& A, const tuning::Tuning& tune, bool cpu_kernels, std::int64_t merge_tile,
                       bool dot = false);
// "csr/vector(8)": what tessera::spmv_kernel reports for a CSR choice (split: "csr/split",
// describe_split once the layout is known).
std::string describe_csr(const SpmvChoice& c);
// "csr/split(vector 4, 180 long rows in 233 chunks)".
std::string describe_split(int lanes, std::int64_t long_rows, std::int64_t chunks);

}  // namespace tessera::plan
