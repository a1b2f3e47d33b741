//===- WorkKindBase.td - How a kind of device work is defined -*- tablegen -*-===//
//
// The classes WorkKinds.td defines each kind of device work with. perf-tblgen
// reads those definitions and writes everything a kind needs elsewhere: the
// KernelKind and WorkKind enums, the verifier's attribute table, a typed view
// of the work attribute per kind (getters and `with` setters), the
// conversions to and from KernelDesc, the FLOP and byte counts, the perf
// database signature, the C API's enum and the reference in docs/generated.
//
//===----------------------------------------------------------------------===//

#ifndef PERF_DIALECT_WORKKINDBASE_TD
#define PERF_DIALECT_WORKKINDBASE_TD

//===----------------------------------------------------------------------===//
// Attributes of work
//===----------------------------------------------------------------------===//

// The operator of a kind's `fields` list, as ODS writes argument lists.
def ins;

// One attribute a kind of work takes. `fieldType` names the check the
// verifier applies (perf::WorkFieldType), `cppType` is what its getter
// returns.
class WorkField<string type, string cpp> {
  string fieldType = type;
  string cppType = cpp;
  // The C++ value an absent attribute stands for; empty: none (a required
  // attribute, or an optional one whose getter returns std::optional).
  string defaultValue = "";
  bit required = 1;
  // The perf::KernelDesc member the attribute is: empty for the camel-case
  // spelling of its name (`trans_a` is `transA`), "-" for none (the kind's
  // `toDesc`/`fromDesc` code maps it). A pair `stride` maps to `strideH`
  // and `strideW`.
  string descMember = "";
  // The getter's and setter's name after get/with: empty for the
  // camel-case spelling of the attribute's name.
  string accessor = "";
}

def Size : WorkField<"Size", "int64_t">;
def Count : WorkField<"Count", "int64_t">;
def Placement : WorkField<"Placement", "int64_t">;
def Float : WorkField<"Float", "double">;
def Text : WorkField<"String", "::llvm::StringRef"> { let required = 0; }
def Flag : WorkField<"Unit", "bool"> { let required = 0; }
def PositivePair : WorkField<"PositivePair", "std::pair<int64_t, int64_t>">;
def NonNegativePair
    : WorkField<"NonNegativePair", "std::pair<int64_t, int64_t>">;
def ElementType : WorkField<"ElementType", "::mlir::Type"> {
  let required = 0;
}
def PassKind : WorkField<"Pass", "::perf::TrainingPass">;
def CopyKind : WorkField<"CopyDirection", "::perf::CopyDirection">;
def OptimizerKind
    : WorkField<"OptimizerAlgorithm", "::perf::OptimizerAlgorithm">;
def NcclKind : WorkField<"NcclAlgorithm", "::perf::NcclAlgorithm">;
def DeviceList : WorkField<"DeviceList", "::llvm::ArrayRef<int64_t>">;
def I64Array : WorkField<"I64Array", "::llvm::ArrayRef<int64_t>"> {
  let required = 0;
}

// `f` with one property changed by a subclass below.
class Derived<WorkField f> : WorkField<f.fieldType, f.cppType> {
  let defaultValue = f.defaultValue;
  let required = f.required;
  let descMember = f.descMember;
  let accessor = f.accessor;
}

// `f`, optional, standing for `value` when absent.
class Default<WorkField f, string value> : Derived<f> {
  let defaultValue = value;
  let required = 0;
}

// `f`, optional, with no value an absence stands for.
class Optional<WorkField f> : Derived<f> { let required = 0; }

// `f` as the KernelDesc member `member` ("-": none).
class As<WorkField f, string member> : Derived<f> { let descMember = member; }

// `f` read through get<name>() and set through with<name>() (for an
// attribute whose own name is taken, such as a copy's `kind`).
class Accessor<WorkField f, string name> : Derived<f> { let accessor = name; }

//===----------------------------------------------------------------------===//
// Database signature keys
//===----------------------------------------------------------------------===//

// One `key=value` of a kernel's perf database signature (docs/perf-db.md),
// read from and written to the KernelDesc member `member`.
class SigKey<string k, string m> {
  string key = k;
  string member = m;
  // How the value is written and read: Int (an integer member), Flag (a
  // bool as 0/1), SetFlag (`key=1` when the bool is set, nothing when not:
  // a key added to a kind keeps the kind's earlier keys), Pass (kernelPassName), Op (a string, `fallback` when
  // empty), Dir (memcpyKindName), Bytes (the `bytes` member as an integer), Flops
  // and TotalBytes (totalFlops / totalBytes, "%.0f").
  string shape = "Int";
  string fallback = "";
}
class IntKey<string k, string m> : SigKey<k, m>;
class FlagKey<string k, string m> : SigKey<k, m> { let shape = "Flag"; }
class SetFlagKey<string k, string m> : SigKey<k, m> { let shape = "SetFlag"; }
def PassKey : SigKey<"pass", "pass"> { let shape = "Pass"; }
class OpKey<string whenEmpty> : SigKey<"op", "op"> {
  let shape = "Op";
  let fallback = whenEmpty;
}
def DirKey : SigKey<"dir", "copyKind"> { let shape = "Dir"; }
def CopyBytesKey : SigKey<"bytes", "bytes"> { let shape = "Bytes"; }
def FlopsKey : SigKey<"flops", "flops"> { let shape = "Flops"; }
def WorkBytesKey : SigKey<"bytes", "bytes"> { let shape = "TotalBytes"; }

//===----------------------------------------------------------------------===//
// Kinds
//===----------------------------------------------------------------------===//

// A kind of device work, written `perf.<mnemonic> {attributes}` in a
// perf.op's work list. Kinds are numbered in the order they are defined:
// the number is in bytecode files, so a new kind goes last.
class WorkKind<string mnemonicName, string cppEnumName> {
  string mnemonic = mnemonicName;
  // The enumerator (WorkKind::Gemm, KernelKind::Gemm) and the view class
  // (GemmWork).
  string cppName = cppEnumName;
  string summary = "";
  // The kind's own attributes; every kernel (collective) also takes the
  // common ones of KernelCommon (CollectiveCommon).
  dag fields = (ins);
  // Checks beyond each attribute's own (relations between attributes).
  // `work` is the kind's view; `error()` starts a diagnostic that names
  // the kind. Returns a LogicalResult.
  code verify = "";
}

// A kernel or copy: a KernelDesc to the cost models.
class KernelKind<string mnemonicName, string cppEnumName>
    : WorkKind<mnemonicName, cppEnumName> {
  // How the kernel is spelt in the perf database and perf-bench
  // (kernelKindName): the mnemonic unless said.
  string dbName = mnemonicName;
  // Code after the attributes are copied into `KernelDesc &d` from the view
  // `work` (fields with a KernelDesc member are copied before).
  code toDesc = "";
  // Code after the attributes with a KernelDesc member are set on `w` from
  // `const KernelDesc &d`: it sets the others (w.set<Field>(value)).
  code fromDesc = "";
  // FLOPs and compulsory bytes of `const KernelDesc &d` (`b` is d.batch as
  // a double, `e` the element's bytes). Bytes default to the override
  // `d.bytes`.
  code flops = "return 0;";
  code bytes = "return d.bytes;";
  // Whether the sizes of `d` are ones a kernel of the kind accepts.
  code validSizes = "return true;";
  // Whether the libraries run it on tensor cores in TF32, FP16 and BF16.
  bit tensorCores = 0;
  // The perf database signature, in order (docs/perf-db.md).
  list<SigKey> signature = [];
  // Code after a signature is parsed into `KernelDesc &d`.
  code signatureParsed = "";
}

// A collective or point-to-point transfer: a CollectiveDesc.
class CollectiveKind<string mnemonicName, string cppEnumName>
    : WorkKind<mnemonicName, cppEnumName>;

#endif // PERF_DIALECT_WORKKINDBASE_TD
