#include "progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "measure.hpp"

namespace bench {

Progress::Progress(int total) : enabled_(isatty(STDERR_FILENO) == 1), total_(total), start_s_(now_s()) {}

void Progress::update(int index, const std::string& what) {
  if (!enabled_) return;
  char head[64];
  std::snprintf(head, sizeof head, "[%d/%d, %.0f s] ", index, total_, now_s() - start_s_);
  std::string line = head + what;
  winsize ws{};
  // Longer than the terminal, the line would wrap and \r would no longer redraw it.
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 4 && line.size() >= ws.ws_col)
    line = line.substr(0, ws.ws_col - 1);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  shown_ = true;
}

void Progress::clear() {
  if (!enabled_ || !shown_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace bench
