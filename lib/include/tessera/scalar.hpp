/// \file
/// Scalar<T>: one value kept on the device; ScalarArg<T>: a coefficient read on the device.
#pragma once

#include <array>
#include <cstdint>

#include "tessera/backend.hpp"
#include "tessera/errors.hpp"
#include "tessera/queue.hpp"
#include "tessera/vector.hpp"

namespace tessera {

template <class T>
class ScalarArg;

/// One float or double on a device: where reductions and dots write their result
/// (`dot(q, x, y, s)`) and where vector operations read their coefficients (as cuBLAS's device
/// pointer mode), so an iterative method runs without the host waiting for each value. get()
/// is the one call that waits. A handle, as Vector: copies share the value.
template <class T>
class Scalar {
 public:
  using value_type = T;  ///< the element type
  Scalar() = default;
  /// A scalar on `device` (value unspecified until written).
  explicit Scalar(const Device& device) : v_(device, 1) {}
  /// A scalar set to `value`, enqueued on the default queue (no host wait).
  Scalar(const Device& device, T value);

  /// The value, read after the work queued so far on the default queue (a host wait).
  T get() const { return get(device().queue()); }
  /// The value, read after the work queued so far on q (a host wait).
  T get(const Queue& q) const {
    T h{};
    v_.download(q, &h, 1, true);
    return h;
  }
  /// Sets the value, enqueued on the default queue (no host wait).
  void set(T value);
  /// Sets the value, enqueued on q (no host wait).
  void set(const Queue& q, T value);

  /// The owning device; an empty handle for a default-constructed scalar.
  const Device& device() const { return v_.device(); }
  explicit operator bool() const { return v_.size() == 1; }  ///< false for a default-constructed scalar
  /// The scalar as a one-element vector sharing its storage.
  const Vector<T>& as_vector() const { return v_; }
  /// What a backend receives: a one-element view.
  VecView view() const { return v_.view(); }

 private:
  Vector<T> v_;
};

/// A coefficient of a vector operation (alpha, beta, a fill value): a host value, a Scalar, or
/// a product and quotient of them, such as `rz / pq` or `-(rz / pq)`. The device reads the
/// scalars when the operation runs, so the host never waits for them; at most two scalars may
/// appear above the line and two below (InvalidArgument otherwise). Implicitly built from a T
/// or a Scalar<T>; refers to its Scalars, so it lives only for the call it is made for.
template <class T>
class ScalarArg {
 public:
  /// A host value (implicit, so `axpy(2.0, x, y)` reads as written).
  ScalarArg(T value) : value_(static_cast<double>(value)) {}  // NOLINT: implicit by design
  /// A Scalar, read on the device (implicit); throws InvalidArgument for an empty one.
  ScalarArg(const Scalar<T>& s) : num_{&s, nullptr} {  // NOLINT: implicit by design
    if (!s) throw InvalidArgument("ScalarArg: the Scalar is empty (default-constructed)");
  }

  /// The product and the quotient of two coefficients, and the negation of one.
  ///@{
  friend ScalarArg operator*(const ScalarArg& a, const ScalarArg& b) { return combine(a, b, false); }
  friend ScalarArg operator/(const ScalarArg& a, const ScalarArg& b) { return combine(a, b, true); }
  friend ScalarArg operator-(const ScalarArg& a) {
    ScalarArg r = a;
    r.value_ = -r.value_;
    return r;
  }
  ///@}

  /// True when no Scalar is involved: the value is `host_value()`.
  bool on_host() const { return num_[0] == nullptr && den_[0] == nullptr; }
  double host_value() const { return value_; }  ///< the host factor
  /// Checks that every Scalar lives on `device` (DeviceMismatch naming `op` otherwise).
  void check_device(const char* op, const Device& device) const {
    for (const auto* list : {&num_, &den_})
      for (const Scalar<T>* s : *list)
        if (s != nullptr && s->device() != device)
          throw DeviceMismatch(std::string(op) + ": a Scalar coefficient lives on " + s->device().spec() +
                               ", the operands on " + device.spec());
  }
  /// What a backend receives.
  Coef coef() const {
    Coef c;
    c.value = value_;
    for (std::size_t i = 0; i < 2; ++i) {
      if (num_[i] != nullptr) c.num[i] = ref(*num_[i]);
      if (den_[i] != nullptr) c.den[i] = ref(*den_[i]);
    }
    return c;
  }

 private:
  ScalarArg() = default;
  static ScalarRef ref(const Scalar<T>& s) {
    const VecView v = s.view();
    return {v.data, v.offset};
  }
  static void push(std::array<const Scalar<T>*, 2>& list, const Scalar<T>* s) {
    if (s == nullptr) return;
    for (auto& slot : list)
      if (slot == nullptr) {
        slot = s;
        return;
      }
    throw InvalidArgument("ScalarArg: more than two Scalars above or below the line of a coefficient");
  }
  static ScalarArg combine(const ScalarArg& a, const ScalarArg& b, bool divide) {
    ScalarArg r;
    r.value_ = divide ? a.value_ / b.value_ : a.value_ * b.value_;
    r.num_ = a.num_;
    r.den_ = a.den_;
    for (const Scalar<T>* s : divide ? b.den_ : b.num_) push(r.num_, s);
    for (const Scalar<T>* s : divide ? b.num_ : b.den_) push(r.den_, s);
    return r;
  }
  double value_ = 1.0;
  std::array<const Scalar<T>*, 2> num_{}, den_{};
};

/// Products and quotients written with Scalars directly (`rz / pq`, `-s`), and with host values
/// (`2.0 * s`).
///@{
template <class T>
ScalarArg<T> operator/(const Scalar<T>& a, const Scalar<T>& b) {
  return ScalarArg<T>(a) / ScalarArg<T>(b);
}
template <class T>
ScalarArg<T> operator*(const Scalar<T>& a, const Scalar<T>& b) {
  return ScalarArg<T>(a) * ScalarArg<T>(b);
}
template <class T>
ScalarArg<T> operator-(const Scalar<T>& a) {
  return -ScalarArg<T>(a);
}
template <class T>
ScalarArg<T> operator*(T a, const Scalar<T>& b) {
  return ScalarArg<T>(a) * ScalarArg<T>(b);
}
///@}

}  // namespace tessera
