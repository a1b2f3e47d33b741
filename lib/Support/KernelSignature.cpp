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

namespace {
/// What reading one `key=value` of a signature came to.
enum class SignatureKeyRead { Read, UnknownKey, BadValue };

SignatureKeyRead readInt(llvm::StringRef value, int64_t &out) {
  return value.getAsInteger(10, out) ? SignatureKeyRead::BadValue
                                     : SignatureKeyRead::Read;
}

SignatureKeyRead readFlag(llvm::StringRef value, bool &out) {
  int64_t flag = 0;
  if (value.getAsInteger(10, flag))
    return SignatureKeyRead::BadValue;
  out = flag != 0;
  return SignatureKeyRead::Read;
}

SignatureKeyRead readNumber(llvm::StringRef value, double &out) {
  return value.getAsDouble(out) ? SignatureKeyRead::BadValue
                                : SignatureKeyRead::Read;
}

SignatureKeyRead readText(llvm::StringRef value, std::string &out) {
  out = value.str();
  return SignatureKeyRead::Read;
}

SignatureKeyRead readPass(llvm::StringRef value, KernelDesc &d) {
  if (value == "dgrad" || value == "bwd")
    d.pass = KernelPass::BackwardData;
  else if (value == "wgrad")
    d.pass = KernelPass::BackwardWeight;
  else
    d.pass = KernelPass::Forward;
  return SignatureKeyRead::Read;
}

SignatureKeyRead readDirection(llvm::StringRef value, MemcpyKind &out) {
  out = parseMemcpyKind(value).value_or(MemcpyKind::DeviceToDevice);
  return SignatureKeyRead::Read;
}
} // namespace

// Each kind's keys, from WorkKinds.td.
#define GEN_KERNEL_SIGNATURES
#include "perf/Support/KernelKinds.cpp.inc"

std::string perf::kernelSignature(const KernelDesc &d) {
  std::string out;
  llvm::raw_string_ostream os(out);
  writeKindSignature(os, d);
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
  for (llvm::StringRef pair : pairs) {
    auto [key, value] = pair.split('=');
    switch (readKindSignatureKey(d, key, value)) {
    case SignatureKeyRead::Read:
      continue;
    case SignatureKeyRead::UnknownKey:
      return llvm::createStringError("signature '" + sig + "': unknown key '" +
                                     key + "'");
    case SignatureKeyRead::BadValue:
      return llvm::createStringError("signature '" + sig + "': '" + key +
                                     "' must be a number");
    }
  }
  completeKindSignature(d);
  return d;
}
