//===- KernelCostModel.cpp - Model stack and factory ----------------------===//

#include "perf/CostModel/KernelCostModel.h"
#include "perf/CostModel/RooflineModel.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace perf;

KernelCostModel::~KernelCostModel() = default;

void KernelCostStack::add(std::unique_ptr<KernelCostModel> model) {
  models.push_back(std::move(model));
}

KernelCost KernelCostStack::estimate(const KernelDesc &kernel,
                                     const GpuSpec &gpu) const {
  for (const auto &model : models)
    if (std::optional<KernelCost> cost = model->estimate(kernel, gpu))
      return *cost;
  KernelCost none;
  none.model = "none";
  return none;
}

llvm::Expected<std::unique_ptr<KernelCostModel>>
perf::createKernelCostModel(llvm::StringRef name,
                            const CostModelOptions &options) {
  if (name == "roofline")
    return std::make_unique<RooflineModel>(options.computeEfficiency,
                                           options.memoryEfficiency);
  return llvm::createStringError("unknown kernel cost model '" + name +
                                 "' (known: roofline)");
}

llvm::Expected<KernelCostStack>
perf::createKernelCostStack(llvm::StringRef names,
                            const CostModelOptions &options) {
  KernelCostStack stack;
  llvm::SmallVector<llvm::StringRef> parts;
  names.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef part : parts) {
    auto model = createKernelCostModel(part.trim(), options);
    if (!model)
      return model.takeError();
    stack.add(std::move(*model));
  }
  if (stack.empty())
    return llvm::createStringError("empty kernel cost model list");
  return stack;
}
