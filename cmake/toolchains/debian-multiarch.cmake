# Shared part of the Debian cross toolchain files: set TESSERA_CROSS_TRIPLET, TESSERA_QEMU and
# CMAKE_SYSTEM_PROCESSOR, then include this file.
#
# Debian's cross compilers already search the multiarch folders (/usr/lib/<triplet>,
# /usr/include/<triplet>) beside their own /usr/<triplet>; CMake is told the same, so that
# find_package/find_library pick the target's libhwy, libz, libOpenCL, libgomp and never the
# build machine's. Header-only packages (doctest, CLI11, nlohmann-json, CL/opencl.hpp, Eigen)
# are the same for every architecture and are found in /usr as usual.
set(CMAKE_C_COMPILER ${TESSERA_CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${TESSERA_CROSS_TRIPLET}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${TESSERA_CROSS_TRIPLET})

# Search the target's folders first; programs (nvcc, pkg-config) come from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${TESSERA_CROSS_TRIPLET} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# Never the build machine's /usr/lib/x86_64-linux-gnu: only the target triplet's libraries.
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu/cmake)

# pkg-config (the installed tessera.pc, downstream consumers) reads the target's .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${TESSERA_CROSS_TRIPLET}/pkgconfig:/usr/share/pkgconfig)

# No -L: qemu then uses the multiarch loader /lib/ld-linux-*.so.* and the multiarch libc, the
# ones the binaries were linked against. -L /usr/<triplet> would mix that older cross libc with
# the multiarch libraries, and threaded programs hang. The CPU model is chosen per run through
# QEMU_CPU (scripts/cross-arm.sh), so one build serves every emulated target.
find_program(TESSERA_QEMU_PATH ${TESSERA_QEMU})
if(TESSERA_QEMU_PATH)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TESSERA_QEMU_PATH})
endif()

# CUDA only with a cross CUDA toolkit given explicitly (-DTESSERA_WITH_CUDA=ON and
# CMAKE_CUDA_COMPILER); the build machine's x86 nvcc cannot build an ARM plugin.
if(NOT DEFINED TESSERA_WITH_CUDA)
  set(TESSERA_WITH_CUDA OFF CACHE STRING "Build the CUDA plugin (ON, OFF, AUTO)")
endif()
