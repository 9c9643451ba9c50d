// CudaQueue's recording (stream capture) and CudaGraph's replay.
#include "graph.hpp"

#include <memory>

#include "queue.hpp"

namespace tessera::cuda {

CudaGraph::CudaGraph(CudaBackend& owner, cudaGraph_t graph, std::uint64_t generation)
    : owner_(owner), graph_(graph), generation_(generation) {
  const cudaError_t err = cudaGraphInstantiate(&exec_, graph_, 0);
  if (err != cudaSuccess) {
    (void)cudaGraphDestroy(graph_);
    check(err, "cudaGraphInstantiate(&exec_, graph_, 0)", __FILE__, __LINE__);
  }
}

CudaGraph::~CudaGraph() {
  (void)cudaSetDevice(owner_.device());
  // A launched graph may still run: CUDA defers the release of an executable graph's resources
  // until its launches have completed.
  (void)cudaGraphExecDestroy(exec_);
  (void)cudaGraphDestroy(graph_);
}

bool CudaGraph::launch(QueueImpl& q) {
  // A kernel of the graph would read or write scratch that has since been freed (and perhaps
  // handed to someone else): refuse rather than corrupt memory.
  if (scratch_generation() != generation_) return false;
  owner_.make_current();
  TESSERA_CUDA_CHECK(cudaGraphLaunch(exec_, stream_of(q)));
  return true;
}

void CudaQueue::begin_capture() {
  owner_.make_current();
  TESSERA_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeRelaxed));
  // Scratch freed from here on may be in the recording: the graph is then stale from birth.
  capture_generation_ = scratch_generation();
}

std::shared_ptr<GraphImpl> CudaQueue::end_capture() {
  owner_.make_current();
  cudaGraph_t graph = nullptr;
  const cudaError_t err = cudaStreamEndCapture(stream_, &graph);
  if (err != cudaSuccess || graph == nullptr) {
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    (void)cudaGetLastError();  // the invalidated capture's error is reported here, not by the next launch
    throw Error("cuda: recording a graph failed (" + cuda_error_text(err == cudaSuccess ? cudaErrorStreamCaptureInvalidated : err) +
                "): an operation recorded on the queue waited for the device or could not be recorded; nothing of it ran");
  }
  return std::make_shared<CudaGraph>(owner_, graph, capture_generation_);
}

}  // namespace tessera::cuda
