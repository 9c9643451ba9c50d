// The command line of Tessera's programs (tessera-info, tessera-solve,
// tessera-bench, tessera-bench-mpi): CLI11 behind a narrow interface, compiled
// once in command_line.cpp.
//
// Why not CLI11 directly: Debian 12's CLI11 (2.1) is header-only, so each
// program compiled the whole parser, help formatter and validators again, 13-15
// s of compile a program at -O2 (four programs in the x86 build, three in the
// aarch64 cross build, two more under the sanitizers) for a file of a hundred
// lines. Through this class a program's own file includes only this header; the
// parsing, --help and the error messages are still CLI11's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace CLI {
class Option;
}

namespace tessera::tools {

class CommandLine {
 public:
  // One option's further rules, chained on what option() returns.
  class Rules {
   public:
    Rules& choices(const std::vector<std::string>& allowed);  // the value is one of these
    Rules& positive();                                        // a number > 0
    Rules& non_negative();                                    // a number >= 0
    Rules& range(std::int64_t lo, std::int64_t hi);           // an integer in [lo, hi]
    Rules& split_on(char delimiter);                          // a list option: "a,b" gives two values
    Rules& required();
    Rules& group(const std::string& heading);  // where --help lists it

   private:
    friend class CommandLine;
    explicit Rules(CLI::Option* o) : opt_(o) {}
    CLI::Option* opt_;
  };

  explicit CommandLine(const std::string& description);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // `names` as CLI11 takes them: "--name", "-n,--name", or a bare word for a
  // positional argument. The variable's value before parsing is the default.
  Rules option(const std::string& names, std::string& into, const std::string& help);
  Rules option(const std::string& names, std::vector<std::string>& into, const std::string& help);
  Rules option(const std::string& names, int& into, const std::string& help);
  Rules option(const std::string& names, std::int64_t& into, const std::string& help);
  Rules option(const std::string& names, double& into, const std::string& help);
  Rules flag(const std::string& names, bool& into, const std::string& help);
  // A flag that prints `text` and ends the program (parse() returns false, exit
  // code 0).
  void version_flag(const std::string& names, const std::string& text);
  // The width of the option column in --help.
  void help_column_width(int width);

  // Parses argv into the bound variables. False when the program is to exit now
  // with `exit_code`: --help or --version printed (0), or a usage error printed
  // to stderr (non-zero).
  bool parse(int argc, char** argv, int& exit_code);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::tools
