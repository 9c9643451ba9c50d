/// \file
/// Typed errors. Every message names the operation, what was given and what was expected,
/// so a user can fix the call without reading Tessera's source.
#pragma once

#include <stdexcept>
#include <string>

namespace tessera {

/// The base of every error Tessera throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An argument has a value the operation cannot accept (negative size, bad CSR structure,
/// a stride that leaves an empty output, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// Operand shapes do not fit together.
class DimensionMismatch : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

/// Operands of one call live on different devices.
class DeviceMismatch : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

/// A backend or device cannot be used here; the message carries the reason.
class BackendUnavailable : public Error {
 public:
  using Error::Error;
};

/// A device allocation failed.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

/// A device program failed to compile; build_log() holds the compiler's output.
class KernelBuildError : public Error {
 public:
  /// `what`: the message; `build_log`: the compiler's output.
  KernelBuildError(const std::string& what, std::string build_log)
      : Error(what), build_log_(std::move(build_log)) {}
  const std::string& build_log() const noexcept { return build_log_; }  ///< the compiler's output

 private:
  std::string build_log_;
};

/// A backend cannot run an operation (or a dtype) at all; names backend and operation.
class NotImplemented : public Error {
 public:
  using Error::Error;
};

/// Input text (Matrix Market) is malformed; the message names the line.
class ParseError : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

}  // namespace tessera
