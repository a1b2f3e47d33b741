//===- ElementwiseOps.cpp - The element-wise ops perf-bench runs ----------===//

#include "bench/ElementwiseOps.h"

#include <algorithm>
#include <map>

using namespace bench;

namespace {
using S = ElementwiseShape;
using C = Combine;
using M = Map;

struct Entry {
  const char *name;
  ElementwiseOp op;
};

// The ATen ops perf's importers and training synthesis name element-wise
// kernels after (lib/Import/Trace/TraceKernels.cpp's rule table, the config
// and fx importers, the ONNX importer's fused "bias", "sum", "sub_square"
// and "lrn", DLRM's "tril_gather", "grad_accumulate" and "reduce" of the
// synthesized backward), each with the arithmetic class it runs. Ops that move
// data without arithmetic (index, gather, scatter, repeat) run as copies of
// their size: the rows they move are contiguous in the transformer steps perf
// builds.
const Entry kTable[] = {
    // Operands combined.
    {"add", {S::Pointwise, C::Add, M::Identity}},
    {"sub", {S::Pointwise, C::Sub, M::Identity}},
    {"rsub", {S::Pointwise, C::RSub, M::Identity}},
    {"mul", {S::Pointwise, C::Mul, M::Identity}},
    {"div", {S::Pointwise, C::Div, M::Identity}},
    {"max", {S::Pointwise, C::Max, M::Identity}},
    {"maximum", {S::Pointwise, C::Max, M::Identity}},
    {"min", {S::Pointwise, C::Min, M::Identity}},
    {"minimum", {S::Pointwise, C::Min, M::Identity}},
    {"pow", {S::Pointwise, C::Pow, M::Identity}},
    {"remainder", {S::Pointwise, C::Div, M::Floor}},
    {"addcmul", {S::Pointwise, C::Mul, M::Identity}},
    {"addcdiv", {S::Pointwise, C::Div, M::Identity}},
    {"lerp", {S::Pointwise, C::Add, M::Half}},
    {"grad_accumulate", {S::Pointwise, C::Add, M::Identity}},
    {"lt", {S::Pointwise, C::Less, M::Identity}},
    {"le", {S::Pointwise, C::LessEqual, M::Identity}},
    {"gt", {S::Pointwise, C::Greater, M::Identity}},
    {"ge", {S::Pointwise, C::GreaterEqual, M::Identity}},
    {"eq", {S::Pointwise, C::Equal, M::Identity}},
    {"ne", {S::Pointwise, C::NotEqual, M::Identity}},
    {"logical_and", {S::Pointwise, C::Mul, M::NonZeroTest}},
    {"logical_or", {S::Pointwise, C::Max, M::NonZeroTest}},
    {"bitwise_and", {S::Pointwise, C::Min, M::Identity}},
    {"bitwise_or", {S::Pointwise, C::Max, M::Identity}},
    {"bias", {S::Pointwise, C::Add, M::Identity}},
    {"sum", {S::Pointwise, C::Add, M::Identity}},
    {"sub_square", {S::Pointwise, C::Sub, M::Square}},
    {"where", {S::Pointwise, C::Select, M::Identity}},
    {"masked_fill", {S::Pointwise, C::Select, M::Identity}},
    {"masked_scatter", {S::Pointwise, C::Select, M::Identity}},
    // A function of one operand.
    {"copy", {S::Pointwise, C::Add, M::Identity}},
    {"clone", {S::Pointwise, C::Add, M::Identity}},
    {"nan_to_num", {S::Pointwise, C::Add, M::Identity}},
    {"scale", {S::Pointwise, C::Add, M::Half}},
    {"relu", {S::Pointwise, C::Add, M::Relu}},
    {"threshold", {S::Pointwise, C::Add, M::Relu}},
    {"clamp", {S::Pointwise, C::Add, M::Relu}},
    {"clamp_min", {S::Pointwise, C::Add, M::Relu}},
    {"clamp_max", {S::Pointwise, C::Add, M::Relu}},
    {"hardtanh", {S::Pointwise, C::Add, M::Relu}},
    {"leaky_relu", {S::Pointwise, C::Add, M::Relu}},
    {"gelu", {S::Pointwise, C::Add, M::Gelu}},
    {"silu", {S::Pointwise, C::Add, M::Silu}},
    {"sigmoid", {S::Pointwise, C::Add, M::Sigmoid}},
    {"tanh", {S::Pointwise, C::Add, M::Tanh}},
    {"exp", {S::Pointwise, C::Add, M::Exp}},
    {"expm1", {S::Pointwise, C::Add, M::Exp}},
    {"elu", {S::Pointwise, C::Add, M::Exp}},
    {"log", {S::Pointwise, C::Add, M::Log}},
    {"log1p", {S::Pointwise, C::Add, M::Log}},
    {"softplus", {S::Pointwise, C::Add, M::Log}},
    {"sqrt", {S::Pointwise, C::Add, M::Sqrt}},
    {"rsqrt", {S::Pointwise, C::Add, M::Rsqrt}},
    {"reciprocal", {S::Pointwise, C::Add, M::Reciprocal}},
    {"abs", {S::Pointwise, C::Add, M::Abs}},
    {"sign", {S::Pointwise, C::Add, M::Abs}},
    {"neg", {S::Pointwise, C::Add, M::Neg}},
    {"square", {S::Pointwise, C::Add, M::Square}},
    {"sin", {S::Pointwise, C::Add, M::Sin}},
    {"cos", {S::Pointwise, C::Add, M::Cos}},
    {"erf", {S::Pointwise, C::Add, M::Erf}},
    // Local response normalization: a power of a sum of squares over
    // neighbouring channels, which the cache serves; one read, one write.
    {"lrn", {S::Pointwise, C::Add, M::Rsqrt}},
    {"floor", {S::Pointwise, C::Add, M::Floor}},
    {"ceil", {S::Pointwise, C::Add, M::Floor}},
    {"round", {S::Pointwise, C::Add, M::Floor}},
    {"dropout", {S::Pointwise, C::Add, M::Dropout}},
    {"native_dropout", {S::Pointwise, C::Add, M::Dropout}},
    {"isinf", {S::Pointwise, C::Add, M::NonZeroTest}},
    {"isnan", {S::Pointwise, C::Add, M::NonZeroTest}},
    {"logical_not", {S::Pointwise, C::Add, M::NonZeroTest}},
    {"bitwise_not", {S::Pointwise, C::Add, M::Neg}},
    // Data moved without arithmetic, and the broadcast of a reduction's
    // gradient ("reduce_bwd").
    {"index", {S::Pointwise, C::Add, M::Identity}},
    {"index_select", {S::Pointwise, C::Add, M::Identity}},
    {"gather", {S::Pointwise, C::Add, M::Identity}},
    {"masked_select", {S::Pointwise, C::Add, M::Identity}},
    {"repeat", {S::Pointwise, C::Add, M::Identity}},
    {"tril_gather", {S::Pointwise, C::Add, M::Identity}},
    {"index_put", {S::Pointwise, C::Add, M::Identity}},
    {"index_add", {S::Pointwise, C::Add, M::Identity}},
    {"index_copy", {S::Pointwise, C::Add, M::Identity}},
    {"scatter", {S::Pointwise, C::Add, M::Identity}},
    {"scatter_add", {S::Pointwise, C::Add, M::Identity}},
    {"reduce", {S::Pointwise, C::Add, M::Identity}},
    // Writes only; an input, if any, gives the shape.
    {"fill", {S::Fill, C::Add, M::Identity}},
    {"zero", {S::Fill, C::Add, M::Identity}},
    {"zeros", {S::Fill, C::Add, M::Identity}},
    {"zeros_like", {S::Fill, C::Add, M::Identity}},
    {"ones", {S::Fill, C::Add, M::Identity}},
    {"ones_like", {S::Fill, C::Add, M::Identity}},
    {"full", {S::Fill, C::Add, M::Identity}},
    {"full_like", {S::Fill, C::Add, M::Identity}},
    {"uniform", {S::Fill, C::Add, M::Identity}},
    {"normal", {S::Fill, C::Add, M::Identity}},
    {"bernoulli", {S::Fill, C::Add, M::Identity}},
    {"arange", {S::Arange, C::Add, M::Identity}},
    // Data-dependent.
    {"cumsum", {S::Scan, C::Add, M::Identity}},
    {"nonzero", {S::NonZero, C::Add, M::Identity}},
};

const std::map<std::string, ElementwiseOp> &table() {
  static const std::map<std::string, ElementwiseOp> byName = [] {
    std::map<std::string, ElementwiseOp> m;
    for (const Entry &e : kTable)
      m.emplace(e.name, e.op);
    return m;
  }();
  return byName;
}

bool findBase(const std::string &name, ElementwiseOp &out) {
  auto it = table().find(name);
  if (it == table().end())
    return false;
  out = it->second;
  return true;
}
} // namespace

bool bench::lookupElementwiseOp(const std::string &name, ElementwiseOp &out) {
  if (findBase(name, out))
    return true;
  // A backward reads the output gradient and the saved operands: their
  // product, then the base op's function (gelu_bwd evaluates erf, the
  // dropout backward its mask).
  for (const char *suffix : {"_bwd", "_backward"}) {
    std::string s(suffix);
    if (name.size() > s.size() &&
        name.compare(name.size() - s.size(), s.size(), s) == 0) {
      ElementwiseOp base;
      if (!findBase(name.substr(0, name.size() - s.size()), base) ||
          base.shape != ElementwiseShape::Pointwise)
        return false;
      out = ElementwiseOp{ElementwiseShape::Pointwise, Combine::Mul, base.map};
      return true;
    }
  }
  // In place ("add_", "index_put_") runs as the op.
  if (name.size() > 1 && name.back() == '_')
    return findBase(name.substr(0, name.size() - 1), out);
  return false;
}

std::vector<std::string> bench::elementwiseOpNames() {
  std::vector<std::string> names;
  for (const auto &[name, op] : table())
    names.push_back(name);
  return names;
}
