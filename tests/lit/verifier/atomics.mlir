// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.atomic_rmw takes integers of 32 and 64 bits for every kind and
// f16/bf16/f32/f64 for add, max, min and xchg; tile.atomic_cas takes
// 16-, 32- and 64-bit integers and floats. The operands' types follow the
// pointer's.

func.func @rmw_narrow_int(%p: tensor<64x!tile.ptr<i16>>, %v: tensor<64xi16>) {
  // expected-error @+1 {{atomic add does not support 'i16'}}
  %o = tile.atomic_rmw add, %p, %v : tensor<64x!tile.ptr<i16>>
  return
}

// -----

func.func @rmw_i8_scalar(%p: !tile.ptr<i8>, %v: i8) {
  // expected-error @+1 {{atomic max does not support 'i8'}}
  %o = tile.atomic_rmw max, %p, %v : !tile.ptr<i8>
  return
}

// -----

func.func @rmw_bool(%p: !tile.ptr<i1>, %v: i1) {
  // expected-error @+1 {{atomic or does not support 'i1'}}
  %o = tile.atomic_rmw or, %p, %v : !tile.ptr<i1>
  return
}

// -----

func.func @rmw_float_and(%p: tensor<64x!tile.ptr<f32>>, %v: tensor<64xf32>) {
  // expected-error @+1 {{atomic and does not support 'f32'}}
  %o = tile.atomic_rmw and, %p, %v : tensor<64x!tile.ptr<f32>>
  return
}

// -----

func.func @rmw_float_xor(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{atomic xor does not support 'f16'}}
  %o = tile.atomic_rmw xor, %p, %v : !tile.ptr<f16>
  return
}

// -----

func.func @rmw_float_umax(%p: !tile.ptr<f64>, %v: f64) {
  // expected-error @+1 {{atomic umax does not support 'f64'}}
  %o = tile.atomic_rmw umax, %p, %v : !tile.ptr<f64>
  return
}

// -----

func.func @rmw_fp8(%p: !tile.ptr<f8E4M3FN>, %v: f8E4M3FN) {
  // expected-error @+1 {{atomic add does not support 'f8E4M3FN'}}
  %o = tile.atomic_rmw add, %p, %v : !tile.ptr<f8E4M3FN>
  return
}

// -----

func.func @rmw_value_type(%p: tensor<64x!tile.ptr<i32>>, %v: tensor<64xi64>) {
  // expected-error @+1 {{value matches the pointee of ptr}}
  %o = "tile.atomic_rmw"(%p, %v) {kind = 0 : i32} : (tensor<64x!tile.ptr<i32>>, tensor<64xi64>) -> tensor<64xi32>
  return
}

// -----

func.func @rmw_mask_shape(%p: tensor<64x!tile.ptr<i32>>, %v: tensor<64xi32>, %m: tensor<32xi1>) {
  // expected-error @+1 {{mask is i1 of ptr's shape}}
  %o = "tile.atomic_rmw"(%p, %v, %m) {kind = 0 : i32} : (tensor<64x!tile.ptr<i32>>, tensor<64xi32>, tensor<32xi1>) -> tensor<64xi32>
  return
}

// -----

func.func @cas_i8(%p: !tile.ptr<i8>, %c: i8, %v: i8) {
  // expected-error @+1 {{atomic_cas needs 16-, 32- or 64-bit elements, got 'i8'}}
  %o = tile.atomic_cas %p, %c, %v : !tile.ptr<i8>
  return
}

// -----

func.func @cas_fp8(%p: tensor<16x!tile.ptr<f8E5M2>>, %c: tensor<16xf8E5M2>, %v: tensor<16xf8E5M2>) {
  // expected-error @+1 {{atomic_cas needs 16-, 32- or 64-bit elements, got 'f8E5M2'}}
  %o = tile.atomic_cas %p, %c, %v : tensor<16x!tile.ptr<f8E5M2>>
  return
}

// -----

func.func @cas_cmp_type(%p: !tile.ptr<i32>, %c: i64, %v: i32) {
  // expected-error @+1 {{cmp matches the pointee of ptr}}
  %o = "tile.atomic_cas"(%p, %c, %v) : (!tile.ptr<i32>, i64, i32) -> i32
  return
}

// -----

// What is allowed: every kind on i32/i64, float add/max/min/xchg, 16-bit
// compare-and-swap, all semantics and scopes.
func.func @valid(%pi: tensor<64x!tile.ptr<i32>>, %vi: tensor<64xi32>, %m: tensor<64xi1>,
                 %pl: !tile.ptr<i64>, %vl: i64, %ph: !tile.ptr<bf16>, %vh: bf16,
                 %pf: tensor<64x!tile.ptr<f16>>, %vf: tensor<64xf16>) {
  %0 = tile.atomic_rmw umin, %pi, %vi, %m {sem = 0 : i32, scope = 0 : i32} : tensor<64x!tile.ptr<i32>>
  %1 = tile.atomic_rmw xor, %pl, %vl {sem = 2 : i32, scope = 2 : i32} : !tile.ptr<i64>
  %2 = tile.atomic_rmw max, %ph, %vh : !tile.ptr<bf16>
  %3 = tile.atomic_rmw xchg, %pf, %vf : tensor<64x!tile.ptr<f16>>
  %4 = tile.atomic_cas %ph, %vh, %vh {sem = 1 : i32} : !tile.ptr<bf16>
  %5 = tile.atomic_cas %pf, %vf, %vf : tensor<64x!tile.ptr<f16>>
  return
}

// -----

func.func @bad_sem(%p: !tile.ptr<i32>, %v: i32) {
  // expected-error @+1 {{attribute 'sem' failed to satisfy constraint}}
  %o = tile.atomic_rmw add, %p, %v {sem = 7 : i32} : !tile.ptr<i32>
  return
}
