//===- KernelSignature.cpp - Canonical shape keys of the perf DB ----------===//

#include "perf/Support/KernelSignature.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace perf;

llvm::StringRef perf::kernelPassName(const KernelDesc &kernel) {
  switch (kernel.pass) {
  case KernelPass::Forward:
    return "fwd";
  case KernelPass::BackwardData:
    // Conv splits its backward pass in two; other kinds have one "bwd".
    return kernel.kind == KernelKind::Conv2d ? "dgrad" : "bwd";
  case KernelPass::BackwardWeight:
    return kernel.kind == KernelKind::Conv2d ? "wgrad" : "bwd";
  case KernelPass::Update:
    return "bwd";
  }
  return "fwd";
}

std::string perf::kernelSignature(const KernelDesc &d) {
  std::string out;
  llvm::raw_string_ostream os(out);
  llvm::StringRef pass = kernelPassName(d);
  switch (d.kind) {
  case KernelKind::Gemm:
    os << "b=" << d.batch << " m=" << d.m << " n=" << d.n << " k=" << d.k
       << " ta=" << (d.transA ? 1 : 0) << " tb=" << (d.transB ? 1 : 0);
    break;
  case KernelKind::Conv2d:
    os << "n=" << d.batch << " c=" << d.c << " h=" << d.h << " w=" << d.w
       << " k=" << d.outChannels << " r=" << d.r << " s=" << d.s
       << " sh=" << d.strideH << " sw=" << d.strideW << " ph=" << d.padH
       << " pw=" << d.padW << " dh=" << d.dilationH << " dw=" << d.dilationW
       << " g=" << d.groups << " pass=" << pass;
    break;
  case KernelKind::Elementwise:
    os << "n=" << d.numElements << " in=" << d.numInputs
       << " op=" << (d.op.empty() ? "unknown" : d.op);
    break;
  case KernelKind::Reduce:
  case KernelKind::Softmax:
  case KernelKind::LayerNorm:
    os << "rows=" << d.rows << " cols=" << d.cols;
    break;
  case KernelKind::EmbeddingBag:
    os << "t=" << d.numTables << " rows=" << d.tableRows << " d=" << d.dim
       << " b=" << d.batch << " l=" << d.pooling << " pass=" << pass;
    break;
  case KernelKind::Memcpy:
    os << "bytes=" << static_cast<int64_t>(d.totalBytes())
       << " dir=" << memcpyKindName(d.copyKind);
    break;
  case KernelKind::Transpose:
  case KernelKind::Concat:
    os << "n=" << d.numElements;
    break;
  case KernelKind::Pooling:
    os << "n=" << d.batch << " c=" << d.c << " h=" << d.h << " w=" << d.w
       << " r=" << d.r << " s=" << d.s << " sh=" << d.strideH
       << " sw=" << d.strideW << " ph=" << d.padH << " pw=" << d.padW
       << " pass=" << pass;
    break;
  case KernelKind::BatchNorm:
    os << "n=" << d.numElements << " c=" << d.c << " pass=" << pass;
    break;
  case KernelKind::Optimizer:
    os << "n=" << d.numElements << " op=" << (d.op.empty() ? "sgd" : d.op);
    break;
  case KernelKind::Attention:
  case KernelKind::Generic:
    os << "flops=" << llvm::format("%.0f", d.totalFlops())
       << " bytes=" << llvm::format("%.0f", d.totalBytes());
    break;
  }
  return out;
}

llvm::Expected<KernelDesc> perf::parseKernelSignature(llvm::StringRef kind,
                                                      llvm::StringRef sig) {
  std::optional<KernelKind> k = parseKernelKind(kind);
  if (!k)
    return llvm::createStringError("unknown kernel kind '" + kind + "'");
  KernelDesc d;
  d.kind = *k;
  llvm::SmallVector<llvm::StringRef> pairs;
  sig.split(pairs, ' ', -1, /*KeepEmpty=*/false);
  std::string pass;
  for (llvm::StringRef pair : pairs) {
    auto [key, value] = pair.split('=');
    auto setInt = [&](int64_t &out) -> llvm::Error {
      if (value.getAsInteger(10, out))
        return llvm::createStringError("signature '" + sig + "': '" + key +
                                       "' must be an integer");
      return llvm::Error::success();
    };
    llvm::Error err = llvm::Error::success();
    int64_t flag = 0;
    bool isConvLike =
        d.kind == KernelKind::Conv2d || d.kind == KernelKind::Pooling;
    if (key == "pass" || key == "op" || key == "dir") {
      if (key == "pass")
        pass = value.str();
      else if (key == "op")
        d.op = value.str();
      else
        d.copyKind = value == "h2d"   ? MemcpyKind::HostToDevice
                     : value == "d2h" ? MemcpyKind::DeviceToHost
                                      : MemcpyKind::DeviceToDevice;
      continue;
    }
    if (key == "flops" || key == "bytes") {
      double v = 0;
      if (value.getAsDouble(v))
        return llvm::createStringError("signature '" + sig + "': '" + key +
                                       "' must be a number");
      (key == "flops" ? d.flops : d.bytes) = v;
      continue;
    }
    if (key == "b")
      err = setInt(d.batch);
    else if (key == "m")
      err = setInt(d.m);
    else if (key == "n")
      err = d.kind == KernelKind::Gemm ? setInt(d.n)
            : isConvLike               ? setInt(d.batch)
                                       : setInt(d.numElements);
    else if (key == "k")
      err = d.kind == KernelKind::Gemm ? setInt(d.k) : setInt(d.outChannels);
    else if (key == "ta" || key == "tb") {
      err = setInt(flag);
      (key == "ta" ? d.transA : d.transB) = flag != 0;
    } else if (key == "c")
      err = setInt(d.c);
    else if (key == "h")
      err = setInt(d.h);
    else if (key == "w")
      err = setInt(d.w);
    else if (key == "r")
      err = setInt(d.r);
    else if (key == "s")
      err = setInt(d.s);
    else if (key == "sh")
      err = setInt(d.strideH);
    else if (key == "sw")
      err = setInt(d.strideW);
    else if (key == "ph")
      err = setInt(d.padH);
    else if (key == "pw")
      err = setInt(d.padW);
    else if (key == "dh")
      err = setInt(d.dilationH);
    else if (key == "dw")
      err = setInt(d.dilationW);
    else if (key == "g")
      err = setInt(d.groups);
    else if (key == "in")
      err = setInt(d.numInputs);
    else if (key == "rows")
      err = d.kind == KernelKind::EmbeddingBag ? setInt(d.tableRows)
                                               : setInt(d.rows);
    else if (key == "cols")
      err = setInt(d.cols);
    else if (key == "t")
      err = setInt(d.numTables);
    else if (key == "d")
      err = setInt(d.dim);
    else if (key == "l")
      err = setInt(d.pooling);
    else
      return llvm::createStringError("signature '" + sig + "': unknown key '" +
                                     key + "'");
    if (err)
      return std::move(err);
  }
  if (pass == "dgrad" || pass == "bwd")
    d.pass = KernelPass::BackwardData;
  else if (pass == "wgrad")
    d.pass = KernelPass::BackwardWeight;
  if (d.kind == KernelKind::Elementwise &&
      (d.op == "gelu" || d.op == "tanh" || d.op == "sigmoid"))
    d.flopsPerElement = 10;
  return d;
}
