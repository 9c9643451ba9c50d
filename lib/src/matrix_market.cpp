// Matrix Market coordinate files <-> HostCsr.
//
// Reading streams the file through zlib in 1 MiB chunks (gzread passes plain files through
// unchanged, so a gzip file is recognised by its magic bytes, whatever its name), hands every
// complete line to a small state machine (banner -> size line -> entries) and scans numbers by
// hand or with std::from_chars: per-token iostream extraction is an order of magnitude slower
// on million-entry files. The entries are kept as triplets and turned into CSR by a counting
// sort on the row index, so the cost is linear in the file size except for sorting inside rows.
//
// Decisions the header leaves open:
// - duplicate entries are summed (in double, in file order), as scipy's tocsr() and most
//   readers do; for a pattern file that gives the count of the duplicates, not 1;
// - explicit zeros are kept: they are part of the structure the file describes;
// - a symmetric or skew-symmetric file may store entries in either triangle; each off-diagonal
//   entry (i, j) also gives (j, i) (negated for skew-symmetric), so storing both halves sums
//   them like any other duplicate;
// - comment and blank lines are accepted anywhere after the banner, Windows line ends too;
// - a value that underflows the value type reads as (signed) zero, one that overflows it is an
//   error; inf and nan are read as written.
#include "tessera/matrix_market.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <climits>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/errors.hpp"
#include "tessera/version.hpp"

namespace tessera {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
// The first read and the initial line buffer; a line longer than this grows the buffer.
constexpr std::size_t kChunk = std::size_t{1} << 20;
constexpr std::size_t kFirstChunk = std::size_t{1} << 14;

enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew };
enum class Stage { banner, size, entries };

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
const char* skip_space(const char* p, const char* end) {
  while (p < end && is_space(*p)) ++p;
  return p;
}
const char* token_end(const char* p, const char* end) {
  while (p < end && !is_space(*p)) ++p;
  return p;
}

// A token for an error message: cut short and with control bytes replaced, so that a binary
// file cannot flood or garble the message.
std::string shown(const char* b, const char* e) {
  constexpr std::size_t kMax = 40;
  const std::size_t n = static_cast<std::size_t>(e - b);
  std::string s(b, std::min(n, kMax));
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
  if (n > kMax) s += "...";
  return s;
}
std::string quoted(const char* b, const char* e) { return "'" + shown(b, e) + "'"; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

// Whether an out-of-range decimal number is tiny (underflow) rather than huge (overflow):
// from_chars reports both the same way. Only the order of magnitude matters, since a number
// is out of range only when its decimal exponent is beyond about +-38 (float) or +-308 (double).
bool is_underflow(const char* p, const char* e) {
  if (p < e && (*p == '-' || *p == '+')) ++p;
  std::int64_t int_digits = 0, frac_zeros = 0;
  bool nonzero = false;
  for (; p < e && *p >= '0' && *p <= '9'; ++p) {
    if (*p != '0') nonzero = true;
    if (nonzero) ++int_digits;
  }
  if (p < e && *p == '.')
    for (++p; p < e && *p >= '0' && *p <= '9' && !nonzero; ++p) {
      if (*p != '0')
        nonzero = true;
      else
        ++frac_zeros;
    }
  while (p < e && *p >= '0' && *p <= '9') ++p;
  std::int64_t exp = 0;
  if (p < e && (*p == 'e' || *p == 'E')) {
    ++p;
    bool neg = false;
    if (p < e && (*p == '-' || *p == '+')) neg = *p++ == '-';
    for (; p < e && *p >= '0' && *p <= '9'; ++p)
      if (exp < 1000000000) exp = exp * 10 + (*p - '0');
    if (neg) exp = -exp;
  }
  return (int_digits > 0 ? int_digits : -frac_zeros) + exp <= 0;
}

// Owns a zlib file handle.
class GzFile {
 public:
  explicit GzFile(gzFile f) : f_(f) {}
  GzFile(const GzFile&) = delete;
  GzFile& operator=(const GzFile&) = delete;
  ~GzFile() {
    if (f_) gzclose(f_);
  }
  gzFile get() const { return f_; }
  int close() {
    const int rc = gzclose(f_);
    f_ = nullptr;
    return rc;
  }

 private:
  gzFile f_;
};

template <class T>
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  HostCsr<T> read() {
    std::error_code ec;
    const auto st = std::filesystem::status(path_, ec);
    if (!std::filesystem::exists(st)) throw InvalidArgument("read_matrix_market: file not found: '" + path_ + "'");
    if (std::filesystem::is_directory(st))
      throw InvalidArgument("read_matrix_market: '" + path_ + "' is a directory, expected a Matrix Market file");
    errno = 0;
    GzFile file(gzopen(path_.c_str(), "rb"));
    if (!file.get())
      throw InvalidArgument("read_matrix_market: cannot open '" + path_ +
                            "': " + (errno ? std::strerror(errno) : "zlib could not allocate its state"));
    gzbuffer(file.get(), 1u << 17);

    // The buffer starts small and doubles while reads fill it, up to kChunk: a small file costs
    // no megabyte of zeroed memory (the fuzz target reads hundreds of thousands of them).
    std::vector<char> buf(kFirstChunk);
    std::size_t have = 0;  // bytes of an unfinished line kept at the front of buf
    bool eof = false, filled = false;
    while (!eof) {
      if (have == buf.size()) {
        // No line end in the whole buffer: a binary file fails here instead of growing it.
        if (stage_ == Stage::banner) banner(buf.data(), buf.data() + std::min<std::size_t>(have, 200));
        buf.resize(buf.size() * 2);
      } else if (filled && buf.size() < kChunk) {
        buf.resize(buf.size() * 2);
      }
      const std::size_t want = std::min<std::size_t>(buf.size() - have, INT_MAX);
      const int n = gzread(file.get(), buf.data() + have, static_cast<unsigned>(want));
      if (n < 0) {
        int err = 0;
        const char* msg = gzerror(file.get(), &err);
        fail_at(line_ + 1, std::string("cannot read the file (zlib: ") + msg + ")" +
                               (err == Z_DATA_ERROR ? "; expected valid gzip data" : ""));
      }
      bool truncated = false;
      if (static_cast<std::size_t>(n) < want) {
        eof = true;
        // Z_BUF_ERROR at the end means the input stopped inside a gzip stream.
        int err = 0;
        gzerror(file.get(), &err);
        truncated = err == Z_BUF_ERROR;
      }
      have += static_cast<std::size_t>(n);
      filled = static_cast<std::size_t>(n) == want;

      const char* p = buf.data();
      const char* const end = p + have;
      for (;;) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        if (!nl) break;
        ++line_;
        on_line(p, nl);
        p = nl + 1;
      }
      // Reported after the complete lines, at the line it cuts, and before that line is read
      // (its cut-off text would give a misleading message).
      if (truncated) fail_at(line_ + 1, "the gzip data ends early (truncated file?); expected a complete gzip stream");
      if (eof && p < end) {  // a last line without a line end
        ++line_;
        on_line(p, end);
        p = end;
      }
      have = static_cast<std::size_t>(end - p);
      std::memmove(buf.data(), p, have);
    }
    file.close();

    if (stage_ == Stage::banner) fail_at(1, "the file is empty; expected the banner " + banner_form());
    if (stage_ == Stage::size)
      fail_at(line_ + 1, "the file ends before the size line; expected 'rows columns entries'");
    if (seen_ < stored_)
      fail_at(line_ + 1, "the file ends after " + std::to_string(seen_) + " of the " + std::to_string(stored_) +
                             " entries announced on line " + std::to_string(size_line_) + "; expected " +
                             std::to_string(stored_ - seen_) + " more");
    return build();
  }

 private:
  [[noreturn]] void fail_at(std::int64_t line, const std::string& what) const {
    throw ParseError("read_matrix_market(" + path_ + "): line " + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void fail(const std::string& what) const { fail_at(line_, what); }

  static std::string banner_form() { return "'%%MatrixMarket matrix coordinate <field> <symmetry>'"; }
  std::string entry_form() const {
    return field_ == Field::pattern
               ? "'row column'"
               : std::string("'row column value'") + (field_ == Field::integer ? " with an integer value" : "");
  }

  void on_line(const char* p, const char* end) {
    if (stage_ == Stage::entries) {
      const char* q = skip_space(p, end);
      if (q == end || *q == '%') return;  // blank line or comment
      entry(q, end);
      return;
    }
    if (stage_ == Stage::banner) {
      banner(p, end);
      stage_ = Stage::size;
      return;
    }
    const char* q = skip_space(p, end);
    if (q == end || *q == '%') return;
    size_line(q, end);
    stage_ = Stage::entries;
  }

  void banner(const char* p, const char* end) {
    std::string_view tok[6];
    int n = 0;
    for (const char* q = skip_space(p, end); q < end && n < 6; q = skip_space(q, end)) {
      const char* e = token_end(q, end);
      tok[n++] = std::string_view(q, static_cast<std::size_t>(e - q));
      q = e;
    }
    if (n == 0 || !iequals(tok[0], "%%MatrixMarket"))
      fail_at(1, "expected the banner " + banner_form() + ", found " + quoted(p, end));
    if (n < 5)
      fail_at(1, "the banner is incomplete (" + std::to_string(n) + " of 5 words); expected " + banner_form() +
                     ", found " + quoted(p, end));
    if (n > 5)
      fail_at(1, "unexpected " + quoted(tok[5].data(), tok[5].data() + tok[5].size()) +
                     " after the symmetry; expected " + banner_form());
    auto word = [](std::string_view s) { return "'" + shown(s.data(), s.data() + s.size()) + "'"; };
    if (!iequals(tok[1], "matrix")) fail_at(1, "object " + word(tok[1]) + " is not supported; expected 'matrix'");
    if (iequals(tok[2], "array"))
      throw InvalidArgument(
          "read_matrix_market(" + path_ + "): " + path_ +
          " is a dense (array format) Matrix Market file; Tessera reads the sparse coordinate format");
    if (!iequals(tok[2], "coordinate")) fail_at(1, "format " + word(tok[2]) + " is unknown; expected 'coordinate'");
    if (iequals(tok[3], "complex"))
      throw InvalidArgument("read_matrix_market(" + path_ + "): " + path_ +
                            " is a complex matrix; Tessera reads real, integer and pattern matrices");
    if (iequals(tok[4], "hermitian"))
      throw InvalidArgument("read_matrix_market(" + path_ + "): " + path_ + " declares hermitian symmetry, which is " +
                            "for complex matrices; Tessera reads real, integer and pattern matrices");
    if (iequals(tok[3], "real"))
      field_ = Field::real;
    else if (iequals(tok[3], "integer"))
      field_ = Field::integer;
    else if (iequals(tok[3], "pattern"))
      field_ = Field::pattern;
    else
      fail_at(1, "field " + word(tok[3]) + " is unknown; expected real, integer or pattern");
    if (iequals(tok[4], "general"))
      sym_ = Symmetry::general;
    else if (iequals(tok[4], "symmetric"))
      sym_ = Symmetry::symmetric;
    else if (iequals(tok[4], "skew-symmetric"))
      sym_ = Symmetry::skew;
    else
      fail_at(1, "symmetry " + word(tok[4]) + " is unknown; expected general, symmetric or skew-symmetric");
    if (field_ == Field::pattern && sym_ == Symmetry::skew)
      fail_at(1,
              "a pattern matrix cannot be skew-symmetric (it has no values to negate); expected general or symmetric");
  }

  void size_line(const char* p, const char* end) {
    static const char* const names[3] = {"rows", "columns", "entries"};
    std::int64_t v[3];
    std::string text[3];  // as written, for messages (v saturates)
    for (int k = 0; k < 3; ++k) {
      p = skip_space(p, end);
      const char* b = p;
      const char* e = token_end(p, end);
      if (b == e) fail("the size line has " + std::to_string(k) + " of 3 numbers; expected 'rows columns entries'");
      const char* q = b;
      const bool neg = *q == '-';
      if (*q == '-' || *q == '+') ++q;
      std::int64_t x = 0;
      if (q == e) fail("expected the number of " + std::string(names[k]) + " on the size line, found " + quoted(b, e));
      for (; q < e; ++q) {
        const unsigned d = static_cast<unsigned>(*q) - '0';
        if (d > 9)
          fail("expected the number of " + std::string(names[k]) +
               " on the size line ('rows columns entries'), found " + quoted(b, e));
        if (x < (std::int64_t{1} << 40)) x = x * 10 + d;  // saturates; anything this big is refused below
      }
      text[k] = shown(b, e);
      if (neg && x != 0)
        fail("negative number of " + std::string(names[k]) + " " + text[k] +
             " on the size line; expected 'rows columns entries' >= 0");
      v[k] = x;
      p = e;
    }
    p = skip_space(p, end);
    if (p != end)
      fail("unexpected " + quoted(p, token_end(p, end)) +
           " after the size line's 3 numbers; expected 'rows columns entries' only");
    // CsrMatrix keeps int32 indices and row_ptr has rows + 1 entries.
    const std::int64_t limit[3] = {kInt32Max - 1, kInt32Max, kInt32Max};
    for (int k = 0; k < 3; ++k)
      if (v[k] > limit[k])
        fail(text[k] + " " + names[k] + " do not fit Tessera's int32 indices (at most " + std::to_string(limit[k]) +
             ")");
    if (sym_ != Symmetry::general && v[0] != v[1])
      fail("a " + std::string(sym_ == Symmetry::skew ? "skew-symmetric" : "symmetric") +
           " matrix must be square, the size line says " + text[0] + " x " + text[1]);
    rows_ = v[0];
    cols_ = v[1];
    stored_ = v[2];
    size_line_ = line_;
    // Reserve for what the size line announces, but not blindly: a damaged size line must not
    // allocate gigabytes before the first entry is read.
    const auto reserve = static_cast<std::size_t>(std::min<std::int64_t>(stored_, std::int64_t{1} << 24));
    ri_.reserve(reserve);
    ci_.reserve(reserve);
    if (field_ != Field::pattern) v_.reserve(reserve);
  }

  // A 1-based index token -> 0-based index, checked against 1..limit.
  std::int32_t index(const char*& p, const char* end, const char* what, std::int64_t limit) const {
    const char* b = p;
    const char* e = token_end(p, end);
    if (b == e) fail(std::string("missing ") + what + " index; expected an entry " + entry_form());
    const char* q = b;
    const bool neg = *q == '-';
    if (*q == '-' || *q == '+') ++q;
    if (q == e) fail(std::string("expected an integer ") + what + " index, found " + quoted(b, e));
    std::int64_t x = 0;
    for (; q < e; ++q) {
      const unsigned d = static_cast<unsigned>(*q) - '0';
      if (d > 9) fail(std::string("expected an integer ") + what + " index, found " + quoted(b, e));
      if (x < (std::int64_t{1} << 40)) x = x * 10 + d;  // saturates; out of range anyway
    }
    if (neg || x < 1 || x > limit)
      fail(std::string(what) + " index " + shown(b, e) + " out of range 1.." + std::to_string(limit) +
           " (indices are 1-based)");
    p = e;
    return static_cast<std::int32_t>(x - 1);
  }

  T value(const char*& p, const char* end) const {
    const char* b = p;
    const char* e = token_end(p, end);
    // from_chars takes no leading '+', which Matrix Market writers may emit.
    const char* s = (*b == '+' && e - b > 1 && b[1] != '-' && b[1] != '+') ? b + 1 : b;
    p = e;
    if (field_ == Field::integer) {
      std::int64_t x = 0;
      const auto r = std::from_chars(s, e, x);
      if (r.ec == std::errc::result_out_of_range) fail("integer value " + shown(b, e) + " is out of the 64-bit range");
      if (r.ec != std::errc() || r.ptr != e) fail("expected an integer value (field integer), found " + quoted(b, e));
      return static_cast<T>(x);
    }
    T x{};
    const auto r = std::from_chars(s, e, x);
    if (r.ec == std::errc::result_out_of_range && r.ptr == e) {
      if (!is_underflow(s, e))
        fail("value " + shown(b, e) + " is out of the range of " + (std::is_same_v<T, float> ? "float" : "double"));
      return *s == '-' ? -T(0) : T(0);
    }
    if (r.ec != std::errc() || r.ptr != e) fail("expected a number as the value, found " + quoted(b, e));
    return x;
  }

  void entry(const char* p, const char* end) {
    if (seen_ == stored_)
      fail("more entries than the " + std::to_string(stored_) + " announced on line " + std::to_string(size_line_) +
           "; expected the file to end");
    const std::int32_t i = index(p, end, "row", rows_);
    p = skip_space(p, end);
    const std::int32_t j = index(p, end, "column", cols_);
    p = skip_space(p, end);
    T v = T(1);
    if (field_ != Field::pattern) {
      if (p == end) fail("missing value after the column index; expected an entry " + entry_form());
      v = value(p, end);
      p = skip_space(p, end);
    }
    if (p != end)
      fail("unexpected " + quoted(p, token_end(p, end)) + " after the entry; expected an entry " + entry_form() +
           " and the end of the line");
    if (sym_ == Symmetry::skew && i == j)
      fail("diagonal entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
           ") in a skew-symmetric matrix; expected entries off the diagonal only (its diagonal is zero)");
    if (sym_ != Symmetry::general && i != j) ++mirrored_;
    ri_.push_back(i);
    ci_.push_back(j);
    if (field_ != Field::pattern) v_.push_back(v);
    ++seen_;
  }

  HostCsr<T> build() {
    const std::int64_t total = seen_ + mirrored_;
    if (total > kInt32Max)
      throw InvalidArgument("read_matrix_market(" + path_ + "): expanding the symmetric file gives " +
                            std::to_string(total) + " entries; Tessera's int32 indices hold at most " +
                            std::to_string(kInt32Max));
    HostCsr<T> A;
    A.rows = rows_;
    A.cols = cols_;
    A.row_ptr.assign(static_cast<std::size_t>(rows_) + 1, 0);
    const bool mirror = sym_ != Symmetry::general;
    const bool pattern = field_ == Field::pattern;
    const std::size_t n = ri_.size();

    // Counting sort on rows: count, prefix-sum, scatter. Within a row the file order is kept,
    // which is already column order for the usual column-major files.
    auto& rp = A.row_ptr;
    for (std::size_t k = 0; k < n; ++k) {
      ++rp[static_cast<std::size_t>(ri_[k]) + 1];
      if (mirror && ri_[k] != ci_[k]) ++rp[static_cast<std::size_t>(ci_[k]) + 1];
    }
    for (std::size_t r = 0; r < static_cast<std::size_t>(rows_); ++r) rp[r + 1] += rp[r];
    // rp[i] serves as row i's cursor while scattering (it ends at row i + 1's start) and is
    // shifted back after: no second rows-long array, so the reader never needs more than the
    // matrix it returns plus the entries it read.
    A.col_idx.resize(static_cast<std::size_t>(total));
    A.values.resize(static_cast<std::size_t>(total));
    std::int32_t* col = A.col_idx.data();
    T* val = A.values.data();
    const T mirror_sign = sym_ == Symmetry::skew ? T(-1) : T(1);
    for (std::size_t k = 0; k < n; ++k) {
      const std::int32_t i = ri_[k], j = ci_[k];
      const T v = pattern ? T(1) : v_[k];
      const std::int32_t at = rp[static_cast<std::size_t>(i)]++;
      col[at] = j;
      val[at] = v;
      if (mirror && i != j) {
        const std::int32_t at2 = rp[static_cast<std::size_t>(j)]++;
        col[at2] = i;
        val[at2] = mirror_sign * v;
      }
    }
    for (std::size_t r = static_cast<std::size_t>(rows_); r > 0; --r) rp[r] = rp[r - 1];
    rp[0] = 0;
    std::vector<std::int32_t>().swap(ri_);
    std::vector<std::int32_t>().swap(ci_);
    std::vector<T>().swap(v_);

    int dup = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(| : dup)
    for (std::int64_t r = 0; r < rows_; ++r) {
      const std::int32_t b = rp[static_cast<std::size_t>(r)], e = rp[static_cast<std::size_t>(r) + 1];
      sort_row(col + b, val + b, e - b);
      for (std::int32_t k = b + 1; k < e; ++k)
        if (col[k] == col[k - 1]) dup = 1;
    }
    if (dup) sum_duplicates(A, path_);
    return A;
  }

  // Sorts one row by column; stable, so duplicates are later summed in file order.
  static void sort_row(std::int32_t* col, T* val, std::int32_t len) {
    if (std::is_sorted(col, col + len)) return;
    if (len <= 32) {  // insertion sort: rows are short and mostly in order
      for (std::int32_t k = 1; k < len; ++k) {
        const std::int32_t c = col[k];
        const T v = val[k];
        std::int32_t m = k;
        for (; m > 0 && col[m - 1] > c; --m) {
          col[m] = col[m - 1];
          val[m] = val[m - 1];
        }
        col[m] = c;
        val[m] = v;
      }
      return;
    }
    std::vector<std::pair<std::int32_t, T>> tmp(static_cast<std::size_t>(len));
    for (std::int32_t k = 0; k < len; ++k) tmp[static_cast<std::size_t>(k)] = {col[k], val[k]};
    std::stable_sort(tmp.begin(), tmp.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::int32_t k = 0; k < len; ++k) {
      col[k] = tmp[static_cast<std::size_t>(k)].first;
      val[k] = tmp[static_cast<std::size_t>(k)].second;
    }
  }

  // Merges runs of equal columns (rows already sorted), summing in double, in place.
  static void sum_duplicates(HostCsr<T>& A, const std::string& path) {
    auto& rp = A.row_ptr;
    std::int32_t w = 0;
    for (std::size_t r = 0; r < static_cast<std::size_t>(A.rows); ++r) {
      const std::int32_t b = rp[r], e = rp[r + 1];
      rp[r] = w;
      for (std::int32_t k = b; k < e;) {
        const std::int32_t c = A.col_idx[static_cast<std::size_t>(k)];
        double s = static_cast<double>(A.values[static_cast<std::size_t>(k)]);
        for (++k; k < e && A.col_idx[static_cast<std::size_t>(k)] == c; ++k)
          s += static_cast<double>(A.values[static_cast<std::size_t>(k)]);
        // A sum of finite entries that leaves T's range is the same error as one entry that
        // does (a ParseError), not a silent inf.
        if (std::isfinite(s) && !std::isfinite(static_cast<T>(s)))
          throw ParseError("read_matrix_market(" + path + "): the duplicate entries of (" + std::to_string(r + 1) +
                           ", " + std::to_string(c + 1) + ") sum to " + std::to_string(s) +
                           ", outside the range of the value type");
        A.col_idx[static_cast<std::size_t>(w)] = c;
        A.values[static_cast<std::size_t>(w)] = static_cast<T>(s);
        ++w;
      }
    }
    rp[static_cast<std::size_t>(A.rows)] = w;
    A.col_idx.resize(static_cast<std::size_t>(w));
    A.values.resize(static_cast<std::size_t>(w));
    A.col_idx.shrink_to_fit();
    A.values.shrink_to_fit();
  }

  std::string path_;
  std::int64_t line_ = 0;  // number of the line being handled (1-based)
  Stage stage_ = Stage::banner;
  Field field_ = Field::real;
  Symmetry sym_ = Symmetry::general;
  std::int64_t rows_ = 0, cols_ = 0, stored_ = 0, size_line_ = 0;
  std::int64_t seen_ = 0;      // entries read so far
  std::int64_t mirrored_ = 0;  // off-diagonal entries of a (skew-)symmetric file, each stored twice in CSR
  std::vector<std::int32_t> ri_, ci_;
  std::vector<T> v_;  // empty for pattern files
};

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

template <class T>
HostCsr<T> read_matrix_market(const std::string& path) {
  try {
    return Reader<T>(path).read();
  } catch (const std::bad_alloc&) {
    // The size line is honoured (row_ptr has rows + 1 entries: that is the matrix), so a file
    // of a few bytes may describe one too large for this host: a typed error, not bad_alloc.
    throw OutOfMemory("read_matrix_market(" + path +
                      "): the host has not enough memory for the matrix the file describes (its CSR needs 4 bytes "
                      "per row plus 4 + sizeof(T) per entry)");
  }
}

// Values are written as the shortest decimal that reads back to the same T (std::to_chars
// without a precision; never more than max_digits10 significant digits), so that
// read_matrix_market<T>(write_matrix_market<T>(A)) == A bit for bit. A path ending in ".gz"
// is written gzip-compressed, anything else as plain text.
template <class T>
void write_matrix_market(const std::string& path, const HostCsr<T>& A) {
  detail::validate_csr(A.rows, A.cols, A.row_ptr.data(), A.row_ptr.size(), A.col_idx.data(), A.col_idx.size(),
                       A.values.size());
  const bool gz = ends_with(path, ".gz");
  errno = 0;
  // "T" asks zlib for transparent (uncompressed) writing, so both cases share one code path.
  GzFile file(gzopen(path.c_str(), gz ? "wb6" : "wbT"));
  if (!file.get())
    throw InvalidArgument("write_matrix_market: cannot open '" + path +
                          "' for writing: " + (errno ? std::strerror(errno) : "zlib could not allocate its state"));
  auto write_failed = [&]() {
    int err = 0;
    const char* msg = gzerror(file.get(), &err);
    throw Error("write_matrix_market(" + path +
                "): writing failed: " + (err == Z_ERRNO ? std::string(std::strerror(errno)) : std::string(msg)));
  };

  std::vector<char> buf(kChunk + 256);
  std::size_t used = 0;
  auto flush = [&]() {
    if (used && gzwrite(file.get(), buf.data(), static_cast<unsigned>(used)) != static_cast<int>(used)) write_failed();
    used = 0;
  };
  auto put = [&](std::string_view s) {
    if (used + s.size() > buf.size()) flush();
    if (s.size() > buf.size()) buf.resize(s.size());
    std::memcpy(buf.data() + used, s.data(), s.size());
    used += s.size();
  };
  put("%%MatrixMarket matrix coordinate real general\n");
  put(std::string("% written by Tessera ") + version() + " (" + (std::is_same_v<T, float> ? "float" : "double") +
      " values, 1-based indices)\n");
  put(std::to_string(A.rows) + " " + std::to_string(A.cols) + " " + std::to_string(A.nnz()) + "\n");

  // One entry is at most 2 x 11 characters of index, 2 spaces, ~25 of value and a line end.
  constexpr std::size_t kEntryMax = 64;
  for (std::int64_t r = 0; r < A.rows; ++r) {
    const std::int32_t b = A.row_ptr[static_cast<std::size_t>(r)], e = A.row_ptr[static_cast<std::size_t>(r) + 1];
    for (std::int32_t k = b; k < e; ++k) {
      if (used + kEntryMax > buf.size()) flush();
      char* p = buf.data() + used;
      char* const end = buf.data() + buf.size();
      p = std::to_chars(p, end, r + 1).ptr;
      *p++ = ' ';
      p = std::to_chars(p, end, A.col_idx[static_cast<std::size_t>(k)] + 1).ptr;
      *p++ = ' ';
      p = std::to_chars(p, end, A.values[static_cast<std::size_t>(k)]).ptr;
      *p++ = '\n';
      used = static_cast<std::size_t>(p - buf.data());
    }
  }
  flush();
  if (file.close() != Z_OK) throw Error("write_matrix_market(" + path + "): closing the file failed (disk full?)");
}

template HostCsr<float> read_matrix_market<float>(const std::string&);
template HostCsr<double> read_matrix_market<double>(const std::string&);
template void write_matrix_market<float>(const std::string&, const HostCsr<float>&);
template void write_matrix_market<double>(const std::string&, const HostCsr<double>&);

}  // namespace tessera
