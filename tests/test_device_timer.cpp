// Backend::device_timer (tessera-bench's clock on GPUs): host backends have none, the host
// clock being theirs; a device that has one times the work queued between its marks, so the
// interval is positive, lies within the host's view of the same calls, and grows with the work.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "support/devices.hpp"
#include "tessera/buffer.hpp"
#include "tessera/tessera.hpp"

TEST_CASE("device timer: none on the host backends") {
  for (const char* spec : {"reference", "cpu"}) {
    INFO(spec);
    const tessera::Device d = tessera::Device::open(spec);
    CHECK(d.backend().device_timer(d.queue().backend_queue()) == nullptr);
  }
}

TEST_CASE("device timer: brackets the queued work where a device has one") {
  for (const auto& dev : tessera_test::devices_under_test()) {
    const tessera::Queue q = dev.queue();
    auto timer = dev.backend().device_timer(q.backend_queue());
    if (!timer) {
      tessera_test::note_once("no device timer on " + dev.spec() + ": the bench uses the host clock there");
      continue;
    }
    INFO(dev.spec());
    CHECK(!timer->clock().empty());
    const std::size_t bytes = std::size_t(64) << 20;
    tessera::Buffer src(dev, bytes), dst(dev, bytes);
    src.upload(std::vector<unsigned char>(bytes, 7).data(), bytes);
    // (device ms, host ms) of `copies` device-to-device copies between the marks.
    auto time = [&](int copies) {
      dev.synchronize();
      const auto t0 = std::chrono::steady_clock::now();
      timer->start();
      for (int i = 0; i < copies; ++i) dst.copy_from(q, 0, src, 0, bytes);
      timer->stop();
      const double device_ms = timer->elapsed_ms();
      const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      return std::make_pair(device_ms, host_ms);
    };
    time(1);  // first use: module loading, allocations
    // Each interval must lie inside the host's view of its own calls; the growth check takes
    // the least of three tries on each side, since a CPU device (PoCL) sharing a busy 2-core
    // machine can stall any single try for milliseconds.
    double one_ms = 1e300, eight_ms = 1e300;
    for (int attempt = 0; attempt < 3; ++attempt) {
      const auto one = time(1), eight = time(8);
      CHECK(one.first > 0);
      CHECK(one.first <= one.second + 0.01);      // the marks lie inside the host's interval
      CHECK(eight.first <= eight.second + 0.01);  // (0.01 ms: the event clock's resolution and more)
      one_ms = std::min(one_ms, one.first);
      eight_ms = std::min(eight_ms, eight.first);
    }
    // The copies are timed, not only the marks: eight copies take well over one (8x ideally;
    // 3x leaves room for a noisy machine yet fails if the marks bracketed nothing).
    CHECK(eight_ms > 3 * one_ms);
  }
}
