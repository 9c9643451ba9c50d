#!/usr/bin/env bash
# Packs Debian's OpenMPI (mpirun, orted, libmpi, its MCA plugins and help texts, and the PMIx it
# runs on) into one relocatable tree for the GPU machine, which has no Debian package registry:
#   scripts/gpu-pack-mpi.sh [out.tar.xz]          (default: build-gpu-run/ompi.tar.xz)
# On the machine: tar xJf out.tar.xz -C /tmp && . /tmp/ompi/env.sh; then mpirun as usual.
# Where the machine has an OpenMPI 4.x of its own (the GPU machine's image does: 4.1.6,
# ../shared/docs/gpu-machine.md), its mpirun and libmpi.so.40 run Tessera's binaries as they
# are, and gpu-pack.sh leaves MPI's libraries out of syslib.tar.xz so the two never mix.
# OpenMPI finds its plugins, orted and help files under OPAL_PREFIX, PMIx under
# PMIX_PREFIX (both set by env.sh); the libraries' dependencies that a bare machine
# lacks (hwloc, libevent, munge, ...) travel beside them, as scripts/gpu-pack.sh does for Tessera.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build-gpu-run/ompi.tar.xz}
arch=x86_64-linux-gnu
stage=$(mktemp -d)
pre=$stage/ompi
mkdir -p "$pre/bin" "$pre/lib/$arch" "$pre/share"
for b in orterun orted ompi_info; do cp -L "/usr/bin/$b" "$pre/bin/"; done
ln -s orterun "$pre/bin/mpirun"
ln -s orterun "$pre/bin/mpiexec"
cp -a "/usr/lib/$arch/openmpi" "$pre/lib/$arch/"
cp -a "/usr/lib/$arch/pmix2" "$pre/lib/$arch/"
cp -a /usr/share/openmpi "$pre/share/"
[ -d /usr/share/pmix ] && cp -a /usr/share/pmix "$pre/share/"
# Every library the programs and plugins load from the multiarch folder, except glibc's and
# the C++ runtime's (every machine has them) and the fabric/accelerator stacks the plugins are
# optional for (a plugin whose library is absent is skipped at run time).
mapfile -t libs < <(find "$pre" -name '*.so*' -type f -o -path "$pre/bin/*" -type f | xargs ldd 2>/dev/null |
  awk '$3 ~ /^\/(usr\/)?lib\/x86_64-linux-gnu\// {print $3}' |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s)\.so' |
  grep -vE '/(libfabric|libucp|libucs|libuct|libucm|libpsm|libibverbs|librdmacm|libcuda|libnl)' | sort -u)
for lib in "${libs[@]}"; do cp -L "$lib" "$pre/lib/$arch/"; done
cat > "$pre/env.sh" <<'EOF'
# Source this file: points OpenMPI and PMIx at this relocated tree.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=$here PMIX_PREFIX=$here/lib/x86_64-linux-gnu/pmix2
# PMIx's components by path: the machine may hold another PMIx at Debian's compiled-in path.
export PMIX_MCA_mca_base_component_path=$here/lib/x86_64-linux-gnu/pmix2/lib/pmix
export PATH=$here/bin:$PATH
export LD_LIBRARY_PATH=$here/lib/x86_64-linux-gnu:$here/lib/x86_64-linux-gnu/openmpi/lib:$here/lib/x86_64-linux-gnu/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Plugins for fabrics this machine lacks fail to load: say nothing about it.
export OMPI_MCA_mca_base_component_show_load_errors=0
# PMIx warns once that it cannot compress its messages (no zlib plugin found); harmless here.
export PMIX_MCA_pcompress_base_silence_warning=1
EOF
tar cJf "$out" -C "$stage" ompi
rm -rf "$stage"
echo "gpu-pack-mpi: $out ($(du -h "$out" | cut -f1)); libraries carried: ${#libs[@]}"
