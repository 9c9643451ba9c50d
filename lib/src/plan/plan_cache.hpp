// Per-matrix plans kept by a backend, keyed by CsrView::generation: a bounded map under a
// mutex (the oldest dropped first), holding shared_ptrs so a plan dropped here while another
// thread still uses it stays alive until that call returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace tessera::plan {

template <class Plan>
class PlanCache {
 public:
  static constexpr std::size_t kMaxPlans = 32;

  // The plan of `generation`: update(existing or null) returns the plan to keep and use (the
  // existing one, a refreshed copy, or a new one), called under the lock so that no two threads
  // build one matrix's plan twice. Generation 0 (a matrix without identity) is never cached.
  template <class Update>
  std::shared_ptr<const Plan> get(std::uint64_t generation, Update&& update) {
    if (generation == 0) return update(std::shared_ptr<const Plan>());
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = plans_.find(generation);
    std::shared_ptr<const Plan> old = it != plans_.end() ? it->second : nullptr;
    std::shared_ptr<const Plan> now = update(old);
    if (now == old) return now;
    if (it == plans_.end()) {
      if (order_.size() >= kMaxPlans) {
        plans_.erase(order_.front());
        order_.erase(order_.begin());
      }
      order_.push_back(generation);
    }
    plans_[generation] = now;
    return now;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<const Plan>> plans_;
  std::vector<std::uint64_t> order_;  // generations, oldest first
};

}  // namespace tessera::plan
