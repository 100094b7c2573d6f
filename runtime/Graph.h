// CUDA streams and graphs for the runtime: a stream of one device's primary
// context, and the launches made on it captured once into a graph and
// replayed with one driver call (what a decode step needs: six launches
// cost one). Thread-local capture mode: a call on the capturing thread
// that cannot be captured (an allocation, a synchronisation) fails the
// capture instead of silently running.
#pragma once

#include "runtime/Device.h"

#include <cstddef>
#include <functional>

struct CUstream_st;
struct CUgraph_st;
struct CUgraphExec_st;

namespace tilec::runtime {

/// A non-blocking stream of the current device's primary context. Move-only.
class Stream {
public:
  /// Throws CudaError (no driver, or a driver without streams).
  static Stream create();
  Stream() = default;
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;
  ~Stream();

  /// The CUstream, as launches take it; null for an empty Stream.
  void *handle() const { return stream_; }
  const Device *device() const { return device_; }

private:
  void release() noexcept;
  const Device *device_ = nullptr;
  ::CUstream_st *stream_ = nullptr;
};

/// An instantiated CUDA graph. Move-only.
class Graph {
public:
  /// Captures what `launches` enqueues on `stream` (which must not be the
  /// legacy default stream: it cannot be captured). If `launches` throws,
  /// or the capture breaks, the capture is ended, nothing is kept, and
  /// the error propagates (a broken capture: CudaError naming why).
  static Graph capture(void *stream, const std::function<void()> &launches);
  Graph() = default;
  Graph(Graph &&other) noexcept;
  Graph &operator=(Graph &&other) noexcept;
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  ~Graph();

  /// Enqueues one replay on `stream`; asynchronous.
  void launch(void *stream) const;
  /// Kernel launches (and other nodes) the graph holds.
  size_t numNodes() const { return nodes_; }

private:
  void release() noexcept;
  const Device *device_ = nullptr;
  ::CUgraph_st *graph_ = nullptr;
  ::CUgraphExec_st *exec_ = nullptr;
  size_t nodes_ = 0;
};

} // namespace tilec::runtime
