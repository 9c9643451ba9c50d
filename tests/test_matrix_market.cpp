// Matrix Market reading and writing: every field x symmetry, gzip by content, comments, blank
// lines and duplicates; exact round trips; one test per malformed-file error with its line
// number; the refused kinds (complex, hermitian, array); and the real matrices of the shared
// data folder checked against its MANIFEST.md and against a slow, independent reader.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/tessera.hpp"

namespace fs = std::filesystem;

namespace {

// A fresh directory under the system temp folder, removed with its contents at scope exit.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = fs::temp_directory_path() / ("tessera-mm-test-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter++) + "-" + std::to_string(stamp));
    fs::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A gzip file (RFC 1952) whose deflate data are "stored" blocks: valid gzip that needs no
// compressor, so the test does not link zlib and checks the reader against the format itself.
std::string gzip_stored(const std::string& data) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : data) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  crc = ~crc;
  const char header[10] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, '\xff'};
  std::string out(header, 10);
  std::size_t pos = 0;
  do {
    const std::size_t n = std::min<std::size_t>(65535, data.size() - pos);
    const bool last = pos + n == data.size();
    out += static_cast<char>(last ? 1 : 0);  // BFINAL, BTYPE = 00 (stored)
    out += static_cast<char>(n & 0xff);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(~n & 0xff);
    out += static_cast<char>((~n >> 8) & 0xff);
    out.append(data, pos, n);
    pos += n;
  } while (pos < data.size());
  const auto size = static_cast<std::uint32_t>(data.size());
  for (int k = 0; k < 4; ++k) out += static_cast<char>((crc >> (8 * k)) & 0xff);
  for (int k = 0; k < 4; ++k) out += static_cast<char>((size >> (8 * k)) & 0xff);
  return out;
}

using Dense = std::map<std::pair<std::int64_t, std::int64_t>, double>;

template <class T>
Dense entries_of(const tessera::HostCsr<T>& A) {
  Dense d;
  for (std::int64_t r = 0; r < A.rows; ++r)
    for (std::int32_t k = A.row_ptr[static_cast<std::size_t>(r)]; k < A.row_ptr[static_cast<std::size_t>(r) + 1]; ++k)
      d[{r, A.col_idx[static_cast<std::size_t>(k)]}] += static_cast<double>(A.values[static_cast<std::size_t>(k)]);
  return d;
}

// The properties every result of read_matrix_market has: a valid CSR (checked by the library's
// own validation through from_host) with strictly increasing columns in each row.
template <class T>
void check_well_formed(const tessera::HostCsr<T>& A, const std::string& what) {
  INFO(what);
  CHECK_NOTHROW(tessera::CsrMatrix<T>::from_host(tessera::Device::open("reference"), A));
  bool sorted = true;
  for (std::int64_t r = 0; r < A.rows; ++r)
    for (std::int32_t k = A.row_ptr[static_cast<std::size_t>(r)] + 1; k < A.row_ptr[static_cast<std::size_t>(r) + 1];
         ++k)
      if (A.col_idx[static_cast<std::size_t>(k)] <= A.col_idx[static_cast<std::size_t>(k) - 1]) sorted = false;
  CHECK_MESSAGE(sorted, "columns are not strictly increasing in some row");
}

template <class T>
bool bitwise_equal(const tessera::HostCsr<T>& a, const tessera::HostCsr<T>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values.size() == b.values.size() &&
         (a.values.empty() || std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(T)) == 0);
}

// Reads `text` (written to a file) and expects ParseError naming that file and `line`, and
// containing `fragment`.
template <class T = double>
void expect_parse_error(const std::string& text, int line, const std::string& fragment) {
  TempDir dir;
  const std::string path = dir.file("bad.mtx");
  write_bytes(path, text);
  INFO("file:\n" << text.substr(0, 300));
  try {
    (void)tessera::read_matrix_market<T>(path);
    FAIL("no ParseError; expected one at line " << line);
  } catch (const tessera::ParseError& e) {
    const std::string msg = e.what();
    INFO("message: " << msg);
    CHECK(msg.find(path) != std::string::npos);
    CHECK(msg.find("line " + std::to_string(line) + ":") != std::string::npos);
    CHECK(msg.find(fragment) != std::string::npos);
  }
}

// A refused but well-formed file: InvalidArgument that is not a ParseError.
void expect_refused(const std::string& text, const std::string& fragment) {
  TempDir dir;
  const std::string path = dir.file("refused.mtx");
  write_bytes(path, text);
  INFO("file:\n" << text);
  try {
    (void)tessera::read_matrix_market<double>(path);
    FAIL("no InvalidArgument");
  } catch (const tessera::ParseError& e) {
    FAIL("ParseError instead of a refusal: " << e.what());
  } catch (const tessera::InvalidArgument& e) {
    const std::string msg = e.what();
    INFO("message: " << msg);
    CHECK(msg.find(path) != std::string::npos);
    CHECK(msg.find(fragment) != std::string::npos);
  }
}

const char* kGeneral = "%%MatrixMarket matrix coordinate real general\n";

}  // namespace

TEST_CASE("Matrix Market: a general real file with comments, blank lines and unsorted entries") {
  const std::string body =
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "\n"
      "%another comment\n"
      "  3   4   6  \n"
      "3 1 -2.5e1\n"
      "1 4 +0.25\n"
      "\n"
      "1 2 1\n"
      "% a comment between entries\n"
      "2 3 0.0\n"  // an explicit zero stays in the structure
      "1 1 .5\n"
      "\t3\t4\t7.\n";
  for (const bool crlf : {false, true}) {
    std::string text = body;
    if (crlf)
      for (std::size_t p = 0; (p = text.find('\n', p)) != std::string::npos; p += 2) text.insert(p, "\r");
    TempDir dir;
    write_bytes(dir.file("a.mtx"), text);
    const auto A = tessera::read_matrix_market<double>(dir.file("a.mtx"));
    INFO("CRLF: " << crlf);
    CHECK(A.rows == 3);
    CHECK(A.cols == 4);
    CHECK(A.row_ptr == std::vector<std::int32_t>{0, 3, 4, 6});
    CHECK(A.col_idx == std::vector<std::int32_t>{0, 1, 3, 2, 0, 3});
    CHECK(A.values == std::vector<double>{0.5, 1.0, 0.25, 0.0, -25.0, 7.0});
    check_well_formed(A, "general real");
  }
}

TEST_CASE("Matrix Market: every field and symmetry, in float and double") {
  // The lower triangle of a 3 x 3 matrix (plus one entry above it, which a symmetric file may
  // also hold), and what each symmetry expands it to.
  struct Case {
    const char* field;
    const char* symmetry;
    const char* entries;
    Dense expected;
  };
  const std::vector<Case> cases = {
      {"real", "general", "1 1 1.5\n3 1 -2\n2 3 4e-1\n", {{{0, 0}, 1.5}, {{2, 0}, -2.0}, {{1, 2}, 0.4}}},
      {"real",
       "symmetric",
       "1 1 1.5\n3 1 -2\n3 2 4e-1\n",
       {{{0, 0}, 1.5}, {{2, 0}, -2.0}, {{0, 2}, -2.0}, {{2, 1}, 0.4}, {{1, 2}, 0.4}}},
      {"real",
       "skew-symmetric",
       "2 1 1.5\n3 1 -2\n1 3 4e-1\n",
       {{{1, 0}, 1.5}, {{0, 1}, -1.5}, {{0, 2}, 2.0 + 0.4}, {{2, 0}, -2.0 - 0.4}}},
      {"integer", "general", "1 1 7\n3 2 -12\n", {{{0, 0}, 7.0}, {{2, 1}, -12.0}}},
      {"integer", "symmetric", "2 2 3\n3 1 -5\n", {{{1, 1}, 3.0}, {{2, 0}, -5.0}, {{0, 2}, -5.0}}},
      {"integer", "skew-symmetric", "3 1 5\n", {{{2, 0}, 5.0}, {{0, 2}, -5.0}}},
      {"pattern", "general", "1 1\n3 2\n2 3\n", {{{0, 0}, 1.0}, {{2, 1}, 1.0}, {{1, 2}, 1.0}}},
      {"pattern", "symmetric", "1 1\n3 2\n", {{{0, 0}, 1.0}, {{2, 1}, 1.0}, {{1, 2}, 1.0}}},
  };
  for (const auto& c : cases) {
    std::string text = std::string("%%MatrixMarket matrix coordinate ") + c.field + " " + c.symmetry + "\n3 3 " +
                       std::to_string(std::count(c.entries, c.entries + std::strlen(c.entries), '\n')) + "\n" +
                       c.entries;
    INFO(c.field << " " << c.symmetry);
    TempDir dir;
    write_bytes(dir.file("m.mtx"), text);
    const auto Ad = tessera::read_matrix_market<double>(dir.file("m.mtx"));
    const auto Af = tessera::read_matrix_market<float>(dir.file("m.mtx"));
    check_well_formed(Ad, "double");
    check_well_formed(Af, "float");
    CHECK(entries_of(Ad) == c.expected);
    const Dense got_f = entries_of(Af);
    REQUIRE(got_f.size() == c.expected.size());
    for (const auto& [ij, v] : c.expected) CHECK(got_f.at(ij) == doctest::Approx(v).epsilon(1e-6));
  }
}

TEST_CASE("Matrix Market: duplicates are summed, explicit zeros kept, banner case ignored") {
  TempDir dir;
  write_bytes(dir.file("dup.mtx"),
              "%%matrixmarket MATRIX Coordinate REAL General\n"
              "2 3 7\n"
              "1 3 1.5\n"
              "1 1 2\n"
              "1 3 2.5\n"  // duplicate of (1,3)
              "2 2 0\n"    // explicit zero
              "2 1 1\n"
              "2 1 -1\n"  // duplicates cancelling: the entry stays, with value 0
              "1 3 0.125\n");
  const auto A = tessera::read_matrix_market<double>(dir.file("dup.mtx"));
  check_well_formed(A, "duplicates");
  CHECK(A.row_ptr == std::vector<std::int32_t>{0, 2, 4});
  CHECK(A.col_idx == std::vector<std::int32_t>{0, 2, 0, 1});
  CHECK(A.values == std::vector<double>{2.0, 4.125, 0.0, 0.0});

  // A symmetric file that stores both (2,1) and (1,2): each gives both, so both are summed.
  write_bytes(dir.file("sym.mtx"), "%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n2 1 1\n1 2 10\n2 2 3\n");
  const auto S = tessera::read_matrix_market<double>(dir.file("sym.mtx"));
  CHECK(entries_of(S) == Dense{{{0, 1}, 11.0}, {{1, 0}, 11.0}, {{1, 1}, 3.0}});
  CHECK(S.nnz() == 3);

  // Duplicates in a pattern file count.
  write_bytes(dir.file("pat.mtx"), "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 2\n1 2\n2 1\n");
  const auto P = tessera::read_matrix_market<float>(dir.file("pat.mtx"));
  CHECK(P.values == std::vector<float>{2.0f, 1.0f});

  // A long row in reverse order takes the general sort, stable for the duplicates.
  std::string text = std::string(kGeneral) + "1 100 101\n";
  for (int c = 100; c >= 1; --c) text += "1 " + std::to_string(c) + " " + std::to_string(c) + "\n";
  text += "1 50 0.5\n";
  write_bytes(dir.file("long.mtx"), text);
  const auto L = tessera::read_matrix_market<double>(dir.file("long.mtx"));
  check_well_formed(L, "long row");
  REQUIRE(L.nnz() == 100);
  for (int c = 0; c < 100; ++c) CHECK(L.values[static_cast<std::size_t>(c)] == (c == 49 ? 50.5 : c + 1.0));
}

TEST_CASE("Matrix Market: empty matrices, empty rows and sizes of zero") {
  TempDir dir;
  write_bytes(dir.file("z.mtx"), std::string(kGeneral) + "0 0 0\n");
  auto A = tessera::read_matrix_market<double>(dir.file("z.mtx"));
  CHECK(A.rows == 0);
  CHECK(A.cols == 0);
  CHECK(A.row_ptr == std::vector<std::int32_t>{0});
  write_bytes(dir.file("e.mtx"), std::string(kGeneral) + "4 2 1\n3 2 5\n");
  A = tessera::read_matrix_market<double>(dir.file("e.mtx"));
  CHECK(A.row_ptr == std::vector<std::int32_t>{0, 0, 0, 1, 1});
  check_well_formed(A, "empty rows");
  // The last line without a line end.
  write_bytes(dir.file("n.mtx"), std::string(kGeneral) + "1 1 1\n1 1 3.5");
  CHECK(tessera::read_matrix_market<double>(dir.file("n.mtx")).values == std::vector<double>{3.5});
}

TEST_CASE("Matrix Market: gzip is recognised by its content, not its name") {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n% gz\n2 2 2\n1 1 1.25\n2 1 -3\n";
  TempDir dir;
  const auto check = [](const std::string& path) {
    INFO(path);
    const auto A = tessera::read_matrix_market<double>(path);
    CHECK(A.row_ptr == std::vector<std::int32_t>{0, 1, 2});
    CHECK(A.values == std::vector<double>{1.25, -3.0});
  };
  write_bytes(dir.file("a.mtx.gz"), gzip_stored(text));
  check(dir.file("a.mtx.gz"));
  write_bytes(dir.file("gzip-without-suffix.mtx"), gzip_stored(text));
  check(dir.file("gzip-without-suffix.mtx"));
  write_bytes(dir.file("plain-with-suffix.mtx.gz"), text);
  check(dir.file("plain-with-suffix.mtx.gz"));

  // Over 64 KiB, so several deflate blocks, and over the reader's 1 MiB chunk.
  std::string big = std::string(kGeneral) + "1000 1000 100000\n";
  for (int k = 0; k < 100000; ++k)
    big += std::to_string(k % 1000 + 1) + " " + std::to_string(k / 100 + 1) + " " + std::to_string(k) + "\n";
  REQUIRE(big.size() > (std::size_t{1} << 20));
  write_bytes(dir.file("big.mtx.gz"), gzip_stored(big));
  write_bytes(dir.file("big.mtx"), big);
  const auto Bz = tessera::read_matrix_market<double>(dir.file("big.mtx.gz"));
  const auto Bp = tessera::read_matrix_market<double>(dir.file("big.mtx"));
  check_well_formed(Bz, "big gz");
  CHECK(Bz.nnz() == 100000);
  CHECK(bitwise_equal(Bz, Bp));

  // A gzip file cut short, and one with damaged data.
  const std::string gz = gzip_stored(big);
  write_bytes(dir.file("cut.mtx.gz"), gz.substr(0, gz.size() / 2));
  CHECK_THROWS_WITH_AS(tessera::read_matrix_market<double>(dir.file("cut.mtx.gz")), doctest::Contains("truncated"),
                       tessera::ParseError);
  std::string damaged = gzip_stored(text);
  damaged[damaged.size() - 6] ^= 0x55;  // the CRC no longer matches
  write_bytes(dir.file("crc.mtx.gz"), damaged);
  CHECK_THROWS_AS(tessera::read_matrix_market<double>(dir.file("crc.mtx.gz")), tessera::ParseError);
}

TEST_CASE("Matrix Market: a line longer than the read buffer") {
  TempDir dir;
  const std::string text = std::string(kGeneral) + "%" + std::string(3u << 20, 'x') + "\n1 1 1\n1 1 2\n";
  write_bytes(dir.file("long-comment.mtx"), text);
  CHECK(tessera::read_matrix_market<double>(dir.file("long-comment.mtx")).values == std::vector<double>{2.0});
}

TEST_CASE("Matrix Market: write then read gives the matrix back bit for bit") {
  TempDir dir;
  auto round_trip = [&](const auto& A, const std::string& name) {
    using T = typename std::decay_t<decltype(A.values)>::value_type;
    INFO(name);
    tessera::write_matrix_market(dir.file(name), A);
    const auto B = tessera::read_matrix_market<T>(dir.file(name));
    CHECK(bitwise_equal(A, B));
  };
  auto A = tessera::random_csr<double>(2000, 1500, 0, 40, 7);  // > 1 MiB of text
  auto F = tessera::random_csr<float>(300, 700, 0, 9, 8);
  // Values that need every digit, extremes and signed zero.
  const double special_d[] = {1.0 / 3.0,
                              -2.0 / 3.0,
                              0.1,
                              1e-300,
                              -4.9406564584124654e-324,
                              1.7976931348623157e308,
                              -0.0,
                              0.0,
                              123456789.0,
                              2.2250738585072014e-308,
                              1e22,
                              -1e23};
  const float special_f[] = {1.0f / 3.0f, -0.1f, 1e-38f, 1.4e-45f, 3.4028235e38f, -0.0f, 16777217.0f, 7e-10f};
  for (std::size_t k = 0; k < std::size(special_d); ++k) A.values[k * 13] = special_d[k];
  for (std::size_t k = 0; k < std::size(special_f); ++k) F.values[k * 5] = special_f[k];
  round_trip(A, "double.mtx");
  round_trip(A, "double.mtx.gz");
  round_trip(F, "float.mtx");
  round_trip(tessera::laplacian_2d<float>(17, 5), "lap.mtx");
  round_trip(tessera::HostCsr<double>{}, "empty.mtx");
  round_trip(tessera::random_csr<double>(7, 3, 0, 0, 1), "no-entries.mtx");

  // The file: the banner, a comment naming Tessera, the size line, then 1-based entries.
  tessera::HostCsr<double> S;
  S.rows = 2;
  S.cols = 3;
  S.row_ptr = {0, 1, 2};
  S.col_idx = {2, 0};
  S.values = {0.5, -3};
  tessera::write_matrix_market(dir.file("small.mtx"), S);
  const std::string text = read_bytes(dir.file("small.mtx"));
  CHECK(text.rfind("%%MatrixMarket matrix coordinate real general\n%", 0) == 0);
  CHECK(text.find("Tessera") != std::string::npos);
  CHECK(text.find("\n2 3 2\n1 3 0.5\n2 1 -3\n") != std::string::npos);

  // A ".gz" name is written gzip-compressed.
  tessera::write_matrix_market(dir.file("small.mtx.gz"), S);
  const std::string gz = read_bytes(dir.file("small.mtx.gz"));
  REQUIRE(gz.size() > 2);
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(gz[1]) == 0x8b);
}

TEST_CASE("Matrix Market: write refuses a bad CSR and an unwritable path") {
  TempDir dir;
  tessera::HostCsr<double> bad;
  bad.rows = 2;
  bad.cols = 2;
  bad.row_ptr = {0, 1, 2};
  bad.col_idx = {0, 5};
  bad.values = {1, 2};
  CHECK_THROWS_AS(tessera::write_matrix_market(dir.file("bad.mtx"), bad), tessera::InvalidArgument);
  CHECK_FALSE(fs::exists(dir.file("bad.mtx")));
  CHECK_THROWS_WITH_AS(tessera::write_matrix_market(dir.file("no/such/dir/a.mtx"), tessera::laplacian_2d<double>(2, 2)),
                       doctest::Contains("no/such/dir/a.mtx"), tessera::InvalidArgument);
}

TEST_CASE("Matrix Market: missing files and directories are InvalidArgument naming the path") {
  TempDir dir;
  const std::string missing = dir.file("does-not-exist.mtx");
  CHECK_THROWS_WITH_AS(tessera::read_matrix_market<double>(missing), doctest::Contains(missing.c_str()),
                       tessera::InvalidArgument);
  fs::create_directories(dir.file("sub.mtx"));
  CHECK_THROWS_WITH_AS(tessera::read_matrix_market<double>(dir.file("sub.mtx")), doctest::Contains("directory"),
                       tessera::InvalidArgument);
}

TEST_CASE("Matrix Market: complex, hermitian and array files are refused") {
  expect_refused("%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1.0 2.0\n",
                 "is a complex matrix; Tessera reads real, integer and pattern matrices");
  expect_refused("%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 1 1.0 0.0\n", "is a complex matrix");
  expect_refused("%%MatrixMarket matrix coordinate COMPLEX symmetric\n2 2 1\n1 1 1.0 0.0\n", "complex");
  expect_refused("%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n1 1 1.0\n", "complex");
  expect_refused("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", "array");
}

TEST_CASE("Matrix Market: malformed files give ParseError with the line number") {
  const std::string B = kGeneral;  // the banner is line 1
  SUBCASE("banner") {
    expect_parse_error("", 1, "empty");
    expect_parse_error("3 3 1\n1 1 1\n", 1, "expected the banner");
    expect_parse_error("\n" + B + "1 1 0\n", 1, "expected the banner");
    expect_parse_error("%MatrixMarket matrix coordinate real general\n1 1 0\n", 1, "expected the banner");
    expect_parse_error("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "incomplete");
    expect_parse_error("%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "'extra'");
    expect_parse_error("%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "object 'vector'");
    expect_parse_error("%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "format 'sparse'");
    expect_parse_error("%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1, "field 'float'");
    expect_parse_error("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "symmetry 'upper'");
    expect_parse_error("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1, "skew");
    expect_parse_error(std::string("\x1f\x8b\x08 not really gzip\n"), 1, "cannot read");
  }
  SUBCASE("size line") {
    expect_parse_error(B, 2, "before the size line");
    expect_parse_error(B + "% only comments\n\n", 4, "before the size line");
    expect_parse_error(B + "% c\n3 x 4\n", 3, "number of columns");
    expect_parse_error(B + "3 3\n", 2, "2 of 3 numbers");
    expect_parse_error(B + "3 3 1 7\n1 1 1\n", 2, "'7'");
    expect_parse_error(B + "-3 3 1\n", 2, "negative number of rows -3");
    expect_parse_error(B + "3 -3 1\n", 2, "negative number of columns");
    expect_parse_error(B + "3 3 -1\n", 2, "negative number of entries");
    expect_parse_error(B + "3000000000 3 1\n1 1 1\n", 2, "int32");
    expect_parse_error(B + "3 3000000000 1\n1 1 1\n", 2, "int32");
    expect_parse_error(B + "3 3 3000000000\n1 1 1\n", 2, "int32");
    expect_parse_error(B + "99999999999999999999999 3 1\n", 2, "int32");
    expect_parse_error(B + "3 3 1.5\n", 2, "number of entries");
    expect_parse_error("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2, "square");
  }
  SUBCASE("entry count") {
    expect_parse_error(B + "3 3 3\n1 1 1\n2 2 1\n", 5, "after 2 of the 3 entries announced on line 2");
    expect_parse_error(B + "% c\n3 3 3\n1 1 1\n\n% c\n", 7, "after 1 of the 3 entries");
    expect_parse_error(B + "3 3 1\n1 1 1\n2 2 1\n", 4, "more entries than the 1 announced on line 2");
    expect_parse_error(B + "3 3 0\n1 1 1\n", 3, "more entries than the 0");
  }
  SUBCASE("indices") {
    expect_parse_error(B + "3 4 1\n0 1 1.0\n", 3, "row index 0 out of range 1..3");
    expect_parse_error(B + "3 4 1\n4 1 1.0\n", 3, "row index 4 out of range 1..3");
    expect_parse_error(B + "3 4 2\n1 1 1\n1 5 1.0\n", 4, "column index 5 out of range 1..4");
    expect_parse_error(B + "3 4 1\n1 0 1.0\n", 3, "column index 0 out of range 1..4");
    expect_parse_error(B + "3 4 1\n-1 1 1.0\n", 3, "row index -1 out of range");
    expect_parse_error(B + "3 4 1\n99999999999999999999999 1 1.0\n", 3,
                       "row index 99999999999999999999999 out of range");
    expect_parse_error(B + "3 4 1\n1.5 1 1.0\n", 3, "expected an integer row index, found '1.5'");
    expect_parse_error(B + "3 4 1\n1 x 1.0\n", 3, "expected an integer column index, found 'x'");
    expect_parse_error(B + "3 4 1\n1\n", 3, "missing column index");
  }
  SUBCASE("values") {
    expect_parse_error(B + "3 3 2\n1 1 1\n2 2\n", 4, "missing value");
    expect_parse_error(B + "3 3 1\n1 1 abc\n", 3, "expected a number as the value, found 'abc'");
    expect_parse_error(B + "3 3 1\n1 1 1.5.2\n", 3, "found '1.5.2'");
    expect_parse_error(B + "3 3 1\n1 1 0x10\n", 3, "found '0x10'");
    expect_parse_error(B + "3 3 1\n1 1 +-1\n", 3, "found '+-1'");
    expect_parse_error(B + "3 3 1\n1 1 1.0 2.0\n", 3, "unexpected '2.0'");
    expect_parse_error(B + "3 3 1\n1 1 1e999\n", 3, "out of the range of double");
    expect_parse_error<float>(B + "3 3 1\n1 1 1e300\n", 3, "out of the range of float");
    expect_parse_error("%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", 3,
                       "expected an integer value");
    expect_parse_error("%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n2 2 1.0\n", 4,
                       "unexpected '1.0'");
    expect_parse_error("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n", 4,
                       "diagonal entry (2, 2) in a skew-symmetric matrix");
  }
  SUBCASE("line numbers count comments, blank lines and CRLF line ends") {
    expect_parse_error(
        "%%MatrixMarket matrix coordinate real general\r\n% c\r\n\r\n3 3 2\r\n% c\r\n1 1 1\r\n\r\n1 9 1\r\n", 8,
        "column index 9");
  }
}

TEST_CASE("Matrix Market: values that underflow read as zero, inf and nan as written") {
  TempDir dir;
  write_bytes(dir.file("u.mtx"), std::string(kGeneral) + "1 4 4\n1 1 1e-999\n1 2 -0.0000e-400\n1 3 inf\n1 4 -1e-50\n");
  const auto D = tessera::read_matrix_market<double>(dir.file("u.mtx"));
  REQUIRE(D.nnz() == 4);
  CHECK(D.values[0] == 0.0);
  CHECK(std::signbit(D.values[1]));
  CHECK(std::isinf(D.values[2]));
  CHECK(D.values[3] == -1e-50);
  const auto F = tessera::read_matrix_market<float>(dir.file("u.mtx"));
  CHECK(F.values[3] == 0.0f);
  CHECK(std::signbit(F.values[3]));
}

TEST_CASE("Matrix Market: duplicates that sum past the value type's range are a ParseError, as one such value is") {
  TempDir dir;
  // Each 3e38 fits a float; their sum does not. In double it does.
  write_bytes(dir.file("big.mtx"), std::string(kGeneral) + "2 2 3\n1 1 3e38\n1 1 3e38\n2 2 1\n");
  CHECK_THROWS_WITH_AS(tessera::read_matrix_market<float>(dir.file("big.mtx")),
                       doctest::Contains("duplicate entries of (1, 1)"), tessera::ParseError);
  CHECK(tessera::read_matrix_market<double>(dir.file("big.mtx")).values[0] == 6e38);
  write_bytes(dir.file("one.mtx"), std::string(kGeneral) + "1 1 1\n1 1 6e38\n");
  CHECK_THROWS_AS(tessera::read_matrix_market<float>(dir.file("one.mtx")), tessera::ParseError);
  // A huge declared size with no entries is honoured (that is the matrix), in the memory its
  // CSR needs: 4 bytes per row.
  write_bytes(dir.file("tall.mtx"), std::string(kGeneral) + "3000000 1 0\n");
  const auto T = tessera::read_matrix_market<float>(dir.file("tall.mtx"));
  CHECK(T.rows == 3000000);
  CHECK(T.row_ptr.size() == 3000001);
  CHECK(T.row_ptr.back() == 0);
}

TEST_CASE("Matrix Market: data after the last gzip member is ignored (documented), members are concatenated") {
  TempDir dir;
  const std::string text = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.5\n2 2 -2\n";
  // zlib's gzread reads concatenated members as one stream and stops at the first byte that
  // starts no member: README ("Decisions worth knowing") states that the rest is ignored.
  write_bytes(dir.file("trailing.mtx.gz"), gzip_stored(text) + "this is not gzip\n");
  const auto A = tessera::read_matrix_market<double>(dir.file("trailing.mtx.gz"));
  CHECK(A.values == std::vector<double>{1.5, -2.0});
  write_bytes(dir.file("two.mtx.gz"),
              gzip_stored("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.5\n") + gzip_stored("2 2 -2\n"));
  CHECK(tessera::read_matrix_market<double>(dir.file("two.mtx.gz")).values == std::vector<double>{1.5, -2.0});
}

TEST_CASE("Matrix Market: a size line this host cannot hold is OutOfMemory, not bad_alloc") {
  // Run by ctest mm.out_of_memory under a 2 GiB address-space limit (ulimit -v), where the
  // 8 GiB of row offsets that 2147483646 rows need cannot be allocated.
  if (std::getenv("TESSERA_TEST_MEMORY_LIMITED") == nullptr) {
    MESSAGE("SKIPPED: needs the address-space limit of ctest mm.out_of_memory");
    return;
  }
  TempDir dir;
  write_bytes(dir.file("huge.mtx"), std::string(kGeneral) + "2147483646 1 0\n");
  CHECK_THROWS_AS(tessera::read_matrix_market<float>(dir.file("huge.mtx")), tessera::OutOfMemory);
}

// ---- the real matrices of the shared data folder ----

namespace {

struct ManifestRow {
  std::int64_t rows = 0, cols = 0, stored = 0, nnz = 0;
  std::string field, symmetry;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t`");
  const auto e = s.find_last_not_of(" \t`");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// "1,615,400" -> 1615400; -1 for anything that is not a number (header rows).
std::int64_t manifest_number(const std::string& s) {
  std::string digits;
  for (char c : trim(s)) {
    if (c == ',') continue;
    if (c < '0' || c > '9') return -1;
    digits += c;
  }
  return digits.empty() ? -1 : std::stoll(digits);
}

// The MANIFEST.md table: | file | collection name | kind | rows | cols | stored | nnz | field | symmetry | ...
std::map<std::string, ManifestRow> read_manifest(const fs::path& path) {
  std::map<std::string, ManifestRow> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("|", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream s(line.substr(1));
    for (std::string cell; std::getline(s, cell, '|');) cells.push_back(trim(cell));
    if (cells.size() < 9) continue;
    ManifestRow r;
    r.rows = manifest_number(cells[3]);
    r.cols = manifest_number(cells[4]);
    r.stored = manifest_number(cells[5]);
    r.nnz = manifest_number(cells[6]);
    if (r.rows < 0 || r.cols < 0 || r.nnz < 0) continue;
    r.field = cells[7];
    r.symmetry = cells[8];
    rows[cells[0]] = r;
  }
  return rows;
}

fs::path matrix_dir() {
  if (const char* env = std::getenv("TESSERA_MATRIX_DIR"); env && *env) return env;
  return TESSERA_DEFAULT_MATRIX_DIR;
}

// A deliberately plain reader (iostream, sort of triplets) for plain-text files, to compare
// with: the entries of the expanded matrix in (row, column) order, duplicates summed in file
// order.
struct Triplet {
  std::int64_t i, j;
  double v;
};

std::vector<Triplet> slow_read(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::istringstream banner(line);
  std::string mm, object, format, field, symmetry;
  banner >> mm >> object >> format >> field >> symmetry;
  for (auto* s : {&field, &symmetry}) std::transform(s->begin(), s->end(), s->begin(), ::tolower);
  while (std::getline(in, line) && (line.empty() || line[0] == '%')) {
  }
  std::istringstream size(line);
  std::int64_t m = 0, n = 0, stored = 0;
  size >> m >> n >> stored;
  std::vector<Triplet> t;
  for (std::int64_t k = 0; k < stored; ++k) {
    std::int64_t i = 0, j = 0;
    double v = 1;
    in >> i >> j;
    if (field != "pattern") in >> v;
    t.push_back({i - 1, j - 1, v});
    if (symmetry != "general" && i != j) t.push_back({j - 1, i - 1, symmetry == "skew-symmetric" ? -v : v});
  }
  std::stable_sort(t.begin(), t.end(),
                   [](const Triplet& a, const Triplet& b) { return a.i != b.i ? a.i < b.i : a.j < b.j; });
  std::vector<Triplet> merged;
  for (const auto& x : t) {
    if (!merged.empty() && merged.back().i == x.i && merged.back().j == x.j)
      merged.back().v += x.v;
    else
      merged.push_back(x);
  }
  return merged;
}

// Whether A holds exactly the entries `t` (same order, same values).
bool holds_exactly(const tessera::HostCsr<double>& A, const std::vector<Triplet>& t) {
  if (static_cast<std::size_t>(A.nnz()) != t.size()) return false;
  std::size_t k = 0;
  for (std::int64_t r = 0; r < A.rows; ++r)
    for (std::int32_t p = A.row_ptr[static_cast<std::size_t>(r)]; p < A.row_ptr[static_cast<std::size_t>(r) + 1];
         ++p, ++k)
      if (t[k].i != r || t[k].j != A.col_idx[static_cast<std::size_t>(p)] ||
          !(t[k].v == A.values[static_cast<std::size_t>(p)]))
        return false;
  return true;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

TEST_CASE("Matrix Market: the real matrices of the data folder match MANIFEST.md") {
  const fs::path dir = matrix_dir();
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    MESSAGE("skipped: " << dir.string() << " not found (set TESSERA_MATRIX_DIR to a folder of .mtx files)");
    return;
  }
  std::map<std::string, ManifestRow> manifest;
  if (fs::exists(dir / "MANIFEST.md"))
    manifest = read_manifest(dir / "MANIFEST.md");
  else
    MESSAGE("no MANIFEST.md in " << dir.string() << ": checking structure only");

  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && (ends_with(name, ".mtx") || ends_with(name, ".mtx.gz"))) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  for (const auto& [name, row] : manifest)
    CHECK_MESSAGE(std::find(files.begin(), files.end(), name) != files.end(), name << " is in MANIFEST.md but missing");

  int read = 0, refused = 0;
  for (const auto& name : files) {
    INFO(name);
    const std::string path = (dir / name).string();
    const auto it = manifest.find(name);
    const ManifestRow* row = it == manifest.end() ? nullptr : &it->second;
    if (row && (row->field == "complex" || row->symmetry == "hermitian")) {
      CHECK_THROWS_AS(tessera::read_matrix_market<double>(path), tessera::InvalidArgument);
      ++refused;
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    tessera::HostCsr<double> A;
    try {
      A = tessera::read_matrix_market<double>(path);
    } catch (const tessera::InvalidArgument& e) {
      if (!row && std::string(e.what()).find("complex") != std::string::npos) {
        ++refused;
        continue;
      }
      FAIL(e.what());
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    ++read;
    if (name.rfind("dblp-2010", 0) == 0)
      MESSAGE("read " << name << " (" << A.nnz() << " nonzeros) in " << seconds << " s");
    check_well_formed(A, name);
    if (row) {
      CHECK(A.rows == row->rows);
      CHECK(A.cols == row->cols);
      CHECK(A.nnz() == row->nnz);
      if (row->field == "pattern")
        CHECK(std::all_of(A.values.begin(), A.values.end(), [](double v) { return v == 1.0; }));
      if (row->field == "integer")
        CHECK(std::all_of(A.values.begin(), A.values.end(), [](double v) { return v == std::floor(v); }));
    }
    // Small plain files: the same entries as the slow reader, exactly.
    if (!ends_with(name, ".gz") && fs::file_size(path) < 1'000'000)
      CHECK_MESSAGE(holds_exactly(A, slow_read(path)), "differs from the plain iostream reader");
  }
  MESSAGE("read " << read << " matrices, refused " << refused << " complex ones, from " << dir.string());
  CHECK(read > 0);
}
