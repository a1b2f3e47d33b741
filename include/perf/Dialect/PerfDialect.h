//===- PerfDialect.h - The perf dialect -------------------------*- C++ -*-===//

#ifndef PERF_DIALECT_PERFDIALECT_H
#define PERF_DIALECT_PERFDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "perf/Dialect/PerfOpsDialect.h.inc"

namespace perf {
/// The names of the discardable attributes PerfDialect.td declares (the
/// generated helpers hold the one spelling of each).
inline constexpr ::llvm::StringLiteral kLatencyAttr =
    PerfDialect::LatencyUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kCostModelAttr =
    PerfDialect::CostModelAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kStartAttr =
    PerfDialect::StartUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kEndAttr =
    PerfDialect::EndUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kOverheadAttr =
    PerfDialect::OverheadUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kEnteredRegionAttr =
    PerfDialect::EnteredRegionAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kLaunchCallAttr =
    PerfDialect::LaunchCallAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kLaunchAttr =
    PerfDialect::LaunchUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kEstimateAttr =
    PerfDialect::EstimateAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kDbMissesAttr =
    PerfDialect::DbMissesAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kMeasuredOnAttr =
    PerfDialect::MeasuredOnAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kMeasuredLatencyAttr =
    PerfDialect::MeasuredLatencyUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kMeasuredStartAttr =
    PerfDialect::MeasuredStartUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kMeasuredTimeAttr =
    PerfDialect::MeasuredUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kMeasuredIterationAttr =
    PerfDialect::MeasuredIterationAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kRetargetAttr =
    PerfDialect::RetargetAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTraceDeviceAttr =
    PerfDialect::TraceDeviceAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kBaselineAttr =
    PerfDialect::BaselineUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTransformsAttr =
    PerfDialect::TransformsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kCopyInCallAttr =
    PerfDialect::CopyInCallAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kLaunchQueueDepthAttr =
    PerfDialect::LaunchQueueDepthAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kHostTailAttr =
    PerfDialect::HostTailUsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kHostTableAttr =
    PerfDialect::HostTableAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kLayerAttr =
    PerfDialect::LayerAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kAutogradPairAttr =
    PerfDialect::AutogradPairAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kExpertAttr =
    PerfDialect::ExpertAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kRouterAttr =
    PerfDialect::RouterAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kParamsAttr =
    PerfDialect::ParamsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kParametersAttr =
    PerfDialect::ParametersAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kGradBytesAttr =
    PerfDialect::GradBytesAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTrainingDropoutAttr =
    PerfDialect::TrainingDropoutAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kModelConfigAttr =
    PerfDialect::ModelConfigAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kCudaGraphAttr =
    PerfDialect::CudaGraphAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kBatchAttr =
    PerfDialect::BatchAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kBranchesAttr =
    PerfDialect::BranchesAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kFusedAttr =
    PerfDialect::FusedAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kFusedOpsAttr =
    PerfDialect::FusedOpsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kFusedElementwiseAttr =
    PerfDialect::FusedElementwiseAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kFusedConvBiasActAttr =
    PerfDialect::FusedConvBiasActAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kLatencyScaleAttr =
    PerfDialect::LatencyScaleAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kDataParallelAttr =
    PerfDialect::DataParallelAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTensorParallelAttr =
    PerfDialect::TensorParallelAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kSequenceParallelAttr =
    PerfDialect::SequenceParallelAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTpAllReducesAttr =
    PerfDialect::TpAllReducesAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kKvCacheAttr =
    PerfDialect::KvCacheAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTensorSplitAttr =
    PerfDialect::TpSplitAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kPipelineParallelAttr =
    PerfDialect::PipelineParallelAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kStageAttr =
    PerfDialect::StageAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kChunkAttr =
    PerfDialect::ChunkAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kMicrobatchAttr =
    PerfDialect::MicrobatchAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kBucketAttr =
    PerfDialect::BucketAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kZeroAttr =
    PerfDialect::ZeroAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kExpertParallelAttr =
    PerfDialect::ExpertParallelAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kExpertExchangeAttr =
    PerfDialect::ExpertExchangeAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kRecomputeAttr =
    PerfDialect::RecomputeAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kRecomputedAttr =
    PerfDialect::RecomputedAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kShardAttr =
    PerfDialect::ShardAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kEmbeddingShardsAttr =
    PerfDialect::EmbeddingShardsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kAlgorithmAttr =
    PerfDialect::AlgorithmAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kProtocolAttr =
    PerfDialect::ProtocolAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kHostLinkShareAttr =
    PerfDialect::HostLinkShareAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kPaiAttr =
    PerfDialect::PaiAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kPaiArchitectureAttr =
    PerfDialect::PaiArchitectureAttrHelper::getNameStr();

/// A discardable attribute (a perf.* name above, or another dialect's
/// dotted name) of `op`, or null. Operation::getAttr first asks an op with
/// properties for an inherent attribute of that name, comparing it with each
/// of the op's; a dotted name is never one, so the dictionary is read
/// directly (the passes that walk every op read several such names per op).
template <typename AttrT = ::mlir::Attribute>
AttrT getDiscardable(::mlir::Operation *op, ::llvm::StringRef name) {
  return ::llvm::dyn_cast_or_null<AttrT>(op->getDiscardableAttr(name));
}
/// The same for a name the caller has uniqued once (the dictionary lookup
/// compares pointers, not strings).
template <typename AttrT = ::mlir::Attribute>
AttrT getDiscardable(::mlir::Operation *op, ::mlir::StringAttr name) {
  return ::llvm::dyn_cast_or_null<AttrT>(op->getDiscardableAttr(name));
}
inline bool hasDiscardable(::mlir::Operation *op, ::llvm::StringRef name) {
  return static_cast<bool>(op->getDiscardableAttr(name));
}
} // namespace perf

#endif // PERF_DIALECT_PERFDIALECT_H
