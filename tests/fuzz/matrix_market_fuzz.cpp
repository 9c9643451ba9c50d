// Fuzz target: the Matrix Market reader on arbitrary bytes (plain or gzip). Whatever the input,
// the reader must return a CSR that passes validation or throw one of Tessera's typed errors;
// a crash, a sanitizer report, a leak or any other exception is a finding.
//
// Built two ways (tests/fuzz/CMakeLists.txt): with clang's libFuzzer (scripts/fuzz.sh, a CI
// stage of >= 200,000 executions under ASan + UBSan), and with the project's compiler as a plain
// program that runs every file of the corpus once (ctest fuzz.*.corpus).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "tessera/csr_matrix.hpp"
#include "tessera/errors.hpp"
#include "tessera/matrix_market.hpp"

namespace {

// The reader takes a path: the input goes to one in-memory file, rewritten for every input and
// named through /proc.
const std::string& mem_path(const std::uint8_t* data, std::size_t size) {
  static const int fd = ::memfd_create("tessera-fuzz", 0);
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  for (std::size_t done = 0; done < size;) {
    const ssize_t n = ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<std::size_t>(n);
  }
  return path;
}

// The reader honours the size line: a matrix of R rows has R + 1 row offsets, whatever the file
// holds (tests/test_matrix_market.cpp checks that, and that running out of memory is typed). A
// fuzzer that grows the row count would spend its time filling gigabytes of zeros, so inputs
// whose first number after the banner exceeds 2^20 are skipped (plain text only; gzip inputs
// are inflated by the reader and rarely survive mutation with a size line intact).
bool declares_huge_matrix(const std::uint8_t* data, std::size_t size) {
  bool line_start = true, in_comment = false;
  for (std::size_t i = 0; i < size && i < 4096; ++i) {
    const char c = static_cast<char>(data[i]);
    if (line_start) in_comment = c == '%';
    line_start = c == '\n';
    if (in_comment || c < '0' || c > '9') continue;
    std::uint64_t v = 0;
    for (; i < size && data[i] >= '0' && data[i] <= '9' && v < (std::uint64_t{1} << 40); ++i) v = v * 10 + (data[i] - '0');
    return v > (std::uint64_t{1} << 20);
  }
  return false;
}

template <class T>
void read_one(const std::string& path) {
  try {
    const tessera::HostCsr<T> A = tessera::read_matrix_market<T>(path);
    // What the reader returns must be a valid CSR (validate_csr throws otherwise: a finding).
    try {
      tessera::detail::validate_csr(A.rows, A.cols, A.row_ptr.data(), A.row_ptr.size(), A.col_idx.data(),
                                    A.col_idx.size(), A.values.size());
    } catch (const tessera::Error& e) {
      std::fprintf(stderr, "reader returned an invalid CSR: %s\n", e.what());
      std::abort();
    }
  } catch (const tessera::Error&) {
    // ParseError, InvalidArgument, OutOfMemory: the typed answers to bad input.
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (declares_huge_matrix(data, size)) return 0;
  const std::string& path = mem_path(data, size);
  read_one<double>(path);
  read_one<float>(path);
  return 0;
}
