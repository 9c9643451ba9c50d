#!/usr/bin/env bash
# Installs what cross-building Tessera for ARM and testing it under QEMU needs on Debian 12:
# the cross compiler, qemu-user, and the target's libraries from Debian's multiarch archive.
# Only what is missing, so running it again costs nothing. Uses sudo when not root.
# Usage: setup-arm.sh [arm64]     (scripts/cross-arm.sh calls it)
set -euo pipefail
arch=${1:-arm64}
case $arch in
  arm64) triplet=aarch64-linux-gnu ;;
  *) echo "setup-arm: unknown architecture '$arch' (arm64)" >&2; exit 2 ;;
esac

# The build machine's side: cross compiler, QEMU user mode, and the packages whose headers and
# CMake files serve every architecture (doctest, CLI11, nlohmann-json, OpenCL C++ headers, Eigen).
host_packages=(g++-$triplet qemu-user cmake ninja-build pkg-config
  doctest-dev libcli11-dev nlohmann-json3-dev opencl-clhpp-headers opencl-c-headers libeigen3-dev)
# The target's libraries (multiarch: installed beside the build machine's own, never replacing
# them). libgomp1 and libstdc++6 come with libstdc++-12-dev; libc6:$arch brings the loader
# /lib/ld-linux-*.so that qemu runs the binaries with.
target_packages=(libc6-dev libstdc++-12-dev libgomp1 libhwy-dev zlib1g-dev ocl-icd-opencl-dev)
# tessera-bench's OpenBLAS baseline (Eigen is header-only). Not libdnnl-dev:arm64: Debian 12's
# package cannot sit beside libdnnl-dev:amd64 (both ship a different
# /usr/include/oneapi/dnnl/dnnl_config.h), so the cross-built bench has no oneDNN rows.
target_packages+=(libopenblas-dev)

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
apt_get() { DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 "$@"; }

if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
  echo "setup-arm: dpkg --add-architecture $arch"
  "${sudo[@]}" dpkg --add-architecture "$arch"
fi

missing=()
for p in "${host_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p"); fi
done
for p in "${target_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p:$arch" 2>/dev/null | grep -q "install ok installed"; then missing+=("$p:$arch"); fi
done

if ((${#missing[@]} == 0)); then
  echo "setup-arm: all $((${#host_packages[@]} + ${#target_packages[@]})) packages for $arch present"
  exit 0
fi
echo "setup-arm: installing ${missing[*]}"
# Always update first: after --add-architecture the new architecture's lists are not there yet,
# and on a fresh machine the build machine's lists may be stale too.
apt_get update -qq
apt_get install -y -qq --no-install-recommends "${missing[@]}"
