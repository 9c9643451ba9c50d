#!/usr/bin/env bash
# Carries Debian's OpenMPI (and the PMIx it runs on) to the GPU machine, which has no package
# registry, beside a scripts/gpu-pack.sh dist:
#   scripts/gpu-pack.sh build build-gpu-carry && scripts/mpi-pack.sh build-gpu-carry
# writes build-gpu-carry/openmpi.tar.xz (the /usr and /etc trees OpenMPI reads, kept in their
# Debian layout) and build-gpu-carry/mpi-env.sh. There, after unpacking syslib.tar.xz as
# gpu-machine-check.sh does:
#   mkdir -p /tmp/openmpi && tar xJf build-gpu-carry/openmpi.tar.xz -C /tmp/openmpi
#   source build-gpu-carry/mpi-env.sh /tmp/openmpi
# OpenMPI finds its components and help files from OPAL_PREFIX (and the OPAL_*DIR overrides for
# Debian's split layout), PMIx from PMIX_PREFIX and its component path; mpi-env.sh links Debian's
# compiled-in paths to the carried trees where they are absent (PMIx's server ignores its prefix).
set -euo pipefail
dist=${1:-build-gpu-carry}
multiarch=x86_64-linux-gnu
staging=$(mktemp -d)
mkdir -p "$staging/usr/bin" "$staging/usr/lib/$multiarch" "$staging/usr/share" "$staging/etc" "$staging/syslib"
cp -a /usr/bin/orterun /usr/bin/orted "$staging/usr/bin/"
ln -s orterun "$staging/usr/bin/mpirun"
cp -a "/usr/lib/$multiarch/openmpi" "/usr/lib/$multiarch/pmix2" "$staging/usr/lib/$multiarch/"
cp -a /usr/share/openmpi "$staging/usr/share/"
cp -a /etc/openmpi "$staging/etc/"
# The shared libraries they load (MPI's own, hwloc, libevent, PMIx, fabric libraries), minus glibc.
mapfile -t libs < <(find "$staging/usr" -name '*.so*' -type f -o -name orterun -o -name orted |
  xargs ldd 2>/dev/null | awk '$3 ~ /^\/(usr\/)?lib\/x86_64-linux-gnu\// {print $3}' |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s)\.so' | sort -u)
for lib in "${libs[@]}"; do cp -L "$lib" "$staging/syslib/"; done
tar cJf "$dist/openmpi.tar.xz" -C "$staging" .
rm -rf "$staging"
cat > "$dist/mpi-env.sh" <<'ENV'
# source mpi-env.sh ROOT   (ROOT: where openmpi.tar.xz was unpacked)
root=${1:?usage: source mpi-env.sh ROOT}
export OPAL_PREFIX=$root/usr
export OPAL_EXEC_PREFIX=$root/usr
export OPAL_BINDIR=$root/usr/bin
export OPAL_LIBDIR=$root/usr/lib/x86_64-linux-gnu/openmpi/lib
export OPAL_PKGLIBDIR=$root/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
export OPAL_DATAROOTDIR=$root/usr/share
export OPAL_DATADIR=$root/usr/share
export OPAL_PKGDATADIR=$root/usr/share/openmpi
export OPAL_SYSCONFDIR=$root/etc/openmpi
export PMIX_PREFIX=$root/usr/lib/x86_64-linux-gnu/pmix2
export PMIX_MCA_mca_base_component_path=$root/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
export PATH=$root/usr/bin:$PATH
export LD_LIBRARY_PATH=$root/syslib:$root/usr/lib/x86_64-linux-gnu/openmpi/lib:$root/usr/lib/x86_64-linux-gnu/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Some components (PMIx's, loaded by orterun's embedded server) look only at the paths compiled
# into Debian's build: where those are absent (a bare machine), point them at the carried trees.
for p in usr/lib/x86_64-linux-gnu/openmpi usr/lib/x86_64-linux-gnu/pmix2 usr/share/openmpi etc/openmpi; do
  if [ ! -e "/$p" ]; then mkdir -p "$(dirname "/$p")" && ln -s "$root/$p" "/$p"; fi
done
# As root in the machine's container; NVLink SHARP off for NCCL.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
ENV
echo "mpi-pack: $dist/openmpi.tar.xz ($(du -sh "$dist/openmpi.tar.xz" | cut -f1)), $dist/mpi-env.sh"
