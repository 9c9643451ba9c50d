#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, builds the CMake and the pkg-config
# consumers against it, runs them on reference and cpu (and opencl where a device is there),
# then moves the prefix and runs again: the installed libtessera must still find its plugins.
# Usage: run.sh BUILD_DIR SOURCE_DIR
# Cross builds (ctest sets these): TESSERA_TEST_TOOLCHAIN is the CMake toolchain file the
# consumers are built with, TESSERA_TEST_EMULATOR the program that runs them (qemu-aarch64).
set -euo pipefail
build=$1 src=$2
toolchain=()
if [[ -n ${TESSERA_TEST_TOOLCHAIN:-} ]]; then toolchain=(-DCMAKE_TOOLCHAIN_FILE="$TESSERA_TEST_TOOLCHAIN"); fi
emulator=(${TESSERA_TEST_EMULATOR:-})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/tests/downstream/cmake" -B "$work/cmake-build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" "${toolchain[@]}" >/dev/null
cmake --build "$work/cmake-build" >/dev/null
pc_dir=$(dirname "$(find "$work/prefix" -name tessera.pc)")
PKG_CONFIG_PATH="$pc_dir" make -s -C "$work" -f "$src/tests/downstream/make/Makefile" consumer \
  SRC="$src/tests/downstream/consumer.cpp" CXX="${CXX:-g++}" >/dev/null
mv "$work/consumer" "$work/make-consumer"

devices=(reference cpu)
# grep reads all of tessera-info's output (no -q): with pipefail, a grep that quits at the first
# match can leave tessera-info to die of SIGPIPE, and the pipeline then fails.
if "${emulator[@]}" "$work/prefix/bin/tessera-info" 2>/dev/null | grep "opencl:0" > /dev/null; then devices+=(opencl:0); fi
for dev in "${devices[@]}"; do
  TESSERA_DEVICE=$dev "${emulator[@]}" "$work/cmake-build/consumer"
  TESSERA_DEVICE=$dev "${emulator[@]}" "$work/make-consumer"
done

# The distributed component, where it was built: find_package(tessera COMPONENTS mpi), 2 ranks.
if compgen -G "$work/prefix/lib*/libtessera-mpi.so*" > /dev/null && [[ -z ${TESSERA_TEST_EMULATOR:-} ]]; then
  cmake -S "$src/tests/downstream/mpi" -B "$work/mpi-build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  cmake --build "$work/mpi-build" >/dev/null
  OMP_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np 2 "$work/mpi-build/mpi-consumer"
fi

# Relocation: move the whole prefix; the consumer is pointed at the new lib folder.
mv "$work/prefix" "$work/moved"
libdir=$(dirname "$(find "$work/moved" -name 'libtessera.so.*' | head -n 1)")
TESSERA_DEVICE=cpu LD_LIBRARY_PATH="$libdir" "${emulator[@]}" "$work/cmake-build/consumer"
"${emulator[@]}" "$work/moved/bin/tessera-info" | grep -E "^ +cpu " > /dev/null
# Plugins are found beside the moved libtessera: no backend may report a stale path.
if "${emulator[@]}" "$work/moved/bin/tessera-info" | grep "$work/prefix" > /dev/null; then
  echo "tessera-info still refers to the old prefix" >&2
  exit 1
fi
echo "downstream: CMake and pkg-config consumers pass on ${devices[*]}, and after moving the prefix"
