#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera builds, tests and benchmarks with — only those that
# are missing, so running it again costs nothing. Uses sudo when not root.
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build pkg-config git doxygen
  # libraries the build needs
  libhwy-dev doctest-dev nlohmann-json3-dev libcli11-dev zlib1g-dev
  # DLPack interop (tessera/dlpack.hpp: one header)
  libdlpack-dev
  # OpenCL: ICD loader, C++ bindings, and PoCL so the OpenCL plugin runs on the CPU in tests
  ocl-icd-opencl-dev opencl-clhpp-headers pocl-opencl-icd clinfo
  # benchmark baselines: CPU (OpenBLAS, Eigen, oneDNN) and OpenCL (CLBlast, ViennaCL)
  libopenblas-dev libeigen3-dev libdnnl-dev libclblast-dev libviennacl-dev
  # the distributed component (tessera::mpi) on Debian's OpenMPI, and PETSc, the baseline of
  # tessera-bench-mpi (KSPCG + Jacobi). Its NCCL transport for cuda ranks needs nccl.h at build
  # time only (libnccl.so.2 is opened at run time): the CUDA toolkit's when it has one, else the
  # PyPI wheel, installed on request (TESSERA_SETUP_NCCL=1, below) into .deps/nccl; configure
  # with -DTESSERA_NCCL_ROOT=$PWD/.deps/nccl/nvidia/nccl.
  libopenmpi-dev openmpi-bin petsc-dev
  # headless browser that renders the bench's HTML report in a test
  chromium
)

# NCCL headers and library from the nvidia-nccl-cu13 wheel (not a Debian package).
if [[ ${TESSERA_SETUP_NCCL:-0} == 1 ]]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  python3 -m pip install --quiet --target "$root/.deps/nccl" nvidia-nccl-cu13
  echo "setup: NCCL in $root/.deps/nccl/nvidia/nccl (-DTESSERA_NCCL_ROOT=$root/.deps/nccl/nvidia/nccl)"
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} Debian packages present"
  exit 0
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then sudo=(sudo); fi
echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
