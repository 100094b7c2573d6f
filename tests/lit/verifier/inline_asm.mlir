// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// tile.inline_asm: operands and results of one shape, types that fit
// registers, and constraints that name every register an invocation
// passes (outputs first; narrower than 32 bits, packed up to 32 bits).

func.func @pack4_bytes(%a: tensor<128xi8>, %b: tensor<128xf32>) {
  // Four i8 in one register, four f32 in four: 8 outputs, 5 inputs.
  %c, %d = tile.inline_asm "", "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", %a, %b
      {pure = true, pack = 4 : i32} : (tensor<128xi8>, tensor<128xf32>) -> (tensor<128xi32>, tensor<128xf32>)
  return
}

// -----

func.func @clobbers_are_not_operands(%x: tensor<64xf16>) {
  // Two f16 in one register.
  %y = tile.inline_asm "", "=r,r,~{memory}", %x {pure = false, pack = 2 : i32} : (tensor<64xf16>) -> tensor<64xf16>
  return
}

// -----

func.func @scalar(%x: i64) {
  %y = tile.inline_asm "", "=l,l", %x {pure = true, pack = 1 : i32} : (i64) -> i64
  return
}

// -----

func.func @too_few_constraints(%x: tensor<128xi32>) {
  // expected-error @+1 {{constraints name 1 outputs and 1 inputs, but with pack = 2 an invocation has 2 output and 2 input registers}}
  %y = tile.inline_asm "", "=r,r", %x {pure = true, pack = 2 : i32} : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @bad_pack(%x: tensor<128xi32>) {
  // expected-error @+1 {{pack must be a power of two, got 3}}
  %y = tile.inline_asm "", "=r,=r,=r,r,r,r", %x {pure = true, pack = 3 : i32} : (tensor<128xi32>) -> tensor<128xi32>
  return
}

// -----

func.func @shapes(%x: tensor<128xi32>) {
  // expected-error @+1 {{operands and results must have one shape}}
  %y = tile.inline_asm "", "=r,r", %x {pure = true, pack = 1 : i32} : (tensor<128xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @booleans(%x: tensor<128xi1>) {
  // expected-error @+1 {{operands and results must be integers of 8 to 64 bits or floats, got 'tensor<128xi1>'}}
  %y = tile.inline_asm "", "=r,r", %x {pure = true, pack = 1 : i32} : (tensor<128xi1>) -> tensor<128xi32>
  return
}

// -----

func.func @no_result(%x: tensor<128xi32>) {
  // expected-error @+1 {{needs at least one result}}
  tile.inline_asm "", "r", %x {pure = false, pack = 1 : i32} : (tensor<128xi32>) -> ()
  return
}

// -----

func.func @scalar_pack(%x: i32) {
  // expected-error @+1 {{scalars take pack = 1, got 2}}
  %y = tile.inline_asm "", "=r,=r,r,r", %x {pure = true, pack = 2 : i32} : (i32) -> i32
  return
}

// -----

// Operand references: `$N` and `${N:mod}` below the registers' count,
// `$$`, `$(`, `$|`, `$)`; anything else would abort LLVM's printer.
func.func @references(%x: tensor<64xi32>) {
  %y = tile.inline_asm "add.s32 $0, ${1:x}, $1; // $$ $( $| $)", "=r,r", %x {pure = true, pack = 1 : i32} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @dollar_not_a_number(%x: tensor<64xi32>) {
  // expected-error @+1 {{asm has a '$' not followed by an operand number}}
  %y = tile.inline_asm "add.s32 $0, $x, $1;", "=r,r", %x {pure = true, pack = 1 : i32} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @operand_out_of_range(%x: tensor<64xi32>) {
  // expected-error @+1 {{asm names operand $2, but an invocation has 2 (outputs, then inputs)}}
  %y = tile.inline_asm "add.s32 $0, $1, $2;", "=r,r", %x {pure = true, pack = 1 : i32} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @trailing_dollar(%x: tensor<64xi32>) {
  // expected-error @+1 {{asm ends with a '$'}}
  %y = tile.inline_asm "mov.b32 $0, $1; $", "=r,r", %x {pure = true, pack = 1 : i32} : (tensor<64xi32>) -> tensor<64xi32>
  return
}

// -----

func.func @unterminated_brace(%x: tensor<64xi32>) {
  // expected-error @+1 {{asm has an unterminated '${' operand reference}}
  %y = tile.inline_asm "mov.b32 $0, ${1", "=r,r", %x {pure = true, pack = 1 : i32} : (tensor<64xi32>) -> tensor<64xi32>
  return
}
