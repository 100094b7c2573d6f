#include "runtime/Graph.h"

#include "runtime/CudaDriver.h"

#include <utility>

namespace tilec::runtime {

namespace {
const CudaDriver &driver() { return CudaDriver::initialized(); }
} // namespace

Stream Stream::create() {
  Stream s;
  s.device_ = &Device::current();
  auto create = CudaDriver::need(driver().cuStreamCreate, "cuStreamCreate");
  check(create(&s.stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  return s;
}

Stream::Stream(Stream &&other) noexcept
    : device_(other.device_), stream_(std::exchange(other.stream_, nullptr)) {}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

Stream::~Stream() { release(); }

void Stream::release() noexcept {
  if (!stream_)
    return;
  // Destroying a stream with work queued is allowed: the driver releases
  // it once that work is done.
  if (const CudaDriver *d = CudaDriver::get(); d && d->cuStreamDestroy)
    d->cuStreamDestroy(stream_);
  stream_ = nullptr;
}

Graph Graph::capture(void *stream, const std::function<void()> &launches) {
  if (!stream)
    throw CudaError("cannot capture the legacy default stream into a CUDA graph: "
                    "capture a stream of your own (tilec::Stream)");
  const CudaDriver &d = driver();
  auto begin = CudaDriver::need(d.cuStreamBeginCapture, "cuStreamBeginCapture_v2");
  auto end = CudaDriver::need(d.cuStreamEndCapture, "cuStreamEndCapture");
  auto instantiate =
      CudaDriver::need(d.cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  CudaDriver::need(d.cuGraphLaunch, "cuGraphLaunch");
  CudaDriver::need(d.cuGraphExecDestroy, "cuGraphExecDestroy");
  auto destroy = CudaDriver::need(d.cuGraphDestroy, "cuGraphDestroy");
  auto cuStream = static_cast<CUstream>(stream);

  Graph g;
  g.device_ = &Device::current();
  check(begin(cuStream, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL), "cuStreamBeginCapture");
  try {
    launches();
  } catch (...) {
    // End the capture so that the stream is usable again; what was
    // captured is dropped.
    CUgraph partial = nullptr;
    if (end(cuStream, &partial) == CUDA_SUCCESS && partial)
      destroy(partial);
    throw;
  }
  CUresult ended = end(cuStream, &g.graph_);
  if (ended != CUDA_SUCCESS)
    throw CudaError("capturing a CUDA graph failed: " + errorText(ended) +
                        " (something on the stream or this thread could not be "
                        "captured: an allocation, a synchronisation, a first launch "
                        "that compiled and loaded a kernel?)",
                    ended);
  if (d.cuGraphGetNodes)
    d.cuGraphGetNodes(g.graph_, nullptr, &g.nodes_);
  check(instantiate(&g.exec_, g.graph_, 0), "cuGraphInstantiateWithFlags");
  return g;
}

Graph::Graph(Graph &&other) noexcept
    : device_(other.device_), graph_(std::exchange(other.graph_, nullptr)),
      exec_(std::exchange(other.exec_, nullptr)), nodes_(other.nodes_) {}

Graph &Graph::operator=(Graph &&other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    graph_ = std::exchange(other.graph_, nullptr);
    exec_ = std::exchange(other.exec_, nullptr);
    nodes_ = other.nodes_;
  }
  return *this;
}

Graph::~Graph() { release(); }

void Graph::release() noexcept {
  const CudaDriver *d = CudaDriver::get();
  if (exec_ && d && d->cuGraphExecDestroy)
    d->cuGraphExecDestroy(exec_);
  if (graph_ && d && d->cuGraphDestroy)
    d->cuGraphDestroy(graph_);
  exec_ = nullptr;
  graph_ = nullptr;
}

void Graph::launch(void *stream) const {
  if (!exec_)
    throw CudaError("launch of an empty CUDA graph");
  check(driver().cuGraphLaunch(exec_, static_cast<CUstream>(stream)), "cuGraphLaunch");
}

} // namespace tilec::runtime
