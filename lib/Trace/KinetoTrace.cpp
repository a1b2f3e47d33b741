//===- KinetoTrace.cpp - Kineto (PyTorch profiler) trace reader -----------===//

#include "perf/Trace/KinetoTrace.h"
#include "perf/Support/InputError.h"
#include "perf/Support/InputFile.h"
#include "perf/Support/JsonOutline.h"
#include "perf/Trace/ExecutionTrace.h"
#include "perf/Trace/TraceFile.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <simdjson.h>
#include <unordered_set>

using namespace llvm;

namespace perf {
namespace trace {

/// An error about the trace file `origin` as a whole (the one format).
static Error traceError(StringRef origin, const Twine &message) {
  return perf::fileError(origin, message);
}

bool RuntimeCall::isSynchronizing() const {
  StringRef n(name);
  return n.contains("Synchronize") || n == "cudaMemcpy" || n == "hipMemcpy" ||
         n == "cudaMemset" || n == "cudaFree";
}

namespace {
enum class EventClass {
  Ignored,
  Operator,
  Annotation,
  Runtime,
  Kernel,
  Memcpy,
  Memset,
  Flow,
  Sync
};
} // namespace

static EventClass classify(StringRef category) {
  return StringSwitch<EventClass>(category)
      .Cases({"cpu_op", "Operator"}, EventClass::Operator)
      .Case("user_annotation", EventClass::Annotation)
      .Cases({"cuda_runtime", "Runtime", "cuda_driver"}, EventClass::Runtime)
      .Cases({"kernel", "Kernel"}, EventClass::Kernel)
      .Cases({"gpu_memcpy", "Memcpy"}, EventClass::Memcpy)
      .Cases({"gpu_memset", "Memset"}, EventClass::Memset)
      .Cases({"ac2g", "async"}, EventClass::Flow)
      .Case("cuda_sync", EventClass::Sync)
      .Default(EventClass::Ignored);
}

namespace od = simdjson::ondemand;

namespace {
/// A JSON scalar as the reader takes it: integers exact, other numbers as
/// doubles, strings as views into the parser's buffer.
struct Scalar {
  enum class Kind {
    Absent,
    Integer,
    Double,
    String,
    Other
  } kind = Kind::Absent;
  int64_t integer = 0;
  double number = 0;
  StringRef string;

  /// The integer a JSON number or numeric string stands for (asLooseInteger:
  /// "stream 7" is 7); `fallback` otherwise.
  int64_t loose(int64_t fallback) const {
    switch (kind) {
    case Kind::Integer:
      return integer;
    case Kind::Double:
      return saturatingInt64(number);
    case Kind::String:
      return looseIntegerOfString(string, fallback);
    default:
      return fallback;
    }
  }
  /// A JSON number, as a double; `fallback` otherwise.
  double asNumber(double fallback) const {
    return kind == Kind::Integer  ? static_cast<double>(integer)
           : kind == Kind::Double ? number
                                  : fallback;
  }
  /// An integer, or a double with an integral value in range (as
  /// llvm::json's getAsInteger reads it).
  std::optional<int64_t> asInteger() const {
    if (kind == Kind::Integer)
      return integer;
    if (kind == Kind::Double && std::trunc(number) == number &&
        number >= -9223372036854775808.0 && number < 9223372036854775808.0)
      return static_cast<int64_t>(number);
    return std::nullopt;
  }
  StringRef asString() const { return kind == Kind::String ? string : ""; }
};

/// One event's fields that the reader uses.
struct RawEvent {
  Scalar ph, cat, name, ts, dur, pid, tid, id;
  // From args.
  Scalar externalId, recordFunctionId, sequenceNumber, correlation, device,
      stream, bytes;
  // A "Stream Wait Event" (cuda_sync).
  Scalar waitOnStream, waitOnRecord;
  int64_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  std::vector<std::vector<int64_t>> inputDims;
  std::vector<std::string> inputTypes;
};

/// Whether `value` is of `wanted` type. A value the reader does not consume
/// is skipped when it moves on.
simdjson::error_code isOfType(od::value value, od::json_type wanted, bool &is) {
  od::json_type type;
  if (auto error = value.type().get(type))
    return error;
  is = type == wanted;
  return simdjson::SUCCESS;
}

/// Calls `onElement(od::value)` for each element of `value` when it is an
/// array (anything else is skipped), stopping at the first error.
template <typename OnElement>
simdjson::error_code forEachElement(od::value value, OnElement &&onElement) {
  bool isArray;
  if (auto error = isOfType(value, od::json_type::array, isArray))
    return error;
  if (!isArray)
    return simdjson::SUCCESS;
  od::array array;
  if (auto error = value.get_array().get(array))
    return error;
  for (auto element : array) {
    od::value v;
    if (auto error = element.get(v))
      return error;
    if (auto error = onElement(v))
      return error;
  }
  return simdjson::SUCCESS;
}

/// Calls `onField(key, od::value)` for each field of `value` when it is an
/// object (anything else is skipped), stopping at the first error. Later
/// duplicates of a key win, as in a JSON object read whole.
template <typename OnField>
simdjson::error_code forEachField(od::value value, OnField &&onField) {
  bool isObject;
  if (auto error = isOfType(value, od::json_type::object, isObject))
    return error;
  if (!isObject)
    return simdjson::SUCCESS;
  od::object object;
  if (auto error = value.get_object().get(object))
    return error;
  for (auto field : object) {
    std::string_view key;
    if (auto error = field.unescaped_key().get(key))
      return error;
    od::value v;
    if (auto error = field.value().get(v))
      return error;
    if (auto error = onField(key, v))
      return error;
  }
  return simdjson::SUCCESS;
}

simdjson::error_code readScalar(od::value value, Scalar &out) {
  od::json_type type;
  if (auto error = value.type().get(type))
    return error;
  switch (type) {
  case od::json_type::number: {
    od::number_type numberType;
    if (auto error = value.get_number_type().get(numberType))
      return error;
    if (numberType == od::number_type::signed_integer) {
      out.kind = Scalar::Kind::Integer;
      return value.get_int64().get(out.integer);
    }
    out.kind = Scalar::Kind::Double;
    return value.get_double().get(out.number);
  }
  case od::json_type::string: {
    std::string_view s;
    if (auto error = value.get_string().get(s))
      return error;
    out.kind = Scalar::Kind::String;
    out.string = StringRef(s.data(), s.size());
    return simdjson::SUCCESS;
  }
  default:
    out.kind = Scalar::Kind::Other;
    return simdjson::SUCCESS;
  }
}

/// The integers of an array, `missing` for an element that is not one.
simdjson::error_code readIntegers(od::value value, int64_t missing,
                                  std::vector<int64_t> &out) {
  return forEachElement(value, [&](od::value v) {
    Scalar s;
    simdjson::error_code error = readScalar(v, s);
    out.push_back(s.asInteger().value_or(missing));
    return error;
  });
}

/// The first three integers of a grid or block array; zeros otherwise.
simdjson::error_code readDims(od::value value, int64_t out[3]) {
  std::vector<int64_t> dims;
  simdjson::error_code error = readIntegers(value, 0, dims);
  std::copy_n(dims.begin(), std::min<size_t>(dims.size(), 3), out);
  return error;
}

simdjson::error_code readArgs(od::value value, RawEvent &event) {
  return forEachField(value, [&](std::string_view key, od::value v) {
    if (key == "External id" || key == "external id")
      return readScalar(v, event.externalId);
    if (key == "Record function id")
      return readScalar(v, event.recordFunctionId);
    if (key == "Sequence number")
      return readScalar(v, event.sequenceNumber);
    if (key == "correlation")
      return readScalar(v, event.correlation);
    if (key == "wait_on_stream")
      return readScalar(v, event.waitOnStream);
    if (key == "wait_on_cuda_event_record_corr_id")
      return readScalar(v, event.waitOnRecord);
    if (key == "device")
      return readScalar(v, event.device);
    if (key == "stream")
      return readScalar(v, event.stream);
    if (key == "bytes")
      return readScalar(v, event.bytes);
    if (key == "grid")
      return readDims(v, event.grid);
    if (key == "block")
      return readDims(v, event.block);
    // One array of integers per input (-1 for what is not one); an input
    // that is not an array has no dimensions.
    if (key == "Input Dims")
      return forEachElement(v, [&](od::value shape) {
        return readIntegers(shape, -1, event.inputDims.emplace_back());
      });
    if (key == "Input type")
      return forEachElement(v, [&](od::value type) {
        Scalar s;
        simdjson::error_code error = readScalar(type, s);
        event.inputTypes.push_back(s.asString().str());
        return error;
      });
    return simdjson::SUCCESS;
  });
}

/// Reads one element of traceEvents; a non-object leaves `event` empty.
simdjson::error_code readEvent(od::value value, RawEvent &event) {
  event = RawEvent();
  return forEachField(value, [&](std::string_view key, od::value v) {
    Scalar *field = key == "ph"     ? &event.ph
                    : key == "cat"  ? &event.cat
                    : key == "name" ? &event.name
                    : key == "ts"   ? &event.ts
                    : key == "dur"  ? &event.dur
                    : key == "pid"  ? &event.pid
                    : key == "tid"  ? &event.tid
                    : key == "id"   ? &event.id
                                    : nullptr;
    if (field)
      return readScalar(v, *field);
    if (key == "args")
      return readArgs(v, event);
    return simdjson::SUCCESS;
  });
}

/// A deviceProperties entry.
simdjson::error_code
readGpuProperties(od::value value,
                  std::map<int64_t, KinetoTrace::GpuProperties> &out) {
  bool isObject;
  if (auto error = isOfType(value, od::json_type::object, isObject))
    return error;
  if (!isObject)
    return simdjson::SUCCESS;
  Scalar id, name, numSms, memory, major, minor;
  simdjson::error_code error =
      forEachField(value, [&](std::string_view key, od::value v) {
        Scalar *field = key == "id"               ? &id
                        : key == "name"           ? &name
                        : key == "numSms"         ? &numSms
                        : key == "totalGlobalMem" ? &memory
                        : key == "computeMajor"   ? &major
                        : key == "computeMinor"   ? &minor
                                                  : nullptr;
        return field ? readScalar(v, *field) : simdjson::SUCCESS;
      });
  if (error)
    return error;
  KinetoTrace::GpuProperties &gpu = out[id.asInteger().value_or(0)];
  gpu.name = name.asString().str();
  gpu.numSms = numSms.asInteger().value_or(0);
  gpu.memBytes = memory.asNumber(0);
  gpu.computeMajor = major.asInteger().value_or(0);
  gpu.computeMinor = minor.asInteger().value_or(0);
  return simdjson::SUCCESS;
}

/// Microsecond timestamp; integers stay exact before the base is subtracted.
double timestampOf(const Scalar &value, int64_t base) {
  if (value.kind == Scalar::Kind::Absent)
    return 0;
  // Exact in int64 unless the difference overflows (a damaged trace), then
  // in double.
  int64_t difference;
  if (std::optional<int64_t> i = value.asInteger())
    return llvm::SubOverflow(*i, base, difference)
               ? static_cast<double>(*i) - static_cast<double>(base)
               : static_cast<double>(difference);
  return value.asNumber(0) - static_cast<double>(base);
}

/// The trace's root: an object with traceEvents (and deviceProperties,
/// schemaVersion), or the event array itself. `onEvent` sees every event.
struct RootReader {
  std::optional<int64_t> schemaVersion;
  bool hasEvents = false;
  std::map<int64_t, KinetoTrace::GpuProperties> gpus;

  template <typename OnEvent>
  simdjson::error_code readEvents(od::value events, OnEvent &onEvent) {
    bool isArray;
    if (auto error = isOfType(events, od::json_type::array, isArray))
      return error;
    hasEvents |= isArray;
    RawEvent event;
    return forEachElement(events, [&](od::value v) {
      simdjson::error_code error = readEvent(v, event);
      if (!error)
        onEvent(event);
      return error;
    });
  }

  template <typename OnEvent>
  simdjson::error_code read(od::document &doc, OnEvent &&onEvent) {
    od::json_type type;
    if (auto error = doc.type().get(type))
      return error;
    // A scalar document has no value to read as one.
    if (type != od::json_type::array && type != od::json_type::object)
      return simdjson::SUCCESS;
    od::value root;
    if (auto error = doc.get_value().get(root))
      return error;
    if (type == od::json_type::array)
      return readEvents(root, onEvent);
    return forEachField(root, [&](std::string_view key, od::value v) {
      if (key == "traceEvents")
        return readEvents(v, onEvent);
      if (key == "deviceProperties")
        return forEachElement(
            v, [&](od::value p) { return readGpuProperties(p, gpus); });
      if (key == "schemaVersion") {
        Scalar s;
        simdjson::error_code error = readScalar(v, s);
        schemaVersion = s.asInteger().value_or(-1);
        return error;
      }
      return simdjson::SUCCESS;
    });
  }
};

/// The events of a trace's text, read a slice at a time (JsonOutline): the
/// skeleton (the text with its event arrays emptied) through a RootReader,
/// then each slice of each event array. One parser and one padded buffer
/// serve every slice, so the parser's index and string buffer cover one
/// slice, not the trace.
class SlicedEventReader {
public:
  SlicedEventReader(StringRef text, StringRef origin,
                    const JsonOutline &outline)
      : text(text), origin(origin), outline(outline) {}

  template <typename OnEvent> Error read(RootReader &root, OnEvent &&onEvent) {
    setBuffer(outline.skeleton);
    od::document doc;
    simdjson::error_code error = parser.iterate(padded()).get(doc);
    if (!error)
      error = root.read(doc, onEvent);
    if (error)
      return jsonErrorInPart(
          outline.skeleton,
          [&](size_t k) { return outline.textOffsetOfSkeleton(k); }, text,
          origin, simdjson::error_message(error));
    for (const JsonOutline::Array &array : outline.arrays)
      if (Error error = forEachSlice(
              text, array, origin, buffer, simdjson::SIMDJSON_PADDING,
              [&](StringRef slice, size_t begin) -> Expected<size_t> {
                size_t elements = 0;
                simdjson::error_code error =
                    readSlice(root, [&](const RawEvent &e) {
                      ++elements;
                      onEvent(e);
                    });
                if (error)
                  return jsonErrorInPart(
                      slice, [&](size_t k) { return begin + k; }, text, origin,
                      simdjson::error_message(error));
                return elements;
              }))
        return error;
    return Error::success();
  }

private:
  void setBuffer(StringRef bytes) { buffer.assign(bytes.data(), bytes.size()); }
  simdjson::padded_string_view padded() {
    // simdjson reads up to SIMDJSON_PADDING bytes past the end.
    if (buffer.capacity() < buffer.size() + simdjson::SIMDJSON_PADDING)
      buffer.reserve(buffer.size() + simdjson::SIMDJSON_PADDING);
    return simdjson::padded_string_view(buffer.data(), buffer.size(),
                                        buffer.capacity());
  }
  template <typename OnEvent>
  simdjson::error_code readSlice(RootReader &root, OnEvent &&onEvent) {
    od::document doc;
    od::value events;
    if (auto error = parser.iterate(padded()).get(doc))
      return error;
    if (auto error = doc.get_value().get(events))
      return error;
    // The slice ends at its ']': the outline closed the array there.
    return root.readEvents(events, onEvent);
  }

  StringRef text, origin;
  const JsonOutline &outline;
  od::parser parser;
  std::string buffer;
};
} // namespace

Expected<KinetoTrace> KinetoTrace::load(StringRef path) {
  Expected<InputText> text = InputText::read(path);
  if (!text)
    return text.takeError();
  return parse(text->text(), path);
}

Expected<KinetoTrace> KinetoTrace::loadBytes(StringRef bytes,
                                             StringRef origin) {
  Expected<InputText> text = InputText::of(bytes, origin);
  if (!text)
    return text.takeError();
  return parse(text->text(), origin);
}

Expected<KinetoTrace> KinetoTrace::parse(StringRef text, StringRef origin,
                                         size_t sliceBytes) {
  // One pass over the bytes finds the event arrays and where to cut them,
  // and refuses JSON nested past the limit, as every reader does.
  Expected<JsonOutline> outline =
      outlineJson(text, origin, "traceEvents", sliceBytes);
  if (!outline)
    return outline.takeError();
  SlicedEventReader events(text, origin, *outline);

  // Pass 1: time base and host process.
  int64_t base = INT64_MAX;
  std::map<int64_t, unsigned> operatorsPerPid;
  RootReader first;
  Error error = events.read(first, [&](const RawEvent &e) {
    if (e.ph.asString() != "X")
      return;
    if (e.ts.kind != Scalar::Kind::Absent) {
      int64_t t = e.ts.asInteger().value_or(
          saturatingInt64(std::floor(e.ts.asNumber(0))));
      base = std::min(base, t);
    }
    if (classify(e.cat.asString()) == EventClass::Operator)
      ++operatorsPerPid[e.pid.loose(0)];
  });
  if (error)
    return std::move(error);
  if (!first.hasEvents)
    return traceError(origin, "not a Kineto trace (no \"traceEvents\")");
  if (first.schemaVersion && *first.schemaVersion != 1)
    return traceError(origin, "unknown Kineto schemaVersion (supported: "
                              "1)");
  if (base == INT64_MAX)
    base = 0;

  KinetoTrace trace;
  trace.base = static_cast<double>(base);
  unsigned best = 0;
  for (auto &[p, count] : operatorsPerPid)
    if (count > best) {
      best = count;
      trace.pid = p;
    }
  std::map<int64_t, KinetoTrace::GpuProperties> &deviceNames = first.gpus;

  // Pass 2: events.
  std::map<int64_t, size_t> runtimeByCorrelation;
  // Flow finish events keyed by (tid, ts in ns): correlation for device
  // events whose args lack it.
  std::map<std::pair<int64_t, int64_t>, int64_t> flowFinish;
  // Flow ids are the trace's, any int64 (DenseSet reserves two).
  std::unordered_set<int64_t> flowStarts, flowEnds;
  std::set<int64_t> threadSet;
  // Stream waits with the correlation ids of their wait and record calls.
  struct RawWait {
    StreamWait wait;
    int64_t waitCorrelation, recordCorrelation;
  };
  std::vector<RawWait> rawWaits;
  auto onEvent = [&](const RawEvent &e) {
    StringRef phase = e.ph.asString();
    EventClass cls = classify(e.cat.asString());
    if (cls == EventClass::Ignored)
      return;
    double ts = timestampOf(e.ts, base);
    int64_t pidOf = e.pid.loose(0);
    int64_t tid = e.tid.loose(0);
    if (cls == EventClass::Flow) {
      int64_t id = e.id.loose(-1);
      if (phase == "s")
        flowStarts.insert(id);
      else if (phase == "f") {
        flowEnds.insert(id);
        flowFinish[{tid, static_cast<int64_t>(std::llround(ts * 1000))}] = id;
      }
      return;
    }
    if (phase != "X")
      return;
    double dur = e.dur.asNumber(0);
    StringRef name = e.name.asString();
    switch (cls) {
    case EventClass::Operator:
    case EventClass::Annotation: {
      if (pidOf != trace.pid) {
        ++trace.stats.otherProcessEvents;
        return;
      }
      if (name.starts_with("ProfilerStep#"))
        trace.stepSpans.push_back({name.str(), ts, dur});
      HostOp op;
      op.name = name.str();
      op.tid = tid;
      op.start = ts;
      op.dur = dur;
      op.externalId = e.externalId.loose(-1);
      op.rfId = e.recordFunctionId.loose(-1);
      op.sequenceNumber = e.sequenceNumber.loose(-1);
      op.isAnnotation = cls == EventClass::Annotation || isAnnotationName(name);
      op.inputDims = e.inputDims;
      op.inputTypes = e.inputTypes;
      threadSet.insert(tid);
      trace.hostOps.push_back(std::move(op));
      break;
    }
    case EventClass::Runtime: {
      if (pidOf != trace.pid) {
        ++trace.stats.otherProcessEvents;
        return;
      }
      RuntimeCall call;
      call.name = name.str();
      call.tid = tid;
      call.start = ts;
      call.dur = dur;
      call.correlation = e.correlation.loose(-1);
      if (call.correlation >= 0)
        runtimeByCorrelation[call.correlation] = trace.runtime.size();
      threadSet.insert(tid);
      trace.runtime.push_back(std::move(call));
      break;
    }
    case EventClass::Kernel:
    case EventClass::Memcpy:
    case EventClass::Memset: {
      DeviceEvent d;
      d.kind = cls == EventClass::Kernel   ? DeviceEventKind::Kernel
               : cls == EventClass::Memcpy ? DeviceEventKind::Memcpy
                                           : DeviceEventKind::Memset;
      d.name = name.str();
      d.device = e.device.loose(pidOf);
      d.stream = e.stream.loose(tid);
      d.start = ts;
      d.dur = dur;
      d.correlation = e.correlation.loose(-1);
      if (d.correlation < 0) {
        auto it = flowFinish.find(
            {tid, static_cast<int64_t>(std::llround(ts * 1000))});
        if (it != flowFinish.end())
          d.correlation = it->second;
      }
      std::copy(e.grid, e.grid + 3, d.grid);
      std::copy(e.block, e.block + 3, d.block);
      d.bytes = e.bytes.loose(0);
      trace.device.push_back(std::move(d));
      break;
    }
    case EventClass::Sync: {
      // Only cross-stream waits order device work; the other kinds (event
      // and stream synchronization) are the host's waits, which the
      // synchronizing runtime calls already are.
      if (name != "Stream Wait Event" ||
          e.waitOnRecord.kind == Scalar::Kind::Absent)
        return;
      RawWait w;
      w.wait.device = e.device.loose(pidOf);
      w.wait.stream = e.stream.loose(tid);
      w.wait.waitOnStream = e.waitOnStream.loose(-1);
      w.waitCorrelation = e.correlation.loose(-1);
      w.recordCorrelation = e.waitOnRecord.loose(-1);
      rawWaits.push_back(w);
      break;
    }
    default:
      break;
    }
  };
  RootReader second;
  if (Error error = events.read(second, onEvent))
    return std::move(error);
  for (int64_t id : flowStarts)
    if (flowEnds.count(id))
      ++trace.stats.flowPairs;

  // Device work -> runtime call.
  std::set<std::pair<int64_t, int64_t>> streamSet;
  for (size_t i = 0, e = trace.device.size(); i < e; ++i) {
    DeviceEvent &d = trace.device[i];
    streamSet.insert({d.device, d.stream});
    auto it = runtimeByCorrelation.find(d.correlation);
    if (d.correlation < 0 || it == runtimeByCorrelation.end()) {
      ++trace.stats.deviceUnlinked;
      continue;
    }
    d.runtimeIndex = it->second;
    trace.runtime[it->second].launched.push_back(i);
  }
  for (RawWait &w : rawWaits) {
    auto waitIt = runtimeByCorrelation.find(w.waitCorrelation);
    auto recordIt = runtimeByCorrelation.find(w.recordCorrelation);
    if (waitIt == runtimeByCorrelation.end() ||
        recordIt == runtimeByCorrelation.end() || w.waitCorrelation < 0 ||
        w.recordCorrelation < 0 || w.wait.waitOnStream < 0 ||
        w.wait.waitOnStream == w.wait.stream)
      continue;
    w.wait.waitCall = waitIt->second;
    w.wait.recordCall = recordIt->second;
    trace.waits.push_back(w.wait);
  }
  trace.stats.deviceEvents = trace.device.size();
  trace.stats.runtimeCalls = trace.runtime.size();
  trace.streamList.assign(streamSet.begin(), streamSet.end());
  trace.threads.assign(threadSet.begin(), threadSet.end());

  // The GPU the kernels ran on (device of the first device event), else
  // device 0.
  int64_t gpuId = trace.device.empty() ? 0 : trace.device.front().device;
  auto nameIt = deviceNames.find(gpuId);
  if (nameIt == deviceNames.end())
    nameIt = deviceNames.begin();
  if (nameIt != deviceNames.end())
    trace.gpu = nameIt->second;

  llvm::sort(trace.stepSpans, [](const StepSpan &a, const StepSpan &b) {
    return a.start < b.start;
  });
  for (const DeviceEvent &d : trace.device)
    trace.deviceEnds.push_back(d.end());
  llvm::sort(trace.deviceEnds);
  trace.buildHostTree();
  // After the host tree: an inferred wait needs the op of each call.
  trace.inferUnnamedWaits(/*waitsToo=*/rawWaits.empty());
  llvm::sort(trace.waits, [&](const StreamWait &a, const StreamWait &b) {
    return trace.runtime[a.waitCall].start < trace.runtime[b.waitCall].start;
  });
  for (size_t i = 0; i < trace.waits.size(); ++i) {
    trace.recordedBy[trace.waits[i].recordCall].push_back(i);
    trace.issuedBy[trace.waits[i].waitCall].push_back(i);
  }
  return trace;
}

void KinetoTrace::inferUnnamedWaits(bool waitsToo) {
  // Every call and each thread's calls, in host order.
  std::vector<size_t> all(runtime.size());
  std::iota(all.begin(), all.end(), 0);
  llvm::stable_sort(all, [&](size_t a, size_t b) {
    return runtime[a].start < runtime[b].start;
  });
  std::map<int64_t, std::vector<size_t>> callsOfThread;
  for (size_t i : all)
    callsOfThread[runtime[i].tid].push_back(i);
  auto firstLaunchAfter = [&](ArrayRef<size_t> calls,
                              double time) -> std::optional<size_t> {
    auto it = llvm::partition_point(
        calls, [&](size_t c) { return runtime[c].start <= time; });
    for (; it != calls.end(); ++it)
      if (!runtime[*it].launched.empty())
        return *it;
    return std::nullopt;
  };
  using StreamKey = std::pair<int64_t, int64_t>;
  // Per stream, by launch: the launch call and the latest end of the
  // stream's measured work launched until then.
  struct Launch {
    size_t call;
    double end;
  };
  std::map<StreamKey, std::vector<Launch>> launchesOn;
  for (size_t i : all)
    for (size_t d : runtime[i].launched) {
      auto &launches = launchesOn[{device[d].device, device[d].stream}];
      double end = device[d].end();
      if (!launches.empty())
        end = std::max(end, launches.back().end);
      launches.push_back({i, end});
    }
  // The last launch on `key` before `time`, by any thread.
  auto lastLaunchBefore = [&](StreamKey key, double time) -> const Launch * {
    auto &launches = launchesOn[key];
    auto it = llvm::partition_point(launches, [&](const Launch &l) {
      return runtime[l.call].start <= time;
    });
    return it == launches.begin() ? nullptr : &*std::prev(it);
  };
  // Kineto's timestamps are whole microseconds: a kernel that starts right
  // after another may show up to 1 us before its end.
  constexpr double kClockSlackUs = 1.0;
  // The top-level op each call is made in.
  std::vector<int64_t> topOpOf(runtime.size(), -1);
  for (size_t op : topLevel)
    for (size_t call : hostOps[op].runtimeCalls)
      topOpOf[call] = op;
  for (auto &[tid, calls] : callsOfThread) {
    // The streams this thread launched on, the latest last.
    std::vector<StreamKey> launchedOn;
    for (size_t call : calls) {
      const RuntimeCall &c = runtime[call];
      if (!c.launched.empty()) {
        const DeviceEvent &e = device[c.launched.back()];
        llvm::erase(launchedOn, StreamKey{e.device, e.stream});
        launchedOn.push_back({e.device, e.stream});
        continue;
      }
      if (StringRef(c.name).ends_with("StreamSynchronize")) {
        // The last stream launched on, if its work had ended by the return.
        if (!launchedOn.empty()) {
          const Launch *last = lastLaunchBefore(launchedOn.back(), c.start);
          if (!last || last->end <= c.end() + kClockSlackUs)
            runtime[call].syncedStream = launchedOn.back();
        }
        continue;
      }
      if (!waitsToo || !StringRef(c.name).ends_with("StreamWaitEvent"))
        continue;
      // The waiting stream: the thread's next launch, else (a wait at the
      // end of the autograd thread's work) the next launch of any thread.
      std::optional<size_t> nextCall = firstLaunchAfter(calls, c.start);
      if (!nextCall)
        nextCall = firstLaunchAfter(all, c.start);
      if (!nextCall)
        continue;
      const DeviceEvent *next = &device[runtime[*nextCall].launched.front()];
      // The stream waited for: the last other one this thread launched on
      // whose work, launched by any thread before the wait, had ended when
      // the waiting stream's next work started (a wait the measured times
      // contradict is not this one).
      for (auto it = launchedOn.rbegin(); it != launchedOn.rend(); ++it) {
        StreamKey key = *it;
        const Launch *last = lastLaunchBefore(key, c.start);
        if (key.first != next->device || key.second == next->stream || !last ||
            next->start + kClockSlackUs < last->end)
          continue;
        // A wait inside one op orders that op's own kernels, which the MLIR
        // path's dependencies between ops cannot carry; both paths leave it
        // out, so they agree.
        if (topOpOf[last->call] >= 0 &&
            topOpOf[last->call] == topOpOf[*nextCall])
          break;
        StreamWait wait;
        wait.device = next->device;
        wait.stream = next->stream;
        wait.waitOnStream = key.second;
        wait.waitCall = wait.recordCall = call;
        waits.push_back(wait);
        ++stats.waitsInferred;
        break;
      }
    }
  }
}

double KinetoTrace::lastDeviceEndAtOrBefore(double time) const {
  auto it = std::upper_bound(deviceEnds.begin(), deviceEnds.end(), time);
  return it == deviceEnds.begin() ? -INFINITY : *std::prev(it);
}

/// An annotation that names a region of host code (a DataLoader fetch, an
/// optimizer step, a record_function of the model). A ProfilerStep is the
/// iteration itself, not a region in it.
static bool isRegion(const HostOp &op) {
  return op.isAnnotation && !StringRef(op.name).starts_with("ProfilerStep#");
}

void KinetoTrace::buildHostTree() {
  // Per thread: host events and runtime calls, outer before inner.
  struct Item {
    double start, end;
    bool isRuntime;
    size_t index;
  };
  std::map<int64_t, std::vector<Item>> perThread;
  std::vector<size_t> bareCalls;
  for (size_t i = 0, e = hostOps.size(); i < e; ++i)
    perThread[hostOps[i].tid].push_back(
        {hostOps[i].start, hostOps[i].end(), false, i});
  for (size_t i = 0, e = runtime.size(); i < e; ++i)
    perThread[runtime[i].tid].push_back(
        {runtime[i].start, runtime[i].end(), true, i});
  // Timestamps rounded by the profiler may make a child end a hair after its
  // parent.
  constexpr double slack = 1e-3;
  for (auto &[tid, items] : perThread) {
    llvm::sort(items, [](const Item &a, const Item &b) {
      if (a.start != b.start)
        return a.start < b.start;
      if (a.end != b.end)
        return a.end > b.end;
      return !a.isRuntime && b.isRuntime;
    });
    // Stack of host events and, per level, the top-level operator at or
    // below it (-1 if none).
    SmallVector<std::pair<size_t, int64_t>> stack;
    for (const Item &item : items) {
      while (!stack.empty() &&
             !(item.start >= hostOps[stack.back().first].start - slack &&
               item.end <= hostOps[stack.back().first].end() + slack))
        stack.pop_back();
      int64_t enclosing = stack.empty() ? -1 : (int64_t)stack.back().first;
      int64_t topOp = stack.empty() ? -1 : stack.back().second;
      if (item.isRuntime) {
        RuntimeCall &call = runtime[item.index];
        call.opIndex = enclosing;
        if (topOp >= 0) {
          hostOps[topOp].runtimeCalls.push_back(item.index);
        } else {
          ++stats.runtimeOutsideOps;
          bareCalls.push_back(item.index);
        }
        continue;
      }
      HostOp &op = hostOps[item.index];
      op.parent = enclosing;
      int64_t newTop = topOp;
      if (topOp >= 0)
        hostOps[topOp].nestedStarts.push_back(op.start);
      else if (!op.isAnnotation) {
        newTop = item.index;
        topLevel.push_back(item.index);
      }
      stack.push_back({item.index, newTop});
    }
  }
  // A runtime call made outside every operator (cudaEventSynchronize or a
  // launch from Python code, cudaDeviceSynchronize at the end of a step) is
  // host time and a dependency all the same: it becomes a top-level op of
  // its own, named after the call, whose one call is itself.
  for (size_t index : bareCalls) {
    RuntimeCall &call = runtime[index];
    HostOp op;
    op.name = call.name;
    op.tid = call.tid;
    op.start = call.start;
    op.dur = call.dur;
    op.isBareRuntimeCall = true;
    op.runtimeCalls.push_back(index);
    call.opIndex = static_cast<int64_t>(hostOps.size());
    topLevel.push_back(hostOps.size());
    hostOps.push_back(std::move(op));
  }
  llvm::sort(topLevel, [&](size_t a, size_t b) {
    if (hostOps[a].start != hostOps[b].start)
      return hostOps[a].start < hostOps[b].start;
    return hostOps[a].tid < hostOps[b].tid;
  });
  // A region's first top-level op enters it (HostOp::entersRegion): the
  // innermost enclosing annotation other than the iteration's ProfilerStep.
  // It is the first op of every region around that one too.
  std::vector<bool> entered(hostOps.size(), false);
  for (size_t index : topLevel) {
    bool innermost = true;
    for (int64_t r = hostOps[index].parent; r >= 0; r = hostOps[r].parent) {
      if (!isRegion(hostOps[r]))
        continue;
      if (innermost && !entered[r])
        hostOps[index].entersRegion = r;
      innermost = false;
      entered[r] = true;
    }
  }
}

std::vector<size_t> KinetoTrace::deviceEventsOf(size_t opIndex) const {
  std::vector<size_t> result;
  for (size_t call : hostOps[opIndex].runtimeCalls)
    for (size_t d : runtime[call].launched)
      result.push_back(d);
  return result;
}

std::vector<StepSpan> KinetoTrace::spansFromMarker(StringRef marker) const {
  std::vector<double> starts;
  for (const HostOp &op : hostOps)
    if (StringRef(op.name).starts_with(marker))
      starts.push_back(op.start);
  llvm::sort(starts);
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::vector<StepSpan> spans;
  for (size_t i = 1; i < starts.size(); ++i)
    spans.push_back({formatv("{0}#{1}", marker, i - 1).str(), starts[i - 1],
                     starts[i] - starts[i - 1]});
  return spans;
}

std::vector<StepSpan> KinetoTrace::iterations(std::string *how) const {
  std::vector<StepSpan> spans;
  for (const StepSpan &step : stepSpans)
    if (llvm::any_of(topLevel, [&](size_t index) {
          double start = hostOps[index].start;
          return start >= step.start && start < step.end();
        }))
      spans.push_back(step);
  if (!spans.empty()) {
    if (how) {
      *how = (Twine(spans.size()) + " ProfilerStep spans").str();
      if (spans.size() < stepSpans.size())
        *how += (" (" + Twine(stepSpans.size() - spans.size()) +
                 " without ops left out)")
                    .str();
    }
    return spans;
  }
  // Without ProfilerStep, a training loop still marks its steps: PyTorch's
  // optimizers record Optimizer.zero_grad#... and Optimizer.step#... once
  // per step.
  for (StringRef marker : {"Optimizer.zero_grad", "Optimizer.step"}) {
    spans = spansFromMarker(marker);
    if (spans.empty())
      continue;
    if (how)
      *how = (Twine(spans.size()) + " iterations between '" + marker +
              "' annotations (no ProfilerStep spans)")
                 .str();
    return spans;
  }
  if (how)
    *how = "no ProfilerStep spans and no optimizer step: whole trace as one "
           "iteration";
  return spans;
}

/// The longest common subsequence of `a` and `b`: the index pairs it
/// matches, in order. Exact for up to kMaxCells cells of the dynamic
/// program (one byte each); beyond, `a` is cut to the stretch where `b`'s
/// first and last names occur so the table stays in bounds.
static std::vector<std::pair<size_t, size_t>>
alignSequences(ArrayRef<unsigned> a, ArrayRef<unsigned> b) {
  constexpr size_t kMaxCells = size_t(1) << 27;
  size_t offset = 0;
  if (!b.empty() && a.size() * b.size() > kMaxCells) {
    size_t span = std::max<size_t>(1, kMaxCells / b.size());
    // Start where b's first name first occurs, so a window of one
    // iteration of a long profile lines up.
    auto it = llvm::find(a, b.front());
    offset = it == a.end() ? 0 : size_t(it - a.begin());
    a = a.slice(offset, std::min(span, a.size() - offset));
  }
  size_t n = a.size(), m = b.size();
  // Lengths by rows, and per cell which way the optimum came.
  enum : uint8_t { Diagonal, Up, Left };
  std::vector<uint8_t> from(n * m);
  std::vector<uint32_t> previous(m + 1, 0), current(m + 1, 0);
  for (size_t i = 1; i <= n; ++i) {
    current[0] = 0;
    for (size_t j = 1; j <= m; ++j) {
      uint8_t &way = from[(i - 1) * m + (j - 1)];
      if (a[i - 1] == b[j - 1]) {
        current[j] = previous[j - 1] + 1;
        way = Diagonal;
      } else if (previous[j] >= current[j - 1]) {
        current[j] = previous[j];
        way = Up;
      } else {
        current[j] = current[j - 1];
        way = Left;
      }
    }
    std::swap(previous, current);
  }
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t i = n, j = m; i > 0 && j > 0;) {
    uint8_t way = from[(i - 1) * m + (j - 1)];
    if (way == Diagonal) {
      pairs.push_back({offset + i - 1, j - 1});
      --i;
      --j;
    } else if (way == Up) {
      --i;
    } else {
      --j;
    }
  }
  std::reverse(pairs.begin(), pairs.end());
  return pairs;
}

KinetoTrace::EtLinkResult
KinetoTrace::linkExecutionTrace(const ExecutionTrace &et) {
  EtLinkResult result;
  // The ET records operators: a bare runtime call has no node to link to.
  std::vector<size_t> operators;
  for (size_t index : topLevel)
    if (!hostOps[index].isBareRuntimeCall)
      operators.push_back(index);
  result.pidMismatch = et.pid() != 0 && et.pid() != pid;
  for (size_t index : operators) {
    HostOp &op = hostOps[index];
    int64_t key = op.rfId >= 0 ? op.rfId : op.externalId;
    const ExecNode *node = key >= 0 ? et.findByRfId(key) : nullptr;
    if (!node) {
      ++result.unlinked;
      continue;
    }
    if (node->name != op.name) {
      ++result.nameMismatch;
      continue;
    }
    op.etNode = node->id;
    ++result.linked;
  }
  const std::vector<size_t> &etOps = et.topLevelOps();
  if (!etOps.empty() && result.linked * 2 < etOps.size()) {
    // Many traces number record functions differently in the two files:
    // align the op-name sequences instead.
    StringMap<unsigned> ids;
    auto idOf = [&](StringRef name) {
      return ids.try_emplace(name, ids.size()).first->second;
    };
    std::vector<unsigned> kinetoNames, etNames;
    for (size_t index : operators)
      kinetoNames.push_back(idOf(hostOps[index].name));
    for (size_t index : etOps)
      etNames.push_back(idOf(et.nodes()[index].name));
    // Where the profile repeats the ET's iteration, the match lands on the
    // last copy (the traceback starts at the end): a warmed-up step. Two
    // traces whose names agree on less than half of the ET's ops are not of
    // the same program.
    std::vector<std::pair<size_t, size_t>> pairs =
        alignSequences(kinetoNames, etNames);
    if (pairs.size() > result.linked && 2 * pairs.size() >= etOps.size()) {
      for (size_t index : operators)
        hostOps[index].etNode = -1;
      result = EtLinkResult{};
      result.pidMismatch = et.pid() != 0 && et.pid() != pid;
      result.alignedByName = true;
      for (auto [k, e] : pairs)
        hostOps[operators[k]].etNode = et.nodes()[etOps[e]].id;
      result.linked = pairs.size();
      result.unlinked = operators.size() - pairs.size();
    }
  }
  result.operators = operators.size();
  result.etUnlinked =
      etOps.size() - std::min<size_t>(etOps.size(), result.linked);
  // Kernels the link loses: unlinked ops with device work between the first
  // and the last linked op.
  size_t first = operators.size(), last = 0;
  for (size_t k = 0; k < operators.size(); ++k)
    if (hostOps[operators[k]].etNode >= 0) {
      first = std::min(first, k);
      last = k;
    }
  for (size_t k = first; k <= last && k < operators.size(); ++k)
    if (hostOps[operators[k]].etNode < 0 &&
        !deviceEventsOf(operators[k]).empty())
      ++result.unlinkedWithDeviceWork;
  return result;
}

bool copiesPageableMemory(const DeviceEvent &event) {
  return event.kind == DeviceEventKind::Memcpy &&
         StringRef(event.name).contains("Pageable");
}

/// The class of a kernel named `name`: the name lowered and searched for a
/// score of words.
static StringRef classifyKernelName(StringRef name) {
  std::string lower = name.lower();
  StringRef n(lower);
  if (n.contains("nccl") || n.contains("rccl"))
    return "nccl";
  // Fused attention: FlashAttention's kernels, PyTorch's memory-efficient
  // (fmha) ones, cuDNN's generated SDPA kernels (whose names also say
  // "fprop", hence before the convolutions).
  if (n.contains("flash_fwd") || n.contains("flash_bwd") ||
      n.contains("flash::") || n.contains("fmha") || n.contains("sdpa") ||
      n.contains("attention"))
    return "attention";
  if (n.contains("conv") || n.contains("scudnn") || n.contains("fprop") ||
      n.contains("dgrad") || n.contains("wgrad") || n.contains("winograd"))
    return "conv";
  // cuBLAS's Hopper kernels are "nvjet_sm90_...".
  if (n.contains("gemm") || n.contains("cutlass") || n.contains("xmma") ||
      n.contains("gemv") || n.contains("matmul") || n.contains("cublas") ||
      n.contains("nvjet"))
    return "gemm";
  if (n.contains("embedding"))
    return "embedding";
  if (n.contains("softmax"))
    return "softmax";
  if (n.contains("norm") || n.contains("bn_fw") || n.contains("bn_bw"))
    return "norm";
  if (n.contains("reduce"))
    return "reduce";
  if (n.contains("elementwise") || n.contains("vectorized") ||
      n.contains("unrolled") || n.contains("fill") || n.contains("copy") ||
      n.contains("pointwise") || n.contains("triton"))
    return "elementwise";
  return "other";
}

StringRef classifyDeviceEvent(const DeviceEvent &event) {
  if (event.kind == DeviceEventKind::Memcpy)
    return "memcpy";
  if (event.kind == DeviceEventKind::Memset)
    return "memset";
  // A trace launches the same few thousand kernels over and over, and its
  // importer, analysis and replay each ask for every event's class: each
  // name is classified once per thread. Bounded, for a process that reads
  // trace after trace.
  thread_local llvm::StringMap<StringRef> classOfName;
  if (classOfName.size() >= (1u << 16))
    classOfName.clear();
  auto [it, fresh] = classOfName.try_emplace(event.name);
  if (fresh)
    it->second = classifyKernelName(event.name);
  return it->second;
}

} // namespace trace
} // namespace perf
