// What decides whether a tile.dot runs on Hopper's wgmma, asked before
// layouts exist: its types and shape, and what its operands are (a
// transpose, a computed tile). tilegpu-accelerate-matmul decides with
// these, and tile-prefetch-loads predicts that decision, to leave a
// tl.trans'd operand's load to the cp.async pipeline that wgmma reads
// through a transposed view.
#pragma once

#include "compiler/Dialect/Tile/Tile.h"

namespace tilec {

/// A 2-D dot of types wgmma multiplies as tl.dot does (f16 or bf16 and
/// fp8 into f32, i8 into i32; f32 stays on mma.sync, whose tf32 rounds), on
/// `numWarps` warps that form whole warpgroups of 64 rows each along M,
/// with N a multiple of 8 and K of the instruction's K. (Whether its
/// operands' buffers can be read is decided later: types other than
/// 16-bit need them K-major.)
bool fitsWgmma(tile::DotOp op, unsigned numWarps);

/// A tile.trans that swaps the two dimensions of a 2-D tile: an operand
/// wgmma reads through a transposed view of its source's buffer.
bool isTranspose(mlir::Operation *op);

/// True when `tile` is computed by an op of the kernel (a product, an
/// elementwise op, a cast), not loaded or carried in as a block argument:
/// an A wgmma can take from registers.
bool isComputedTile(mlir::Value tile);

} // namespace tilec
