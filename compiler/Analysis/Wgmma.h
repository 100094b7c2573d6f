// What decides whether a tile.dot runs on Hopper's wgmma or on mma.sync,
// asked before layouts exist: its types and shape, and what its operands
// are (a transpose, a computed tile). tilegpu-accelerate-matmul decides
// with these, and tile-prefetch-loads predicts that decision, to leave a
// tl.trans'd operand's load to the cp.async pipeline that the tensor
// cores read through a transposed view.
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

/// Elements of the operand type that share one 32-bit register of an
/// mma.sync fragment (f16, bf16: 2; i8, fp8: 4; f32 with tf32 or tf32x3
/// precision: 1), or nullopt when mma.sync cannot multiply them.
std::optional<unsigned> mmaSyncKWidth(mlir::Type element, tile::InputPrecision precision);

/// A dot mma.sync multiplies (on sm_80 and newer): operand types it takes
/// and a K that is a multiple of its instruction's. Its operands go
/// through shared memory; one that is tl.trans of a tile is read through
/// a transposed view of that tile's buffer, as wgmma's is.
bool fitsMmaSync(tile::DotOp op);

/// A tile.trans that swaps the two dimensions of a 2-D tile: an operand
/// wgmma reads through a transposed view of its source's buffer.
bool isTranspose(mlir::Operation *op);

/// True when `tile` is computed by an op of the kernel (a product, an
/// elementwise op, a cast), not loaded or carried in as a block argument:
/// an A wgmma can take from registers.
bool isComputedTile(mlir::Value tile);

} // namespace tilec
