/// \file
/// StarStencil<T>: the general star stencil of `stencil(const StarStencil<T>&, Grid<T>&, int)`
/// (ops.hpp): a coefficient per distance per axis, a boundary kind per face, a constant source.
#pragma once

#include <array>
#include <utility>
#include <vector>

#include "tessera/types.hpp"

namespace tessera {

/// A star stencil of radius r (1..4) on a 2D or 3D grid, applied as Jacobi time steps: every
/// step computes each updated cell from the previous step's values only.
///
/// **Update.** For an updated cell i (axes a = x, y[, z]; e_a the unit step along a):
///
///     u'(i) = centre * u(i) + sum_{d=1..r} sum_a coeff_a[d] * (u(i - d e_a) + u(i + d e_a)) + source
///
/// with coeff_x[d] = x[d - 1] (likewise y, z). r is x.size(), and y (and z on a 3D grid) must
/// have the same size; z must be empty on a 2D grid (InvalidArgument otherwise).
///
/// **Faces** (faces[], in the order x low, x high, y low, y high, z low, z high; the z faces
/// are ignored on a 2D grid). Along an axis of n cells, a neighbour index j outside [0, n) is
/// read from inside the grid according to the face it lies beyond:
/// - dirichlet: never needed. The r cells next to the face are fixed boundary values: they are
///   not updated and keep what they hold (a Dirichlet face "holds" those values). Cells along
///   the axis are updated from r (low face) up to n - r (high face), excluding the latter; an
///   axis shorter than 2r + 1 with two Dirichlet faces updates nothing.
/// - neumann: zero normal derivative through mirrored ghost cells, the face lying half a cell
///   beyond the last cell (cell-centred): j = -1 - k reads cell k (low face), j = n + k reads
///   cell n - 1 - k (high face), k = 0..r-1. The cells next to the face are updated.
/// - periodic: wrap-around, j reads cell j + n (low) or j - n (high); both faces of an axis
///   must be periodic (InvalidArgument otherwise).
/// A neumann or periodic face needs n >= r on its axis (InvalidArgument otherwise).
/// A cell is updated when it is updated along every axis; the others keep their values.
///
/// **Order of arithmetic** (the reference backend evaluates it in double and rounds to T once
/// per step; the other backends evaluate it in T and may contract a multiply-add into an FMA):
/// - isotropic (x == y [== z]), every face Dirichlet and source == 0 (the call with one
///   coefficient vector, `stencil(coeffs, u, steps)`): v = centre * u(i), then for d = 1..r:
///   v += c[d] * ((x pair) + (y pair) [+ (z pair)]), each pair u(i - d e_a) + u(i + d e_a);
/// - otherwise: v = centre * u(i), then for d = 1..r: v += coeff_x[d] * (x pair);
///   v += coeff_y[d] * (y pair); [v += coeff_z[d] * (z pair)]; finally v += source when
///   source != 0 (a zero source is not added).
///
/// The FTCS heat equation u_t = u_xx + u_yy + u_zz + f with steps dt and spacings hx, hy, hz:
/// x = {dt / hx^2}, y = {dt / hy^2}, z = {dt / hz^2}, centre = 1 - 2 (sum of those), source =
/// dt * f (examples/heat_equation.cpp).
///
/// There is no default constructor: a brace list such as `{c0, c1}` keeps meaning the
/// coefficient vector of `stencil(coeffs, u, steps)`.
template <class T>
struct StarStencil {
  /// The coefficients (see above); faces all Dirichlet and no source until set.
  StarStencil(T centre_, std::vector<T> x_, std::vector<T> y_, std::vector<T> z_ = {})
      : centre(centre_), x(std::move(x_)), y(std::move(y_)), z(std::move(z_)) {}

  T centre{};          ///< the coefficient of the cell itself
  std::vector<T> x;    ///< x[d - 1]: the coefficient of the two x neighbours at distance d
  std::vector<T> y;    ///< y[d - 1]: likewise along y (same size as x)
  std::vector<T> z;    ///< z[d - 1]: likewise along z (3D grids: same size as x; 2D: empty)
  /// What each face holds: x low, x high, y low, y high, z low, z high (default: Dirichlet).
  std::array<StencilBoundary, 6> faces{};
  T source{};          ///< a constant added to every updated cell each step (0: none)

  /// Sets both faces of axis `a` (0 = x, 1 = y, 2 = z) to `b`; returns *this. Throws
  /// std::out_of_range for an axis outside 0..2.
  StarStencil& boundary(int a, StencilBoundary b) {
    faces.at(static_cast<std::size_t>(2 * a)) = b;
    faces.at(static_cast<std::size_t>(2 * a + 1)) = b;
    return *this;
  }
};

}  // namespace tessera
