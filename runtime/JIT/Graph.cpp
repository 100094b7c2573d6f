// The public API's CUDA streams and graphs (include/tilec/tilec.h), over
// runtime/Graph.h: driver errors become tilec::Error.
#include "tilec/tilec.h"

#include "runtime/Graph.h"

namespace tilec {

namespace {
template <class F> auto translated(F &&f) -> decltype(f()) {
  try {
    return f();
  } catch (const runtime::CudaError &e) {
    throw Error(e.what());
  }
}
} // namespace

struct Stream::Impl {
  runtime::Stream stream;
};

Stream::Stream() = default;
Stream::Stream(Stream &&) noexcept = default;
Stream &Stream::operator=(Stream &&) noexcept = default;
Stream::~Stream() = default;

Stream Stream::create() {
  Stream s;
  s.impl_ = std::make_unique<Impl>(Impl{translated([] { return runtime::Stream::create(); })});
  return s;
}

void *Stream::handle() const { return impl_ ? impl_->stream.handle() : nullptr; }

void Stream::synchronize() const {
  if (impl_)
    translated([&] { runtime::synchronizeStream(impl_->stream.handle()); });
}

struct Graph::Impl {
  runtime::Graph graph;
};

Graph::Graph() = default;
Graph::Graph(Graph &&) noexcept = default;
Graph &Graph::operator=(Graph &&) noexcept = default;
Graph::~Graph() = default;

Graph Graph::capture(const Stream &stream, const std::function<void()> &launches) {
  Graph g;
  g.impl_ = std::make_unique<Impl>(
      Impl{translated([&] { return runtime::Graph::capture(stream.handle(), launches); })});
  return g;
}

void Graph::launch(const Stream &stream) const {
  if (!impl_)
    throw Error("launch of an empty Graph (Graph::capture makes them)");
  translated([&] { impl_->graph.launch(stream.handle()); });
}

size_t Graph::numNodes() const { return impl_ ? impl_->graph.numNodes() : 0; }

} // namespace tilec
