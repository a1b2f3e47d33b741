//===- StepVerifier.cpp - Verifying a module of perf graphs ---------------===//

#include "perf/Dialect/StepVerifier.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "perf/Dialect/PerfDialect.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Support/TupleKeyInfo.h"
#include "llvm/ADT/DenseSet.h"
#include <array>
#include <tuple>

using namespace perf;
using namespace mlir;

namespace {
/// How many of an op's traits check its regions (MLIR runs them when it
/// leaves the op).
template <typename ConcreteOp, template <typename> class... Traits>
constexpr unsigned countRegionTraits(Op<ConcreteOp, Traits...> *) {
  return (0u + ... +
          unsigned(op_definition_impl::detect_has_verify_region_trait<
                   Traits<ConcreteOp>>::value));
}

// verifyGraph proves a graph's region traits itself: its isolation from
// above, which must be the only one.
static_assert(countRegionTraits(static_cast<GraphOp *>(nullptr)) == 1 &&
                  GraphOp::hasTrait<OpTrait::IsIsolatedFromAbove>() &&
                  std::is_same_v<decltype(&GraphOp::verifyRegions),
                                 LogicalResult (OpState::*)()>,
              "a perf.graph that checks more of its region: verifyGraph "
              "must run those checks");

/// Proves a module valid without a diagnostic, or fails (having said
/// nothing that anyone hears).
class QuickVerifier {
public:
  /// `moduleChecked`: the module's own checks passed before its graphs'
  /// bodies were read (StepVerifier::checkTopLevel).
  LogicalResult verifyModule(ModuleOp module, bool moduleChecked) {
    // The module without the ops in it: its invariants, its symbol table
    // (which walks every nested op for symbol uses), its block's operands.
    if (!moduleChecked && failed(verify(module, /*verifyRecursively=*/false)))
      return failure();
    for (Operation &op : *module.getBody()) {
      // Successors are left to MLIR (allowed on a block's last op only).
      if (op.getNumSuccessors() != 0)
        return failure();
      auto graph = dyn_cast<GraphOp>(op);
      if (failed(graph ? verifyGraph(graph) : verify(&op)))
        return failure();
    }
    return success();
  }

private:
  /// The last few ops of a body visited, compared by pointer. An operand
  /// made by one of them is made before its user in the same block;
  /// nearly every operand of a step is, and asking the block's op order for
  /// any other first numbers every op of the block (a walk over the whole
  /// body before this one: 4-5% of a 100k-kernel estimate).
  class RecentOps {
  public:
    bool contains(Operation *op) const { return llvm::is_contained(ops, op); }
    void push(Operation *op) {
      ops[next] = op;
      next = (next + 1) % ops.size();
    }

  private:
    std::array<Operation *, 16> ops = {};
    size_t next = 0;
  };

  LogicalResult verifyGraph(GraphOp graph) {
    // What MLIR's verifier checks of the graph op on entering it: its
    // attributes' dialect checks, its invariants (GraphOp::verify: a body
    // of one block without arguments), an entry block without predecessors.
    Operation *graphOp = graph;
    if (failed(verifyDiscardableAttrs(graphOp)))
      return failure();
    RegisteredOperationName info = *graphOp->getRegisteredInfo();
    if (failed(info.verifyInvariants(graphOp)))
      return failure();
    Block &body = graph.getBodyBlock();
    if (!body.hasNoPredecessors() || body.getNumArguments() != 0)
      return failure();
    RecentOps recent;
    for (Operation &op : body) {
      if (op.getNumSuccessors() != 0)
        return failure();
      // Dominance in a block: each operand made by an op before this one
      // (a graph's body has no arguments). A repeat's body is checked with
      // the repeat below.
      for (Value operand : op.getOperands()) {
        Operation *producer = operand ? operand.getDefiningOp() : nullptr;
        if (!producer)
          return failure();
        if (recent.contains(producer))
          continue;
        if (producer->getBlock() != &body || !producer->isBeforeInBlock(&op))
          return failure();
      }
      recent.push(&op);
      auto fw = dyn_cast<FrameworkOp>(op);
      if (fw && isValid(fw))
        continue;
      // What MLIR's verifier checks of this op and everything in it; and
      // the module's symbol table would check the symbols each uses, which
      // it did not see if it was checked before the body was read; and the
      // graph's isolation (below) for the ops nested in it.
      if (failed(verify(&op)) || usesSymbols(op) ||
          !usesValuesWithin(op, graph.getBody()))
        return failure();
    }
    // And on leaving it: its region traits, which are its isolation from
    // above alone, proven by now: each op of the body reads values of the
    // body, and each op nested in one reads values within the graph.
    // (MLIR's check walked every op of the body again.)
    return success();
  }

  /// Whether every op nested in `op` reads values defined within `region`
  /// (MLIR's IsolatedFromAbove check, which does not look into ops isolated
  /// themselves: looking there too only refuses more).
  static bool usesValuesWithin(Operation &op, Region &region) {
    return !op.walk([&](Operation *nested) {
                if (nested == &op)
                  return WalkResult::advance();
                for (Value operand : nested->getOperands()) {
                  Region *from = operand.getParentRegion();
                  if (!from || !region.isAncestor(from))
                    return WalkResult::interrupt();
                }
                return WalkResult::advance();
              }).wasInterrupted();
  }

  /// Whether `op` or an op in it names symbols (SymbolUserOpInterface).
  /// No perf.op does: it is not walked.
  static bool usesSymbols(Operation &op) {
    static_assert(!FrameworkOp::hasTrait<SymbolUserOpInterface::Trait>(),
                  "a perf.op that uses symbols: verifyGraph must check them");
    return op
        .walk([](Operation *nested) {
          return isa<SymbolUserOpInterface>(nested) ? WalkResult::interrupt()
                                                    : WalkResult::advance();
        })
        .wasInterrupted();
  }

  /// The dialect checks of `op`'s discardable attributes, as MLIR's
  /// verifier runs them.
  static LogicalResult verifyDiscardableAttrs(Operation *op) {
    for (NamedAttribute attr : op->getDiscardableAttrDictionary())
      if (Dialect *dialect = attr.getNameDialect())
        if (failed(dialect->verifyOperationAttribute(op, attr)))
          return failure();
    return success();
  }

  /// Whether `op` is valid as MLIR's verifier would find it, its operands'
  /// dominance aside: no region (the body verifyGraph does not look into), each
  /// discardable attribute's dialect check (perf's looks at the attribute
  /// only, so a dictionary passes for any op), and the op's invariants
  /// (ODS, traits, FrameworkOp::verify), which read nothing but its three
  /// properties and its counts of regions and successors (its operands and
  /// results are of any type): each distinct triple is checked once, on the
  /// first op that holds it. False leaves the op to MLIR's verifier.
  bool isValid(FrameworkOp fw) {
    Operation *op = fw;
    if (op->getNumRegions() != 0)
      return false;
    DictionaryAttr attrs = op->getDiscardableAttrDictionary();
    if (!attrs.empty() && !validAttrs.contains(attrs)) {
      bool perfOnly = llvm::all_of(attrs, [](NamedAttribute attr) {
        Dialect *dialect = attr.getNameDialect();
        return !dialect || isa<PerfDialect>(dialect);
      });
      if (!perfOnly || failed(verifyDiscardableAttrs(op)))
        return false;
      validAttrs.insert(attrs);
    }
    PropertyKey key{fw.getOpNameAttr(), fw.getDeviceAttr(), fw.getWorkAttr()};
    if (validProperties.contains(key))
      return true;
    if (failed(op->getName().getRegisteredInfo()->verifyInvariants(op)))
      return false;
    validProperties.insert(key);
    return true;
  }

  using PropertyKey = std::tuple<StringAttr, IntegerAttr, ArrayAttr>;
  llvm::DenseSet<PropertyKey, TupleKeyInfo<PropertyKey>> validProperties;
  llvm::DenseSet<DictionaryAttr> validAttrs;
};
} // namespace

/// Runs `check` with every diagnostic dropped: anything said means "not
/// proven", and MLIR's verifier then gives the answer and says why, in its
/// words and its order.
static bool quietly(MLIRContext *context,
                    llvm::function_ref<LogicalResult()> check) {
  ScopedDiagnosticHandler quiet(context,
                                [](Diagnostic &) { return success(); });
  return succeeded(check());
}

void StepVerifier::checkTopLevel(Block &ops) {
  checkedModule = nullptr;
  // A file written from a module holds that module alone.
  if (!llvm::hasSingleElement(ops))
    return;
  auto module = dyn_cast<ModuleOp>(ops.front());
  if (module && quietly(module.getContext(), [&] {
        return mlir::verify(module, /*verifyRecursively=*/false);
      }))
    checkedModule = module;
}

LogicalResult StepVerifier::verify(ModuleOp module) {
  bool moduleChecked = module.getOperation() == checkedModule;
  if (quietly(module.getContext(), [&] {
        return QuickVerifier().verifyModule(module, moduleChecked);
      }))
    return success();
  return mlir::verify(module);
}

LogicalResult perf::verifyStep(ModuleOp module) {
  return StepVerifier().verify(module);
}
