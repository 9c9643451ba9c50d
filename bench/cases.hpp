// The cases each operation runs at --size small | medium | large, cases given on the command
// line (--case), and spmv cases from Matrix Market files (--matrix).
#pragma once

#include <string>
#include <vector>

#include "case_spec.hpp"

namespace bench {

// The named-size cases of one operation, in run order. size: "small", "medium", "large" or
// "gpu" (exactly the cases and dtypes of the CUDA issue's table; none for dot and trsm).
std::vector<CaseSpec> default_cases(Op op, const std::string& size);

// --sweep: a geometric size series of the operation's first case at `size`, from small up to
// that case, so time against size shows the growth (linear for bandwidth-bound operations,
// cubic for gemm) and the cache boundaries. Smallest first.
std::vector<CaseSpec> sweep_cases(Op op, const std::string& size);

// Parses "OP[:KIND][:key=value,...]", e.g. "gemm:n=3000", "spmv:random:rows=2000000",
// "stencil:3d:n=300,radius=4". Starts from the first medium case of OP (of KIND when given) and
// overrides the keys named. Throws std::invalid_argument with what was expected.
CaseSpec parse_case(const std::string& text);

// The cases of `op` per Matrix Market file: spmv one; sptrsv one (its lower triangle); cg two, run where the matrix is SPD (50
// Jacobi-CG iterations, and IC(0)-CG to the tolerance); bicgstab one (ILU(0) to the tolerance).
// A folder contributes its *.mtx and *.mtx.gz files.
std::vector<CaseSpec> matrix_market_cases(const std::vector<std::string>& paths, Op op = Op::spmv);

// The larger real matrices of the shared collection (by file name) that exist under `dir`;
// --size large adds them as spmv cases.
std::vector<std::string> large_collection_matrices(const std::string& dir);
// The largest SPD matrices of the shared collection under `dir`; --size large adds them as cg cases.
std::vector<std::string> large_spd_matrices(const std::string& dir);
// Every SPD matrix of the shared collection under `dir`; --size large and gpu add their lower
// triangles as sptrsv cases (issue 18's real triangles).
std::vector<std::string> spd_matrices(const std::string& dir);

// Parses an operation name ("reduce", "spmv", ...); throws std::invalid_argument.
Op parse_op(const std::string& name);

}  // namespace bench
