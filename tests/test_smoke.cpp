#include <doctest/doctest.h>

#include "tessera/tessera.hpp"

TEST_CASE("reference and cpu devices are always there") {
  const auto devs = tessera::devices();
  REQUIRE(devs.size() >= 2);
  CHECK(devs[0].spec == "reference");
  CHECK(devs[1].spec == "cpu");
  CHECK(tessera::Device::open("cpu") == tessera::Device::open("cpu"));
}
