//===- ElementwiseOps.h - The element-wise ops perf-bench runs --*- C++ -*-===//
//
// perf-opt names an element-wise kernel by its ATen op ("pow", "where",
// "native_dropout", "gelu_bwd", ...) and its size (n elements, `in` inputs
// of n elements, one output). perf-bench runs each one as a kernel of that
// size doing the arithmetic of the op's class: the operands combined, then a
// function of the result. Fills write without reading, cumsum scans and
// nonzero selects (CUB, as PyTorch does). This table is the one place that
// says which names perf-bench runs and how; the kernel key reader accepts
// exactly these names and the CUDA kernels read their semantics from it.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_BENCH_ELEMENTWISEOPS_H
#define PERF_BENCH_ELEMENTWISEOPS_H

#include <string>
#include <vector>

namespace bench {

/// How an element-wise kernel walks its operands.
enum class ElementwiseShape {
  Pointwise, // out[i] = map(combine(in0[i], in1[i], ...))
  Fill,      // out[i] = a constant; the inputs, if any, give only the shape
  Arange,    // out[i] = i
  Scan,      // inclusive prefix sum of in0 (cumsum)
  NonZero    // the indices of in0's non-zero elements, and their count
};

/// How the inputs of a pointwise op are folded, left to right.
enum class Combine {
  Add,
  Sub,
  RSub, // b - a
  Mul,
  Div,
  Max,
  Min,
  Pow,
  Less,
  LessEqual,
  Greater,
  GreaterEqual,
  Equal,
  NotEqual,
  Select // where(a, b, c): a > 0 ? b : c, then the next inputs added
};

/// The function applied to the combined value.
enum class Map {
  Identity,
  Relu,
  Gelu,
  Silu,
  Sigmoid,
  Tanh,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Abs,
  Neg,
  Half, // 0.5 x (perf's "scale")
  Square,
  Sin,
  Cos,
  Erf,
  Floor,
  Dropout, // x * 2 where a hash of the index passes, else 0 (p = 0.5)
  NonZeroTest
};

struct ElementwiseOp {
  ElementwiseShape shape = ElementwiseShape::Pointwise;
  Combine combine = Combine::Add;
  Map map = Map::Identity;
};

/// The op perf-bench runs for `name`: the table's base names, an in-place
/// variant with a trailing '_' ("index_put_"), and a backward with "_bwd" or
/// "_backward" (the output gradient times the base op's function of the
/// saved input: a product, then the base op's map). False for names outside
/// the table.
bool lookupElementwiseOp(const std::string &name, ElementwiseOp &out);

/// The table's base names, sorted (for docs and error messages).
std::vector<std::string> elementwiseOpNames();

} // namespace bench

#endif // PERF_BENCH_ELEMENTWISEOPS_H
