// A one-line progress display on stderr (what runs, how far along, elapsed), redrawn in place;
// silent when stderr is not a terminal, so logs and pipes stay clean.
#pragma once

#include <string>

namespace bench {

class Progress {
 public:
  explicit Progress(int total);
  ~Progress() { clear(); }
  // Unit `index` (1-based) of `total` is running `what`.
  void update(int index, const std::string& what);
  // Erases the line (before printing anything else to stderr or the table).
  void clear();

 private:
  bool enabled_;
  int total_;
  double start_s_;
  bool shown_ = false;
};

}  // namespace bench
