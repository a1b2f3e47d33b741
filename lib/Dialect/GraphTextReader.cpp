//===- GraphTextReader.cpp - Reads perf graphs written as text ------------===//
//
// A scanner for the form perf's printer writes for graphs. Each op is built
// through an OperationState as the op's generated parser fills it, so the
// op is the one MLIR's parser makes; what varies between ops (types,
// attribute dictionaries, work lists) is parsed by MLIR's parser the first
// time its text is seen and reused when the same text comes again.
//
//===----------------------------------------------------------------------===//

#include "perf/Dialect/GraphTextReader.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "perf/Dialect/PerfOps.h"
#include "perf/Dialect/StepVerifier.h"
#include "perf/Dialect/WorkSchema.h"
#include "perf/Support/HugePages.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"

#include <cstring>

using namespace mlir;
using namespace perf;

namespace {

/// A name an op's results are given in the text and how many it stands
/// for: `%x` one, `%x:2` two.
using ResultName = std::pair<StringRef, unsigned>;

/// The results a name in the text stands for.
struct NamedResults {
  Operation *op;
  unsigned first;
  unsigned count;
};

/// What a function type's text parsed to, and how many of the line's
/// characters it took.
struct ParsedType {
  FunctionType type;
  size_t length;
};

/// Reads one buffer. Every read* member returns false when the text is not
/// in the form read here (or is wrong); nothing is reported, the caller
/// gives up and MLIR's parser reads the text.
class Reader {
public:
  Reader(StringRef text, StringRef fileName, MLIRContext *context)
      : context(loadDialect(context)), cur(text.begin()), end(text.end()),
        lineCursor(text.begin()), lineStart(text.begin()),
        fileName(StringAttr::get(context, fileName)),
        opName(FrameworkOp::getOperationName(), context),
        syncName(SyncOp::getOperationName(), context),
        graphName(GraphOp::getOperationName(), context) {}

  OwningOpRef<ModuleOp> read();

private:
  /// The ops' names below are registered ones only once it is loaded.
  static MLIRContext *loadDialect(MLIRContext *context) {
    context->getOrLoadDialect<PerfDialect>();
    return context;
  }

  // Scanning.
  void skipTrivia();
  bool at(char c) const { return cur != end && *cur == c; }
  bool consume(char c);
  StringRef scanBareIdentifier();
  StringRef peekBareIdentifier() {
    const char *begin = cur;
    StringRef identifier = scanBareIdentifier();
    cur = begin;
    return identifier;
  }
  StringRef scanSuffixId();
  std::optional<unsigned> scanNumber();
  std::optional<StringRef> scanBraced();
  std::optional<StringRef> scanString();
  Location locationAt(const char *pos);

  // Parsing what varies, through MLIR's parser, once per distinct text.
  DictionaryAttr parseDictionary(StringRef text);
  const ParsedType *parseFunctionType();
  std::optional<ArrayAttr> parseWorkList(StringRef text);

  Block *readAttributesAndOpenBody(OperationState &state);
  bool readModule(Block &into);
  bool readGraph(Block &into);
  bool readGraphBody(Block &body);
  bool readOp(Block &body, ArrayRef<ResultName> resultNames);
  bool readSync(Block &body);
  bool readAttrDict(OperationState &state);
  bool checkInherentAttrs(OperationState &state);
  std::optional<Value> readOperand();

  MLIRContext *context;
  const char *cur;
  const char *end;
  // The line of `lineCursor`: locations are asked for in increasing order,
  // so the lines are counted once.
  const char *lineCursor;
  const char *lineStart;
  unsigned line = 1;
  StringAttr fileName;
  OperationName opName;
  OperationName syncName;
  OperationName graphName;

  llvm::DenseMap<StringRef, NamedResults> names;
  llvm::DenseMap<StringRef, DictionaryAttr> dictionaries;
  llvm::DenseMap<StringRef, ParsedType> functionTypes;
  llvm::DenseMap<StringRef, std::optional<ArrayAttr>> workLists;
  llvm::DenseMap<StringRef, StringAttr> strings;
};

} // namespace

//===----------------------------------------------------------------------===//
// Scanning
//===----------------------------------------------------------------------===//

void Reader::skipTrivia() {
  while (cur != end) {
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++cur;
      continue;
    }
    if (c == '/' && cur + 1 != end && cur[1] == '/') {
      // As MLIR's lexer, a comment ends at either line break.
      cur += 2;
      while (cur != end && *cur != '\n' && *cur != '\r')
        ++cur;
      continue;
    }
    return;
  }
}

bool Reader::consume(char c) {
  if (!at(c))
    return false;
  ++cur;
  return true;
}

/// `[a-zA-Z_][a-zA-Z0-9_$.]*`, as MLIR's lexer reads a bare identifier.
StringRef Reader::scanBareIdentifier() {
  const char *begin = cur;
  if (cur == end || !(llvm::isAlpha(*cur) || *cur == '_'))
    return {};
  while (cur != end &&
         (llvm::isAlnum(*cur) || *cur == '_' || *cur == '$' || *cur == '.'))
    ++cur;
  return StringRef(begin, cur - begin);
}

/// What follows `%`: digits, or `[a-zA-Z$._-][a-zA-Z0-9$._-]*`.
StringRef Reader::scanSuffixId() {
  const char *begin = cur;
  if (cur == end)
    return {};
  if (llvm::isDigit(*cur)) {
    while (cur != end && llvm::isDigit(*cur))
      ++cur;
    return StringRef(begin, cur - begin);
  }
  auto isSuffixChar = [](char c) {
    return c == '$' || c == '.' || c == '_' || c == '-';
  };
  if (!llvm::isAlpha(*cur) && !isSuffixChar(*cur))
    return {};
  while (cur != end && (llvm::isAlnum(*cur) || isSuffixChar(*cur)))
    ++cur;
  return StringRef(begin, cur - begin);
}

std::optional<unsigned> Reader::scanNumber() {
  const char *begin = cur;
  while (cur != end && llvm::isDigit(*cur))
    ++cur;
  unsigned value;
  if (cur == begin || cur - begin > 9 ||
      StringRef(begin, cur - begin).getAsInteger(10, value))
    return std::nullopt;
  return value;
}

/// From a `{` to its `}`, skipping strings. Text with a comment inside is
/// left to MLIR's parser.
std::optional<StringRef> Reader::scanBraced() {
  const char *begin = cur;
  unsigned depth = 0;
  while (cur != end) {
    char c = *cur++;
    if (c == '{') {
      ++depth;
    } else if (c == '}') {
      if (--depth == 0)
        return StringRef(begin, cur - begin);
    } else if (c == '"') {
      while (cur != end && *cur != '"') {
        if (*cur == '\n')
          return std::nullopt;
        if (*cur == '\\' && ++cur == end)
          return std::nullopt;
        ++cur;
      }
      if (cur == end)
        return std::nullopt;
      ++cur;
    } else if (c == '/' && cur != end && *cur == '/') {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// A string without escapes or control characters (the text between the
/// quotes); any other is left to MLIR's parser.
std::optional<StringRef> Reader::scanString() {
  if (!consume('"'))
    return std::nullopt;
  const char *begin = cur;
  while (cur != end && *cur != '"') {
    // MLIR's lexer refuses some control characters in a string and reads
    // others; none is read here.
    if (*cur == '\\' ||
        (static_cast<unsigned char>(*cur) < 0x20 && *cur != '\t'))
      return std::nullopt;
    ++cur;
  }
  if (cur == end)
    return std::nullopt;
  return StringRef(begin, cur++ - begin);
}

/// The location MLIR's parser gives a token at `pos`: the buffer's name,
/// the line and the column (in bytes, from 1).
Location Reader::locationAt(const char *pos) {
  assert(pos >= lineCursor && "locations are asked for in order");
  while (const void *newline =
             std::memchr(lineCursor, '\n', pos - lineCursor)) {
    ++line;
    lineCursor = static_cast<const char *>(newline) + 1;
    lineStart = lineCursor;
  }
  lineCursor = pos;
  return FileLineColLoc::get(fileName, line,
                             static_cast<unsigned>(pos - lineStart) + 1);
}

//===----------------------------------------------------------------------===//
// What varies, through MLIR's parser
//===----------------------------------------------------------------------===//

/// `{...}` as MLIR parses an attribute dictionary.
DictionaryAttr Reader::parseDictionary(StringRef text) {
  auto [it, inserted] = dictionaries.try_emplace(text);
  if (inserted) {
    size_t read = 0;
    Attribute parsed = parseAttribute(text, context, Type(), &read);
    if (read == text.size())
      it->second = dyn_cast_if_present<DictionaryAttr>(parsed);
  }
  return it->second;
}

/// The function type from here to the end of its line, parsed once per
/// distinct rest of line (ops of one shape share it).
const ParsedType *Reader::parseFunctionType() {
  const void *newline = std::memchr(cur, '\n', end - cur);
  StringRef rest(cur,
                 (newline ? static_cast<const char *>(newline) : end) - cur);
  auto [it, inserted] = functionTypes.try_emplace(rest);
  if (inserted) {
    size_t read = 0;
    Type parsed = parseType(rest, context, &read);
    it->second = {dyn_cast_if_present<FunctionType>(parsed), read};
  }
  if (!it->second.type)
    return nullptr;
  cur += it->second.length;
  return &it->second;
}

/// `{ perf.gemm {...} ... }`, as the op's parser reads its work list: null
/// when the list is empty (the op has no work), nullopt when it is wrong.
std::optional<ArrayAttr> Reader::parseWorkList(StringRef text) {
  if (auto it = workLists.find(text); it != workLists.end())
    return it->second;
  // The pieces are scanned in place: the braces' inside, then back.
  const char *resume = cur, *resumeEnd = end;
  cur = text.begin() + 1;
  end = text.end() - 1;
  SmallVector<Attribute> list;
  bool valid = true;
  for (skipTrivia(); cur != end; skipTrivia()) {
    std::optional<WorkKind> kind = parseWorkMnemonic(scanBareIdentifier());
    if (!kind) {
      valid = false;
      break;
    }
    DictionaryAttr attrs = DictionaryAttr::get(context);
    skipTrivia();
    if (at('{')) {
      std::optional<StringRef> dict = scanBraced();
      attrs = dict ? parseDictionary(*dict) : nullptr;
    }
    WorkAttr piece;
    if (attrs)
      piece = WorkAttr::getChecked(
          [&] { return mlir::emitError(UnknownLoc::get(context)); }, context,
          *kind, attrs);
    if (!piece) {
      valid = false;
      break;
    }
    list.push_back(piece);
  }
  cur = resume;
  end = resumeEnd;
  std::optional<ArrayAttr> work;
  if (valid)
    work = list.empty() ? ArrayAttr() : ArrayAttr::get(context, list);
  workLists[text] = work;
  return work;
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> Reader::read() {
  // About a name per op, and an op takes 100-200 bytes of text.
  names.reserve((end - cur) / 200);
  Block top;
  for (skipTrivia(); cur != end; skipTrivia()) {
    StringRef keyword = peekBareIdentifier();
    if (keyword == "module") {
      if (!readModule(top))
        return nullptr;
    } else if (keyword == GraphOp::getOperationName()) {
      if (!readGraph(top))
        return nullptr;
    } else {
      return nullptr;
    }
  }
  // As MLIR's parser: a lone module is the module, anything else is put in
  // one located at the file.
  OwningOpRef<ModuleOp> module;
  if (llvm::hasSingleElement(top) && isa<ModuleOp>(top.front())) {
    module = cast<ModuleOp>(top.front());
    module.get()->remove();
  } else {
    module = ModuleOp::create(FileLineColLoc::get(fileName, 0, 0));
    module->getBody()->getOperations().splice(module->getBody()->begin(),
                                              top.getOperations());
  }
  return module;
}

/// `[attributes {...}] {` after a container op's name: its attributes
/// (attr-dict-with-keyword), checked as its parser checks them, and the
/// block of its body, to read into; null when the text is not that.
Block *Reader::readAttributesAndOpenBody(OperationState &state) {
  skipTrivia();
  if (peekBareIdentifier() == "attributes") {
    scanBareIdentifier();
    if (!readAttrDict(state))
      return nullptr;
  }
  if (!checkInherentAttrs(state))
    return nullptr;
  skipTrivia();
  if (!consume('{'))
    return nullptr;
  return &state.addRegion()->emplaceBlock();
}

/// `module [attributes {...}] { graphs }`.
bool Reader::readModule(Block &into) {
  OperationState state(locationAt(cur), ModuleOp::getOperationName());
  scanBareIdentifier();
  Block *body = readAttributesAndOpenBody(state);
  if (!body)
    return false;
  for (skipTrivia(); !consume('}'); skipTrivia())
    if (peekBareIdentifier() != GraphOp::getOperationName() ||
        !readGraph(*body))
      return false;
  into.push_back(Operation::create(state));
  return true;
}

/// `perf.graph @name [attributes {...}] { ops }`.
bool Reader::readGraph(Block &into) {
  OperationState state(locationAt(cur), graphName);
  scanBareIdentifier();
  skipTrivia();
  if (!consume('@'))
    return false;
  // A symbol is spelled as a bare identifier (MLIR's `@` identifier).
  StringRef symbol = scanBareIdentifier();
  if (symbol.empty())
    return false;
  GraphOp::Properties properties;
  properties.sym_name = StringAttr::get(context, symbol);
  state.useProperties(properties);
  Block *body = readAttributesAndOpenBody(state);
  if (!body)
    return false;
  // A graph is isolated from above: its names are its own.
  names.clear();
  if (!readGraphBody(*body))
    return false;
  into.push_back(Operation::create(state));
  return true;
}

bool Reader::readGraphBody(Block &body) {
  SmallVector<ResultName, 2> resultNames;
  unsigned opsRead = 0;
  for (skipTrivia(); !consume('}'); skipTrivia()) {
    resultNames.clear();
    // A step of millions of ops grows the heap by gigabytes while it is
    // read (perf/Support/HugePages.h).
    if (++opsRead % 65536 == 0)
      adviseHeapGrowth();
    // `%a, %b =` or `%a:2 =`.
    if (at('%')) {
      do {
        skipTrivia();
        if (!consume('%'))
          return false;
        StringRef name = scanSuffixId();
        if (name.empty())
          return false;
        unsigned count = 1;
        if (consume(':')) {
          std::optional<unsigned> number = scanNumber();
          if (!number || *number == 0)
            return false;
          count = *number;
        }
        resultNames.push_back({name, count});
        skipTrivia();
      } while (consume(','));
      if (!consume('='))
        return false;
      skipTrivia();
    }
    StringRef keyword = peekBareIdentifier();
    if (keyword == FrameworkOp::getOperationName()) {
      if (!readOp(body, resultNames))
        return false;
    } else if (keyword == SyncOp::getOperationName() && resultNames.empty()) {
      if (!readSync(body))
        return false;
    } else {
      return false;
    }
  }
  return true;
}

/// `{...}` after an op into its state's attributes, as `attr-dict` reads it.
bool Reader::readAttrDict(OperationState &state) {
  skipTrivia();
  if (!at('{'))
    return false;
  std::optional<StringRef> text = scanBraced();
  if (!text)
    return false;
  DictionaryAttr dict = parseDictionary(*text);
  if (!dict)
    return false;
  state.attributes.append(dict.getValue());
  return true;
}

/// The attributes read so far that the op keeps in its properties, checked
/// as its generated parser checks them after `attr-dict`.
bool Reader::checkInherentAttrs(OperationState &state) {
  return succeeded(state.name.verifyInherentAttrs(
      state.attributes, [&] { return mlir::emitError(state.location); }));
}

/// `%x` or `%x#1`, defined earlier in the graph.
std::optional<Value> Reader::readOperand() {
  skipTrivia();
  if (!consume('%'))
    return std::nullopt;
  StringRef name = scanSuffixId();
  unsigned index = 0;
  if (consume('#')) {
    std::optional<unsigned> number = scanNumber();
    if (!number)
      return std::nullopt;
    index = *number;
  }
  auto it = names.find(name);
  if (it == names.end() || index >= it->second.count)
    return std::nullopt;
  return it->second.op->getResult(it->second.first + index);
}

/// `perf.op "name"[(operands)] [{attrs}] : (types) -> types [{ work }]`.
bool Reader::readOp(Block &body, ArrayRef<ResultName> resultNames) {
  // MLIR's parser locates an op at its name.
  OperationState state(locationAt(cur), opName);
  scanBareIdentifier();
  skipTrivia();
  std::optional<StringRef> quoted = scanString();
  if (!quoted)
    return false;
  FrameworkOp::Properties properties;
  StringAttr &opNameAttr = strings[*quoted];
  if (!opNameAttr)
    opNameAttr = StringAttr::get(context, *quoted);
  properties.op_name = opNameAttr;
  state.useProperties(properties);

  skipTrivia();
  if (consume('(')) {
    skipTrivia();
    if (!consume(')')) {
      do {
        std::optional<Value> operand = readOperand();
        if (!operand)
          return false;
        state.operands.push_back(*operand);
        skipTrivia();
      } while (consume(','));
      if (!consume(')'))
        return false;
    }
    skipTrivia();
  }
  if (at('{')) {
    if (!readAttrDict(state))
      return false;
    skipTrivia();
  }
  if (!checkInherentAttrs(state))
    return false;
  if (!consume(':'))
    return false;
  skipTrivia();
  const ParsedType *type = parseFunctionType();
  if (!type)
    return false;
  // What resolveOperands checks: as many operands as inputs, each of its
  // type.
  ArrayRef<Type> inputs = type->type.getInputs();
  if (inputs.size() != state.operands.size())
    return false;
  for (auto [operand, input] : llvm::zip_equal(state.operands, inputs))
    if (operand.getType() != input)
      return false;
  ArrayRef<Type> results = type->type.getResults();
  unsigned named = 0;
  for (auto [name, count] : resultNames)
    named += count;
  // Results need no names; names must name them all.
  if (!resultNames.empty() && named != results.size())
    return false;
  state.addTypes(results);

  skipTrivia();
  if (at('{')) {
    std::optional<StringRef> text = scanBraced();
    if (!text)
      return false;
    std::optional<ArrayAttr> work = parseWorkList(*text);
    if (!work)
      return false;
    properties.work = *work;
  }

  Operation *op = Operation::create(state);
  body.push_back(op);
  unsigned first = 0;
  for (auto [name, count] : resultNames) {
    if (!names.try_emplace(name, NamedResults{op, first, count}).second)
      return false;
    first += count;
  }
  return true;
}

/// `perf.sync [{attrs}]`.
bool Reader::readSync(Block &body) {
  OperationState state(locationAt(cur), syncName);
  scanBareIdentifier();
  SyncOp::Properties properties;
  state.useProperties(properties);
  skipTrivia();
  if (at('{') && !readAttrDict(state))
    return false;
  if (!checkInherentAttrs(state))
    return false;
  body.push_back(Operation::create(state));
  return true;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> perf::readGraphText(const llvm::SourceMgr &sourceMgr,
                                          MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  // Anything this reader or MLIR's parser under it would report means the
  // text is left to MLIR's parser, which reports it.
  bool reported = false;
  ScopedDiagnosticHandler quiet(context, [&](Diagnostic &) {
    reported = true;
    return success();
  });
  Reader reader(buffer->getBuffer(), buffer->getBufferIdentifier(), context);
  OwningOpRef<ModuleOp> module = reader.read();
  if (!module || failed(verifyStep(*module)) || reported)
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> perf::parseGraphText(const llvm::SourceMgr &sourceMgr,
                                           MLIRContext *context) {
  if (OwningOpRef<ModuleOp> module = readGraphText(sourceMgr, context))
    return module;
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(context));
}

OwningOpRef<ModuleOp> perf::parseGraphText(StringRef text, StringRef bufferName,
                                           MLIRContext *context) {
  llvm::SourceMgr sourceMgr;
  // Not copied: the buffer lives as long as the read.
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(text, bufferName,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  return parseGraphText(sourceMgr, context);
}
