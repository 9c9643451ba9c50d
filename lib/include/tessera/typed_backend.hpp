/// \file
/// TypedBackend<Derived>: the typed adapter between the plugin ABI and a backend's code.
#pragma once

#include <string>
#include <utility>

#include "tessera/backend.hpp"
#include "tessera/backend_operations.hpp"
#include "tessera/errors.hpp"

namespace tessera {

/// The typed adapter between the plugin ABI and a backend's code. The Backend interface takes a
/// DType and untyped views (what crosses a plugin boundary); this base implements every
/// operation of it once (as `final` overrides): it checks support() for the (Op, DType) pair,
/// throwing NotImplemented with the backend's reason, then calls the derived backend's
/// `template <class T> name(params)` with T = float or double. A backend thus contains typed op
/// functions only, no DType switch and no dtype check of its own.
///
/// \code
///   class CpuBackend final : public TypedBackend<CpuBackend> {
///    public:
///     TESSERA_TYPED_BACKEND_OPERATIONS       // template <class T> double reduce(ReduceOp, const VecView&); ...
///   };
///   // reduce.cpp
///   template <class T> double CpuBackend::reduce(ReduceOp op, const VecView& x) { ... }
///   TESSERA_INSTANTIATE_TYPED_OP(CpuBackend, reduce)
/// \endcode
///
/// A backend that must wrap every operation (make its device current, hold a lock, translate a
/// driver's exceptions) defines `template <class F> decltype(auto) run(Op op, F&& f)` calling f();
/// the default just calls it.
///
/// \tparam Derived the backend class itself (CRTP)
template <class Derived>
class TypedBackend : public Backend {
 public:
#define TESSERA_TYPED_DISPATCH_(OP, R, NAME, PARAMS, ARGS)                   \
  R NAME(DType dtype, TESSERA_UNPAREN_ PARAMS) final {                        \
    require(OP, dtype);                                                       \
    Derived& self = static_cast<Derived&>(*this);                             \
    return self.run(OP, [&]() -> R {                                          \
      if (dtype == DType::f32) return self.template NAME<float> ARGS;         \
      return self.template NAME<double> ARGS;                                 \
    });                                                                       \
  }
  TESSERA_FOR_EACH_BACKEND_OP(TESSERA_TYPED_DISPATCH_)
#undef TESSERA_TYPED_DISPATCH_

  /// The default wrapper of every operation: none (calls f). A backend hides it with its own.
  template <class F>
  decltype(auto) run(Op, F&& f) {
    return std::forward<F>(f)();
  }

 private:
  // The one dtype and support check of every operation.
  void require(Op op, DType dtype) const {
    if (dtype != DType::f32 && dtype != DType::f64)
      throw InvalidArgument(std::string(to_string(op)) + ": dtype " + std::to_string(static_cast<int>(dtype)) +
                            " is not a DType (expected f32 or f64)");
    const Support s = support(op, dtype);
    if (!s.ok)
      throw NotImplemented(std::string(to_string(op)) + " in " + to_string(dtype) + ": " + s.reason);
  }
};

}  // namespace tessera
