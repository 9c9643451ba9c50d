# Cross-compiling for 64-bit ARM (Jetson/Orin, Raspberry Pi 4/5, Graviton) on Debian 12 with
# g++-aarch64-linux-gnu; the target libraries come from Debian's arm64 multiarch packages
# (dpkg --add-architecture arm64; scripts/setup-arm.sh installs them).
#   cmake -S . -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# ctest then runs every test binary through qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(TESSERA_CROSS_TRIPLET aarch64-linux-gnu)
set(TESSERA_QEMU qemu-aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-multiarch.cmake)
