"""perf from Python: GPU kernel and step times without the GPU.

    import perf
    perf.kernel_latency("gemm", device="H100", dtype="bf16", m=4096, n=4096, k=4096)
    report = perf.estimate("examples/mlp_training.mlir", device="H100")
    report["graphs"][0]["e2e_us"]

Kernels are the perf dialect's kinds of device work (docs/dialect.md) with their
attributes as keyword arguments; steps are perf IR files (text or bytecode),
ONNX models, or steps built from a HuggingFace config. The default model
stack is the one `perf-opt --estimate` uses (the shipped learned models,
routed by their held-out selection; the roofline where no model folder is
installed). Every failure raises perf.Error with the message the tools
print. docs/python.md has the whole API.
"""

import json
import os

from . import _perf
from ._perf import Error

__all__ = ["Error", "CostModel", "devices", "device", "kernel_latency", "estimate",
           "import_model_config", "import_onnx", "__version__"]

__version__ = _perf.version()


def devices():
    """The catalog's GPU names (what `device=` accepts besides a device JSON
    file)."""
    return _perf.devices()


def device(name):
    """The figures of a catalog GPU or a device JSON file, as the device JSON
    format spells them (docs/devices.md)."""
    return json.loads(_perf.device_json(os.fspath(name)))


def _enum_mnemonic(kind, key):
    """The mnemonic of the enum attribute `key` of a `kind` kernel (docs/dialect.md),
    or None when the attribute is not an enum. (A memcpy's `kind` cannot be given:
    `kind` names the kernel.)"""
    if key == "algorithm":
        return "optimizer" if kind == "optimizer" else "nccl"
    return "pass" if key == "pass" else None


def _attribute(key, value, kind=None):
    """One kernel attribute in perf dialect syntax, or None (a false flag)."""
    mnemonic = _enum_mnemonic(kind, key)
    if mnemonic and isinstance(value, str):
        if not value.replace("_", "").isalnum():
            raise Error("kernel attribute '%s': %r is not a keyword" % (key, value))
        return "%s = #perf.%s<%s>" % (key, mnemonic, value)
    if isinstance(value, bool):
        return key if value else None
    if isinstance(value, int):
        return "%s = %d" % (key, value)
    if isinstance(value, float):
        return "%s = %r : f64" % (key, value)
    if isinstance(value, str):
        if key == "dtype":
            return "dtype = " + _perf.mlir_type(value)
        return "%s = %s" % (key, json.dumps(value))
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value):
        return "%s = array<i64: %s>" % (key, ", ".join(str(v) for v in value))
    raise Error("kernel attribute '%s': cannot use a %s" % (key, type(value).__name__))


def _kernel(kind, fields):
    """A kernel as a perf.op's work list writes it: `perf.<kind> {...}`."""
    if not isinstance(kind, str) or not kind.replace("_", "").isalnum():
        raise Error("kernel kind must be a perf kernel kind such as 'gemm', got %r"
                    % (kind,))
    attributes = [a for a in (_attribute(k, v, kind) for k, v in fields.items()) if a]
    return "perf.%s {%s}" % (kind, ", ".join(attributes))


def _ml_dir(ml_dir, model_dir):
    """The model folder given as ml_dir= (every tool's --ml-dir) or by its
    earlier name model_dir=, as a path string ("" for none)."""
    if ml_dir is not None and model_dir is not None:
        raise Error("give the model folder once: ml_dir= (model_dir= is its earlier name)")
    folder = ml_dir if ml_dir is not None else model_dir
    return os.fspath(folder) if folder else ""


class CostModel:
    """A kernel model stack, built once (loading learned models takes a
    moment) and asked for many kernels.

    models: comma-separated model order ("db,ml,tile,heuristic,roofline"), or
    "auto" (the default: what perf-opt --estimate uses). db: a perf database
    (SQLite) for the db model; ml_dir: a perf-train folder for ml, tile and
    calibrated (default: the shipped one; model_dir= is its earlier name).
    """

    def __init__(self, models="auto", db=None, ml_dir=None, *, model_dir=None):
        self._stack = _perf.CostModel(models, os.fspath(db) if db else "",
                                      _ml_dir(ml_dir, model_dir))

    @property
    def models(self):
        """The models tried, in order."""
        return self._stack.models()

    def latency(self, kind, device, **attributes):
        """Prices one kernel on `device`: {"latency_us", "model", "flops",
        "bytes"}. `kind` is a kernel kind (gemm, conv2d, elementwise, softmax,
        layernorm, attention, ...), the keywords its attributes (m=, n=, k=,
        dtype="bf16", tensor_cores=True, ...), checked as the IR verifier
        checks them."""
        latency, model, flops, nbytes = self._stack.price(_kernel(kind, attributes),
                                                          os.fspath(device))
        return {"latency_us": latency, "model": model, "flops": flops, "bytes": nbytes}


def kernel_latency(kind, device, models="auto", db=None, ml_dir=None, *, model_dir=None,
                   **attributes):
    """CostModel(models, db, ml_dir).latency(kind, device, **attributes)."""
    return CostModel(models, db, _ml_dir(ml_dir, model_dir)).latency(kind, device,
                                                                     **attributes)


def estimate(source=None, *, ir=None, device=None, passes=None, timeline=False,
             onnx_batch=None, model_dir=None, **options):
    """Estimates every graph of a step: `source` is a .mlir file (text or
    bytecode) or an .onnx model, or give the IR text as `ir=`. `device` (a
    catalog GPU or device JSON file) becomes every graph's target; `passes`
    is a pass pipeline run first ("perf-fuse-embeddings,perf-data-parallel{
    devices=4}"). The other keywords are the options of perf-opt's estimate
    pipeline, with `_` for `-` (`models`, `db`, `ml_dir`, `system`,
    `overheads`, `iterations`, `launch`, `host_scale`, `kernel_gap_us`, ...:
    `perf-opt --help` lists them under --estimate; docs/estimate.md). Returns
    the JSON report as a dict (docs/estimate.md); with timeline=True its
    "timeline" is the predicted schedule as Chrome Trace Event JSON
    (docs/timeline.md)."""
    if (source is None) == (ir is None):
        raise Error("give one of a file (source) and IR text (ir=)")
    folder = _ml_dir(options.pop("ml_dir", None), model_dir)
    if folder:
        options["ml_dir"] = folder
    text = []
    for key, value in options.items():
        if value is None:
            continue
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, os.PathLike):
            value = os.fspath(value)
        text.append("%s='%s'" % (key.replace("_", "-"), value))
    report, trace = _perf.estimate(
        os.fspath(source) if source is not None else "", ir or "", device or "",
        passes or "", " ".join(text), timeline, onnx_batch or 0)
    result = json.loads(report)
    if timeline:
        result["timeline"] = json.loads(trace)
    return result


def import_model_config(path, *, seq, batch=1, phase="inference", dtype="fp32",
                        attention="eager", head="default", optimizer="none", loss="none",
                        context=0, expert_routing="balanced", kv_cache="none",
                        master_weights=False, engine="hf", kv_block_size=16):
    """The step of a HuggingFace config.json as perf IR text (what
    `perf-translate --import-model-config` writes; the keywords are its
    flags, docs/transformers.md). Pass it to estimate(ir=...)."""
    flags = _perf.StepFlags()
    flags.batch, flags.seq, flags.context = batch, seq, context
    flags.phase, flags.dtype, flags.attention = phase, dtype, attention
    flags.head, flags.optimizer, flags.loss = head, optimizer, loss
    flags.routing, flags.kv_cache = expert_routing, kv_cache
    flags.master_weights = master_weights
    flags.engine, flags.kv_block_size = engine, kv_block_size
    return _perf.import_model_config(os.fspath(path), flags)


def import_onnx(path, *, batch=None):
    """An ONNX model as perf IR text (perf-translate --import-onnx), with the
    batch size re-inferred when given."""
    return _perf.import_onnx(os.fspath(path), batch or 0)
