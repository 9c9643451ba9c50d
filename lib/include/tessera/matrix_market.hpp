/// \file
/// Matrix Market (coordinate format) reading into CSR and writing back.
#pragma once

#include <string>

#include "tessera/csr_matrix.hpp"

namespace tessera {

/// Reads a coordinate Matrix Market file (real, integer or pattern; general, symmetric or
/// skew-symmetric; plain or gzip-compressed, detected by content) into CSR with each row's
/// columns sorted. Symmetric and skew-symmetric files are expanded to both triangles; pattern
/// entries get the value 1; duplicate entries are summed. Throws ParseError naming the line
/// and what was wrong, and InvalidArgument for files it refuses (complex, array format).
template <class T>
HostCsr<T> read_matrix_market(const std::string& path);

/// Writes a general real coordinate file (1-based), each value as the shortest decimal that
/// reads back to the same number, so read(write(A)) == A exactly. A path ending in ".gz" is
/// written gzip-compressed.
template <class T>
void write_matrix_market(const std::string& path, const HostCsr<T>& A);

}  // namespace tessera
