// See collective.hpp.
#include "collective.hpp"

#include <cstring>
#include <exception>
#include <new>

#include "tessera/errors.hpp"

namespace tessera::mpi::detail {
namespace {

// The error types, most derived first (what the catch below tells apart).
enum Kind : std::int32_t {
  kOk = 0,
  kError,
  kInvalidArgument,
  kDimensionMismatch,
  kDeviceMismatch,
  kParseError,
  kOutOfMemory,
  kBackendUnavailable,
  kNotImplemented,
};

struct Wire {
  char op[48];
  std::int32_t dtype;
  std::int32_t kind;
  double values[kValues];
};

[[noreturn]] void throw_kind(std::int32_t kind, const std::string& what) {
  switch (kind) {
    case kInvalidArgument: throw InvalidArgument(what);
    case kDimensionMismatch: throw DimensionMismatch(what);
    case kDeviceMismatch: throw DeviceMismatch(what);
    case kParseError: throw ParseError(what);
    case kOutOfMemory: throw OutOfMemory(what);
    case kBackendUnavailable: throw BackendUnavailable(what);
    case kNotImplemented: throw NotImplemented(what);
    default: throw Error(what);
  }
}

std::string call_name(const Wire& w) {
  std::string s(w.op, strnlen(w.op, sizeof w.op));
  if (w.dtype == 4) s += "<float>";
  if (w.dtype == 8) s += "<double>";
  return s;
}

}  // namespace

std::vector<Contribution> exchange(MPI_Comm comm, Signature sig, const std::function<void(Contribution&)>& local) {
  Wire mine{};
  std::strncpy(mine.op, sig.op, sizeof mine.op - 1);
  mine.dtype = sig.dtype;
  Contribution c;
  std::string message;
  try {
    local(c);
  } catch (const DimensionMismatch& e) {  // before InvalidArgument: it derives from it
    mine.kind = kDimensionMismatch, message = e.what();
  } catch (const DeviceMismatch& e) {
    mine.kind = kDeviceMismatch, message = e.what();
  } catch (const ParseError& e) {
    mine.kind = kParseError, message = e.what();
  } catch (const InvalidArgument& e) {
    mine.kind = kInvalidArgument, message = e.what();
  } catch (const OutOfMemory& e) {
    mine.kind = kOutOfMemory, message = e.what();
  } catch (const BackendUnavailable& e) {
    mine.kind = kBackendUnavailable, message = e.what();
  } catch (const NotImplemented& e) {
    mine.kind = kNotImplemented, message = e.what();
  } catch (const std::bad_alloc&) {
    mine.kind = kOutOfMemory, message = std::string(sig.op) + ": out of host memory";
  } catch (const std::exception& e) {
    mine.kind = kError, message = e.what();
  }
  std::memcpy(mine.values, c.values.data(), sizeof mine.values);

  int ranks = 0, rank = 0;
  MPI_Comm_size(comm, &ranks);
  MPI_Comm_rank(comm, &rank);
  std::vector<Wire> all(static_cast<std::size_t>(ranks));
  MPI_Allgather(&mine, sizeof(Wire), MPI_BYTE, all.data(), sizeof(Wire), MPI_BYTE, comm);

  for (int r = 1; r < ranks; ++r)
    if (std::strncmp(all[0].op, all[r].op, sizeof mine.op) != 0 || all[0].dtype != all[r].dtype)
      throw InvalidArgument("tessera::mpi: rank 0 called " + call_name(all[0]) + " while rank " + std::to_string(r) +
                            " called " + call_name(all[static_cast<std::size_t>(r)]) +
                            "; every rank must make the same collective calls, on the same element type");
  for (int r = 0; r < ranks; ++r) {
    const Wire& w = all[static_cast<std::size_t>(r)];
    if (w.kind == kOk) continue;
    // The lowest failing rank tells every rank what went wrong.
    int length = static_cast<int>(message.size());
    MPI_Bcast(&length, 1, MPI_INT, r, comm);
    message.resize(static_cast<std::size_t>(length));
    MPI_Bcast(message.data(), length, MPI_CHAR, r, comm);
    throw_kind(w.kind, "rank " + std::to_string(r) + ": " + message);
  }
  std::vector<Contribution> out(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r)
    std::memcpy(out[static_cast<std::size_t>(r)].values.data(), all[static_cast<std::size_t>(r)].values,
                sizeof(double) * kValues);
  return out;
}

}  // namespace tessera::mpi::detail
