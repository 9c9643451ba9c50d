// A plain driver for the fuzz targets, for compilers without libFuzzer: runs
// LLVMFuzzerTestOneInput once on every file of the folders (or files) given on the command line.
// ctest runs it over the corpus kept in tests/fuzz/corpus/, so the inputs that found bugs keep
// being checked in every build, the sanitizer build included.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::size_t runs = 0;
  auto run = [&](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    ++runs;
  };
  for (int a = 1; a < argc; ++a) {
    if (fs::is_directory(argv[a])) {
      for (const auto& e : fs::directory_iterator(argv[a]))
        if (e.is_regular_file()) run(e.path());
    } else {
      run(argv[a]);
    }
  }
  std::printf("%zu inputs ran without a finding\n", runs);
  return runs > 0 ? 0 : 1;  // an empty corpus is a mistake, not a pass
}
