// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.prefetch_l2 asks for one range: a scalar pointer to its first
// element and a count.
func.func @prefetch_of_a_tensor(%p: tensor<128x!tile.ptr<bf16>>, %n: i64) {
  // expected-error @+1 {{operand #0 must be}}
  tile.prefetch_l2 %p, %n : tensor<128x!tile.ptr<bf16>>
  return
}

// -----

func.func @prefetch_of_an_integer(%p: i64, %n: i64) {
  // expected-error @+1 {{operand #0 must be}}
  tile.prefetch_l2 %p, %n : i64
  return
}
