#!/usr/bin/env bash
# Packs a Release build for the GPU machine (see ../shared/docs/gpu-machine.md), which has the
# NVIDIA driver and CUDA toolkit but no Debian package registry:
#   scripts/gpu-pack.sh [build dir] [dist dir]      (defaults: build, build-gpu-carry)
# The dist holds bin/, lib/ (libtessera and its plugins) and syslib.tar.xz: the Debian runtime
# libraries the binaries load that a bare machine lacks (Highway, OpenMP, OpenBLAS, oneDNN,
# CLBlast, zlib, the OpenCL ICD loader). scripts/gpu-machine-check.sh unpacks and runs it there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
dist=${2:-$root/build-gpu-carry}
rm -rf "$dist" && mkdir -p "$dist/bin" "$dist/lib"
cp -a "$build"/bin/tessera-* "$dist/bin/"
cp -a "$build"/lib/libtessera*.so* "$dist/lib/"
# Everything ldd resolves under /usr/lib (the multiarch folder, and PETSc's own folder for
# tessera-bench-mpi's baseline) except glibc and libstdc++/libgcc,
# which every machine has, and OpenMPI's: the machine's own OpenMPI runs the MPI programs
# (a libmpi of one build beside the mpirun of another would mix), else gpu-pack-mpi.sh's.
mapfile -t libs < <(ldd "$dist"/bin/* "$dist"/lib/*.so | awk '$3 ~ /^\/(usr\/)?lib\// {print $3}' |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s)\.so' |
  grep -vE '/(libmpi|libopen-rte|libopen-pal|libpmix|libhwloc|libevent|libmunge)[^/]*\.so' | sort -u)
staging=$(mktemp -d)
for lib in "${libs[@]}"; do cp -L "$lib" "$staging/"; done
tar cJf "$dist/syslib.tar.xz" -C "$staging" .
rm -rf "$staging"
echo "gpu-pack: $dist ($(du -sh "$dist" | cut -f1)); runtime libraries: $(cd "$dist" && tar tJf syslib.tar.xz | grep -v '^\./$' | tr '\n' ' ')"
