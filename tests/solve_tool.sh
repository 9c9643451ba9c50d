#!/bin/sh
# tessera-solve's command line, as users run it: exit codes (0 converged, 1 error, 2 not
# converged), the warning for CG on an unsymmetric matrix, the refusal of a non-square matrix,
# --json and --history, --rhs, and --precond-dtype. Needs the shared matrix folder; exits 77 (skipped) without it.
#   solve_tool.sh <tessera-solve> <matrix dir> <scratch dir>
# Cross builds: ctest names the emulator (qemu-aarch64) that runs the tool in TESSERA_TEST_EMULATOR.
tool=$1 dir=$2 tmp=$3
[ -f "$dir/nos6.mtx" ] || { echo "SKIPPED: $dir/nos6.mtx is absent"; exit 77; }
mkdir -p "$tmp" || exit 1
fail() { echo "FAILED: $*"; exit 1; }
export OMP_WAIT_POLICY=passive
emu=$(echo "${TESSERA_TEST_EMULATOR:-}" | tr ';' ' ')

$emu "$tool" "$dir/nos6.mtx" --device cpu --solver cg --precond jacobi --json "$tmp/out.json" --history "$tmp/h.csv" \
  > "$tmp/out.txt" 2>&1 || fail "nos6 cg+jacobi did not exit 0: $(cat "$tmp/out.txt")"
grep -q "converged" "$tmp/out.txt" || fail "no 'converged' in the table"
grep -q '"status": "converged"' "$tmp/out.json" || fail "--json lacks the status"
grep -q '"error_vs_ones"' "$tmp/out.json" || fail "--json lacks the error against ones"
head -1 "$tmp/h.csv" | grep -q "device,iteration,residual" || fail "--history header"
[ "$(wc -l < "$tmp/h.csv")" -gt 2 ] || fail "--history has no rows"

for s in bicgstab gmres; do
  for p in none jacobi ilu0; do
    $emu "$tool" "$dir/add32.mtx" --device cpu --solver $s --precond $p --dtype f32 --tol 1e-5 > "$tmp/out.txt" 2>&1 ||
      fail "add32 $s+$p f32: $(cat "$tmp/out.txt")"
  done
done
$emu "$tool" "$dir/nos6.mtx" --device reference --solver cg --precond ic0 > "$tmp/out.txt" 2>&1 || fail "nos6 cg+ic0 on reference"
# f32 factors in a double solve: converges, says so; refused where there are no factors or the
# solve is f32 (exit 1).
$emu "$tool" "$dir/nos6.mtx" --device cpu --solver cg --precond ic0 --precond-dtype f32 --json "$tmp/mixed.json" \
  > "$tmp/out.txt" 2>&1 || fail "nos6 cg+ic0(f32): $(cat "$tmp/out.txt")"
grep -q "ic0(f32)" "$tmp/out.txt" || fail "the table does not name ic0(f32)"
grep -q '"preconditioner_dtype": "f32"' "$tmp/mixed.json" || fail "--json lacks preconditioner_dtype"
$emu "$tool" "$dir/add32.mtx" --device cpu --solver bicgstab --precond ilu0 --precond-dtype f32 > "$tmp/out.txt" 2>&1 ||
  fail "add32 bicgstab+ilu0(f32): $(cat "$tmp/out.txt")"
$emu "$tool" "$dir/nos6.mtx" --device cpu --precond jacobi --precond-dtype f32 > "$tmp/out.txt" 2>&1
[ $? -eq 1 ] || fail "--precond-dtype f32 with jacobi must exit 1"
grep -q "ilu0 and ic0 only" "$tmp/out.txt" || fail "the jacobi refusal does not say why"
$emu "$tool" "$dir/nos6.mtx" --device cpu --precond ic0 --dtype f32 --precond-dtype f64 > "$tmp/out.txt" 2>&1
[ $? -eq 1 ] || fail "--precond-dtype f64 with --dtype f32 must exit 1"

$emu "$tool" "$dir/sherman5.mtx" --device cpu --solver cg --max-it 5 > "$tmp/out.txt" 2>&1
[ $? -eq 2 ] || fail "non-convergence must exit 2: $(cat "$tmp/out.txt")"
grep -q "not symmetric" "$tmp/out.txt" || fail "no warning for CG on an unsymmetric matrix"
grep -q "reached 5 iterations" "$tmp/out.txt" || fail "non-convergence does not say what was reached"

$emu "$tool" "$dir/well1850.mtx" --device cpu > "$tmp/out.txt" 2>&1
[ $? -eq 1 ] || fail "a non-square matrix must exit 1"
grep -q "square" "$tmp/out.txt" || fail "the non-square error does not say why"

printf '%%%%MatrixMarket matrix coordinate real general\n675 1 675\n' > "$tmp/b.mtx"
i=1; while [ $i -le 675 ]; do echo "$i 1 1.0"; i=$((i + 1)); done >> "$tmp/b.mtx"
$emu "$tool" "$dir/nos6.mtx" --rhs "$tmp/b.mtx" --device cpu --precond jacobi > "$tmp/out.txt" 2>&1 || fail "--rhs: $(cat "$tmp/out.txt")"
$emu "$tool" "$dir/nos6.mtx" --rhs "$dir/nos6.mtx" --device cpu > "$tmp/out.txt" 2>&1
[ $? -eq 1 ] || fail "an --rhs of the wrong shape must exit 1"
echo "tessera-solve: all checks passed"
