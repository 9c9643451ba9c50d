// CommandLine: the one file that compiles CLI11 (command_line.hpp says why).
#include "command_line.hpp"

#include <CLI/CLI.hpp>

namespace tessera::tools {

struct CommandLine::Impl {
  explicit Impl(const std::string& description) : app(description) {}
  CLI::App app;
};

CommandLine::CommandLine(const std::string& description) : impl_(std::make_unique<Impl>(description)) {}
CommandLine::~CommandLine() = default;

CommandLine::Rules& CommandLine::Rules::choices(const std::vector<std::string>& allowed) {
  opt_->check(CLI::IsMember(allowed));
  return *this;
}
CommandLine::Rules& CommandLine::Rules::positive() {
  opt_->check(CLI::PositiveNumber);
  return *this;
}
CommandLine::Rules& CommandLine::Rules::non_negative() {
  opt_->check(CLI::NonNegativeNumber);
  return *this;
}
CommandLine::Rules& CommandLine::Rules::range(std::int64_t lo, std::int64_t hi) {
  opt_->check(CLI::Range(lo, hi));
  return *this;
}
CommandLine::Rules& CommandLine::Rules::split_on(char delimiter) {
  opt_->delimiter(delimiter);
  return *this;
}
CommandLine::Rules& CommandLine::Rules::required() {
  opt_->required();
  return *this;
}
CommandLine::Rules& CommandLine::Rules::group(const std::string& heading) {
  opt_->group(heading);
  return *this;
}

CommandLine::Rules CommandLine::option(const std::string& names, std::string& into, const std::string& help) {
  return Rules(impl_->app.add_option(names, into, help));
}
CommandLine::Rules CommandLine::option(const std::string& names, std::vector<std::string>& into,
                                       const std::string& help) {
  return Rules(impl_->app.add_option(names, into, help));
}
CommandLine::Rules CommandLine::option(const std::string& names, int& into, const std::string& help) {
  return Rules(impl_->app.add_option(names, into, help));
}
CommandLine::Rules CommandLine::option(const std::string& names, std::int64_t& into, const std::string& help) {
  return Rules(impl_->app.add_option(names, into, help));
}
CommandLine::Rules CommandLine::option(const std::string& names, double& into, const std::string& help) {
  return Rules(impl_->app.add_option(names, into, help));
}
CommandLine::Rules CommandLine::flag(const std::string& names, bool& into, const std::string& help) {
  return Rules(impl_->app.add_flag(names, into, help));
}

void CommandLine::version_flag(const std::string& names, const std::string& text) {
  impl_->app.set_version_flag(names, text);
}

void CommandLine::help_column_width(int width) { impl_->app.get_formatter()->column_width(width); }

bool CommandLine::parse(int argc, char** argv, int& exit_code) {
  try {
    impl_->app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own handling: --help and --version print to stdout and exit 0,
    // errors to stderr.
    exit_code = impl_->app.exit(e);
    return false;
  }
  return true;
}

}  // namespace tessera::tools
