// Pairwise summation of block results (reduce.cpp's sums, vector.cpp's fused dots): the
// rounding error grows with log(blocks), not with their number.
#pragma once

#include <cstdint>

namespace tessera::cpu {

// Binary-counter pairwise summation: after pushing values v1..vk, the stack holds the sums of
// aligned power-of-two runs, exactly the partial sums of a balanced tree.
class PairwiseSum {
 public:
  void push(double v) {
    ++count_;
    for (std::uint64_t c = count_; (c & 1) == 0; c >>= 1) v += stack_[--top_];
    stack_[top_++] = v;
  }
  double total() const {
    double s = 0.0;
    for (int i = top_ - 1; i >= 0; --i) s += stack_[i];
    return s;
  }

 private:
  double stack_[64];
  int top_ = 0;
  std::uint64_t count_ = 0;
};

}  // namespace tessera::cpu
