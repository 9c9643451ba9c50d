/// \file
/// The tessera::mpi component (libtessera-mpi): distributed vectors, CSR matrices, grids and
/// solvers on MPI. find_package(tessera COMPONENTS mpi) gives the target tessera::mpi.
#pragma once

#include "tessera/mpi/algebra.hpp"
#include "tessera/mpi/dist_csr_matrix.hpp"
#include "tessera/mpi/dist_grid.hpp"
#include "tessera/mpi/dist_vector.hpp"
#include "tessera/mpi/partition.hpp"
#include "tessera/mpi/solve.hpp"
#include "tessera/mpi/timing.hpp"
