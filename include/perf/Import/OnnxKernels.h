//===- OnnxKernels.h - ONNX nodes as the kernels a GPU runtime launches -*- C++
//-*-===//
//
// MLIR-free lowering of a loaded ONNX graph: each node becomes the kernels a
// cuDNN/cuBLAS-backed runtime launches for it (Benanza's layer -> API map).
// The MLIR importer builds its ops from this, and the MAC and FLOP counts of
// the analyses come from the same descriptors.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_IMPORT_ONNXKERNELS_H
#define PERF_IMPORT_ONNXKERNELS_H

#include "perf/Support/KernelDesc.h"
#include "perf/Import/OnnxModel.h"
#include "llvm/ADT/StringMap.h"
#include <map>
#include <string>
#include <vector>

namespace perf {

/// One kernel of a node, with a short role ("conv", "bias", "gemm", ...).
struct OnnxKernel {
  std::string role;
  KernelDesc desc;
};

struct OnnxLoweredNode {
  const OnnxNode *node = nullptr;
  /// Pure metadata (Reshape, Identity, Shape, weight materialisation): no
  /// kernels and no cost.
  bool metadataOnly = false;
  /// False when no lowering exists; the node is then listed in
  /// OnnxLowering::unsupported and has no kernels.
  bool supported = true;
  std::vector<OnnxKernel> kernels;
  /// The node whose kernel does this node's work too, as eager PyTorch runs
  /// one kernel where the export spells several nodes (a Linear's bias Add
  /// in the GEMM's epilogue, the five nodes of an exact GELU); empty
  /// otherwise. Such a node keeps its data flow and has no kernels.
  std::string fusedInto;
  /// A Dropout: nothing at inference, a kernel in a training step (the
  /// importer marks the op `perf.training_dropout` for the training
  /// synthesis).
  bool trainingDropout = false;
};

struct OnnxLowering {
  std::vector<OnnxLoweredNode> nodes;
  /// Op types without a lowering (domain-qualified when not ai.onnx) and how
  /// many nodes of each the model has.
  std::map<std::string, unsigned> unsupported;
  /// Trainable parameters: floating-point weights the compute nodes read
  /// (initializers, weights exported as graph inputs, ConstantOfShape
  /// stand-ins), by value name, with their element counts. BatchNorm running
  /// statistics are not trained and are left out.
  std::vector<std::pair<std::string, int64_t>> parameters;
  /// Distinct trainable parameters: `parameters` less the copies of
  /// another (OnnxValueInfo::duplicateOf), which are one parameter read
  /// twice.
  int64_t numParameters = 0;
};

/// Lowers every node of the main graph (Loop/If bodies are folded into the
/// node that owns them).
OnnxLowering lowerOnnxModel(const OnnxModel &model);

/// Multiply-accumulates of a kernel: GEMM, convolution and attention work;
/// zero for kinds without multiply-adds.
double kernelMacs(const KernelDesc &desc);

} // namespace perf

#endif // PERF_IMPORT_ONNXKERNELS_H
