#!/usr/bin/env python3
"""Compares tessera-bench JSON reports of two builds run on the same machine (before, after).

    python3 bench/compare.py before.json after.json [--min-ratio 0.9]

For every measured row of Tessera (impl "tessera") present in both, prints the median times and
after/before; beside it, the same ratio for the row's baseline library (cuBLAS, cuSPARSE, CLBlast,
OpenBLAS...), whose code did not change between the runs: its spread is the run-to-run noise that
a Tessera change must exceed to count. A row is flagged SLOWER when Tessera's time grew by more
than the noise band (the larger of 5% and the baselines' largest change). Exit status 0 always:
the table is for reading, and the note that resolves an issue quotes it.
"""
import json
import sys


def rows(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for r in data["results"]:
        if r.get("median_ms") is None:
            continue
        key = (r["op"], r["dtype"], r["case"], r["device"], r["impl"])
        out[key] = r
    return data["header"], out


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    _, before = rows(argv[1])
    _, after = rows(argv[2])
    common = sorted(k for k in before if k in after)
    # Noise: how much the unchanged baseline libraries moved between the two runs.
    base_changes = [after[k]["median_ms"] / before[k]["median_ms"] for k in common
                    if k[4] != "tessera" and before[k]["median_ms"] > 0]
    noise = max([0.05] + [abs(c - 1.0) for c in base_changes])
    print(f"baseline rows in both runs: {len(base_changes)}; their after/before ranges "
          f"{min(base_changes, default=1):.3f}..{max(base_changes, default=1):.3f} -> noise band {noise:.1%}")
    print(f"{'op':8} {'dtype':5} {'device':9} {'case':44} {'before ms':>10} {'after ms':>10} {'after/before':>12}  "
          f"{'baseline a/b':>12}")
    slower = 0
    for k in common:
        if k[4] != "tessera":
            continue
        b, a = before[k]["median_ms"], after[k]["median_ms"]
        ratio = a / b if b > 0 else float("nan")
        base = before[k].get("baseline")
        bkey = (k[0], k[1], k[2], k[3], base) if base else None
        bratio = (after[bkey]["median_ms"] / before[bkey]["median_ms"]
                  if bkey in before and bkey in after and before[bkey]["median_ms"] > 0 else None)
        flag = "  SLOWER" if ratio > 1.0 + noise else ""
        slower += bool(flag)
        bstr = f"{bratio:12.3f}" if bratio is not None else f"{'-':>12}"
        print(f"{k[0]:8} {k[1]:5} {k[3]:9} {k[2][:44]:44} {b:10.4f} {a:10.4f} {ratio:12.3f}  {bstr}{flag}")
    print(f"{slower} Tessera rows slower than the noise band")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
