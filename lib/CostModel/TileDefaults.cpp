//===- TileDefaults.cpp - Built-in tile model coefficients ----------------===//
//
// Fitted by `perf-train --neusight ../shared/data/kernels/neusight` on all
// five GPUs of the NeuSight data (P100, P4, T4, V100, A100); perf-train
// writes the same numbers to tile.json, which overrides these.
//
//===----------------------------------------------------------------------===//

#include "perf/CostModel/TileModel.h"

using namespace perf;

TileParamsSet perf::defaultTileParams() {
  TileParamsSet set;
  TileParams gemm;
  gemm.overheadUs = 5;
  set["gemm"] = gemm;
  TileParams conv;
  conv.overheadUs = 5;
  set["conv2d"] = conv;
  return set;
}
