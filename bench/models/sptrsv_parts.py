#!/usr/bin/env python3
"""Timing model of CUDA's parts walk of a sparse triangular solve (sptrsv.parts > 0) on the
lower triangle of an n^3 7-point Laplacian, to tell what bounds it (bench/RESULTS.md, session 29).

Block p walks level after level over its part of the rows. Its level L ends at
    T(p, L) = max(T(p, L-1), max over earlier parts q it needs at L of T(q, L-1) + h) + cost(p, L)
    cost(p, L) = s + k * rows(p, L) + r * (rounds(p, L) - 1)      (0 where p has no row at L)
with s the fixed cost of a level, k the cost of each row in it, r an extra round of rows (a
level wider than the block's threads; its rows are not fetched ahead) and h a publish-and-poll
hop between blocks. Fitted to the H200 (2026-11-30): s = 0.6 us (the one-block walk's level on
bcsstk16), h = 2 us, k = 6 ns, r = 3 us; it then reproduces 128^3 at 33 / 66 / 132 / 264 parts
(1.81 / 0.74 / 0.68 / 0.75 ms against 1.76 / 0.745 / 0.76 / 0.875 measured) and 96^3 at 66
(0.83 against 0.848).

Session 33 (tiles): with those constants the model puts 16 x 16 tiles at 128^3 at 0.43 ms against
264 contiguous parts' 0.75 (the longest chain of parts that wait on each other: 32 against 264);
measured (H200, same build, sptrsv.tiles 1 / 0) 0.487 against 0.569 ms: the chain is shorter, but
a level's own cost (s) is most of what is left, more than the model's 0.6 us.

    pip install numpy; python3 bench/models/sptrsv_parts.py 96 128 [--parts 264 | --tiles 16 16]
"""
import argparse

import numpy as np


def walk_time_us(n, parts=66, threads=None, s=0.6, h=2.0, k=0.006, r=3.0, tiles=None):
    """Model time of one solve, and the walk's shape: (us, parts, rows a part, threads, max rounds).
    tiles = (place blocks, plane blocks): the tiled walk (kernels/cuda/launch.hpp, SptrsvWalk) with
    the band, a z plane, as the period; else contiguous parts."""
    rows = n ** 3
    idx = np.arange(rows)
    x, y, z = idx % n, (idx // n) % n, idx // (n * n)
    level = x + y + z
    levels = 3 * n - 2
    if tiles is not None:
        s_block, q_block = -(-n * n // tiles[0]), -(-n // tiles[1])
        s_blocks = -(-n * n // s_block)
        part = (z // q_block) * s_blocks + (x + n * y) // s_block
        parts = int(part.max()) + 1
        part_rows = s_block * q_block
    else:
        parts = max(1, min(parts, rows // levels))  # as backends/cuda/sptrsv.cpp
        part_rows = -(-rows // parts)
        parts = -(-rows // part_rows)
        part = idx // part_rows
    if threads is None:  # the backend's rule: 2x the mean rows a part has a level, 32..256
        groups = 2 * -(-rows // (levels * parts))
        threads = 32
        while threads < 256 and threads < groups:
            threads *= 2
    count = np.zeros((levels, parts), dtype=np.int64)
    np.add.at(count, (level, part), 1)
    rounds = -(-count // threads)
    # (level, part, earlier part) for every dependency that crosses parts.
    keys = []
    for step, valid in ((1, x > 0), (n, y > 0), (n * n, z > 0)):
        r_ = idx[valid]
        mine, theirs = part[r_], part[r_ - step]
        cross = mine != theirs
        keys.append((level[r_][cross].astype(np.int64) * parts + mine[cross]) * parts + theirs[cross])
    keys = np.unique(np.concatenate(keys))
    k_level, k_mine, k_theirs = keys // (parts * parts), (keys // parts) % parts, keys % parts
    bounds = np.searchsorted(k_level, np.arange(levels + 1))
    t = np.zeros(parts)
    for lv in range(levels):
        a, b = bounds[lv], bounds[lv + 1]
        start = t.copy()
        np.maximum.at(start, k_mine[a:b], t[k_theirs[a:b]] + h)
        has = count[lv] > 0
        cost = s + k * count[lv] + r * np.maximum(rounds[lv] - 1, 0)
        t = np.where(has, start + cost, t)
    return t.max(), parts, part_rows, threads, int(rounds.max())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="+", help="grid edges")
    ap.add_argument("--parts", type=int, default=66)
    ap.add_argument("--threads", type=int, default=None, help="threads a block (default: the backend's rule)")
    ap.add_argument("--tiles", type=int, nargs=2, metavar=("S", "Q"), default=None,
                    help="tiled parts: S blocks of a z plane's places by Q blocks of planes")
    a = ap.parse_args()
    for n in a.n:
        us, parts, part_rows, threads, rounds = walk_time_us(n, a.parts, a.threads, tiles=a.tiles)
        print(f"{n}^3: {parts} parts of {part_rows} rows, {threads} threads, up to {rounds} rounds: {us / 1000:.3f} ms")


if __name__ == "__main__":
    main()
