// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.assert and tile.print: what they can show, and their attributes'
// lengths against their operands.

func.func @assert_details(%c: tensor<4xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{needs one more detail piece than values, got 1 pieces for 1 values}}
  tile.assert %c, %x {details = ["left "], message = "m", valuesSigned = array<i1: false>} : tensor<4xi1>, tensor<4xf32>
  return
}

// -----

func.func @assert_signs(%c: tensor<4xi1>, %x: tensor<4xf32>) {
  // expected-error @+1 {{needs one signedness per value}}
  tile.assert %c, %x {details = ["a", "b"], message = "m", valuesSigned = array<i1>} : tensor<4xi1>, tensor<4xf32>
  return
}

// -----

func.func @assert_shape(%c: tensor<4xi1>, %x: tensor<8xf32>) {
  // expected-error @+1 {{values must have the condition's shape}}
  tile.assert %c, %x {details = ["a", "b"], message = "m", valuesSigned = array<i1: false>} : tensor<4xi1>, tensor<8xf32>
  return
}

// -----

func.func @assert_condition(%c: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be}}
  tile.assert %c {details = [""], message = "m", valuesSigned = array<i1>} : tensor<4xi32>
  return
}

// -----

func.func @print_signs(%x: tensor<4xi32>) {
  // expected-error @+1 {{needs one signedness per operand}}
  tile.print %x : tensor<4xi32> {argsSigned = array<i1>, hex = false, prefix = " x: "}
  return
}

// -----

func.func @print_index(%x: index) {
  // expected-error @+1 {{cannot print a value of type 'index'}}
  tile.print %x : index {argsSigned = array<i1: false>, hex = false, prefix = " x: "}
  return
}

// -----

// Well formed: a scalar condition, tensors of pointers and of fp16.
func.func @fine(%c: i1, %t: tensor<4xi1>, %p: tensor<4x!tile.ptr<f16>>, %h: tensor<4xf16>) {
  tile.assert %c {details = [""], message = "scalar", valuesSigned = array<i1>} : i1
  tile.assert %t, %h, %h {details = ["left ", ", right ", ""], message = "m", valuesSigned = array<i1: false, false>} : tensor<4xi1>, tensor<4xf16>, tensor<4xf16>
  tile.print %p, %h : tensor<4x!tile.ptr<f16>>, tensor<4xf16> {argsSigned = array<i1: false, false>, hex = true, prefix = " p: "}
  tile.print {argsSigned = array<i1>, hex = false, prefix = " hello"}
  tile.debug_barrier
  return
}
