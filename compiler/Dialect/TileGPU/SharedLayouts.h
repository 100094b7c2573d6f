// Shared-memory accesses read off linear layouts: how wide they can be,
// how many bank cycles a warp's access takes, and the swizzled layout of a
// buffer through which a tensor changes layout without bank conflicts on
// either side.
//
// Banks: shared memory serves 32 banks of 4 bytes per cycle (wavefront). A
// warp's access of 16-byte vectors is served a quarter warp at a time (8
// lanes), of 8-byte vectors a half warp at a time, narrower ones all 32
// lanes at once; lanes reading the same word do not conflict.
#pragma once

#include "compiler/Dialect/TileGPU/LinearLayout.h"

#include <optional>

namespace tilec::tilegpu {

/// Elements one thread moves with one shared-memory instruction when its
/// registers map to offsets by `toOffset` (inputs register, lane, warp;
/// output offset): the longest run of registers at consecutive offsets
/// that starts on a multiple of its length, 16 bytes at most (1 for
/// pointers, `elementBytes` 0).
unsigned sharedAccessVector(const LinearLayout &toOffset, unsigned elementBytes);

/// Wavefronts one warp's shared-memory instruction takes (1 per 128 bytes
/// of distinct words at best), for `vector`-element accesses through
/// `toOffset`. The count is the same for every register and warp, since
/// they only XOR the same offset into every lane's.
unsigned sharedWavefronts(const LinearLayout &toOffset, unsigned vector,
                          unsigned elementBytes);

/// A shared layout (input offset, outputs the tensor's dimensions) for a
/// buffer that `src` writes and `dst` reads: the lowest offsets are the
/// vector the two can both move (or the one side's vector where that costs
/// fewer wavefronts), and the row bits are XOR-swizzled so that the lanes
/// of neither side meet in a bank. `elementBytes` 0 means pointers. With
/// `keepSourceVector` the lowest offsets are always `src`'s own vector (an
/// asynchronous copy writes whole vectors of it).
LinearLayout conflictFreeSharedLayout(const LinearLayout &src,
                                      const LinearLayout &dst,
                                      unsigned elementBytes,
                                      bool keepSourceVector = false);

/// How ldmatrix / stmatrix .x4 (four 8x8 matrices of 16-bit elements per
/// warp) move a tensor whose registers reach buffer offsets by `toOffset`.
struct MatrixMove {
  /// The row address each lane gives: inputs register (one per group of 8
  /// registers, one instruction each), lane, warp; output the offset.
  LinearLayout addresses;
  /// The instruction's .trans form (rows of the buffer are columns of the
  /// fragment).
  bool transposed;
};

/// Whether the instructions move exactly `toOffset`'s registers (fragment
/// register bit 0 and lane bits 0, 1 along a 16-byte row, lane bits 2-4
/// across rows, or the reverse with .trans; every other bit whole rows);
/// if so, how. Without .trans first.
std::optional<MatrixMove> matrixMove(const LinearLayout &toOffset);

/// Whether each of a matrix move's four 8x8 matrices takes one wavefront:
/// its eight 16-byte rows fall in different 16-byte slots of 128 bytes (banks).
bool isConflictFree(const MatrixMove &move);

} // namespace tilec::tilegpu
