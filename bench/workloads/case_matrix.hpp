// The sparse matrix of an spmv / spmm case (kind laplace3d, laplace2d, random, powerlaw, or a
// Matrix Market file; a file Tessera refuses by design throws Skipped). Defined in spmv.cpp.
#pragma once

#include "case_spec.hpp"
#include "tessera/generate.hpp"

namespace bench {

template <class T>
tessera::HostCsr<T> case_matrix(const CaseSpec& s);

}  // namespace bench
