// Backend::device_timer (tessera-bench's clock on GPUs): host backends have none, the host
// clock being theirs; a device that has one times the work queued between its marks, so the
// interval is positive, lies within the host's view of the same calls, and grows with the work.
#include <doctest/doctest.h>

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
    const auto one = time(1), eight = time(8);
    CHECK(one.first > 0);
    CHECK(one.first <= one.second + 0.01);      // the marks lie inside the host's interval
    CHECK(eight.first <= eight.second + 0.01);  // (0.01 ms: the event clock's resolution and more)
    CHECK(eight.first > 4 * one.first);         // the copies are timed, not only the marks
  }
}
