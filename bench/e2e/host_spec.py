#!/usr/bin/env python3
"""Writes a host spec (a host overhead table with its per-block time) from
what runtime/bench/campaign/host_ops.py measured on a machine.

    bench/e2e/host_spec.py [--host-ops data/measured/h200/host-ops.json]
        [--probe data/measured/h200/host-overheads.json] [--build build]
        [--out data/hosts/h200-vm.json]

Each ATen op a transformer step calls costs the host what host_ops.py
measured per call of it (the op's class where it measured a sibling: `addmm`
is `F.linear`, `tanh` and `relu` are `gelu`'s element-wise call): T4 is the
probe's `cudaLaunchKernel` and T1 the rest of the call. HuggingFace's blocks
spend more on the host than their ATen ops: module calls, the cache update's
and the attention's Python. That is `layer_us`, fitted as the median over
the tiny models host_ops.py timed (the real models' layer counts and code at
width 64) of (their measured step - the ops' sum) / layers. Prints each
tiny model's step against the spec's (in-sample).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The ATen op a config-built step names -> the call host_ops.py timed.
CLASS = {
    "aten::addmm": "aten::linear", "aten::linear": "aten::linear",
    "aten::mm": "aten::matmul", "aten::bmm": "aten::matmul", "aten::matmul": "aten::matmul",
    "aten::add": "aten::add", "aten::sub": "aten::add", "aten::maximum": "aten::add",
    "aten::arange": "aten::add", "aten::full": "aten::add", "aten::native_dropout": "aten::add",
    "aten::mul": "aten::mul", "aten::div": "aten::div", "aten::where": "aten::where",
    "aten::pow": "aten::pow", "aten::rsqrt": "aten::rsqrt", "aten::mean": "aten::mean",
    "aten::cumsum": "aten::mean",
    "aten::tanh": "aten::gelu", "aten::gelu": "aten::gelu", "aten::relu": "aten::gelu",
    "aten::neg": "aten::gelu", "aten::cos": "aten::gelu", "aten::sin": "aten::gelu",
    "aten::silu": "aten::silu",
    "aten::_softmax": "aten::softmax", "aten::softmax": "aten::softmax",
    "aten::native_layer_norm": "aten::layer_norm",
    "aten::cat": "aten::cat", "aten::clone": "aten::clone", "aten::contiguous": "aten::clone",
    "aten::embedding": "aten::embedding", "aten::_to_copy": "aten::_to_copy",
    "aten::_scaled_dot_product_flash_attention": "aten::scaled_dot_product_attention",
    "aten::_scaled_dot_product_efficient_attention": "aten::scaled_dot_product_attention",
    "aten::_scaled_dot_product_cudnn_attention": "aten::scaled_dot_product_attention",
}


def table(ops, launch, source, layer_us=0.0):
    rest = lambda op: round(max(0.0, ops[op] - launch), 3)
    doc = {"schema": "perf.overhead_table/1", "version": 1, "source": source,
           "default": {"t1": rest("aten::add"), "t2": 0, "t3": 0, "t5": 0, "t4": launch},
           "runtime": {"cudaLaunchKernel": launch},
           "ops": {name: {"t1": rest(call), "t2": 0, "t3": 0, "t5": 0}
                   for name, call in sorted(CLASS.items())}}
    if layer_us:
        doc["layer_us"] = round(layer_us, 1)
    return doc


def host_us(build, model, label, attn, spec, work):
    """The host time perf-opt gives the step host_ops.py timed tiny."""
    step = os.path.join(work, "step.mlir")
    cmd = [os.path.join(build, "bin", "perf-translate"), "--import-model-config",
           os.path.join(ROOT, "data", "e2e", "configs", model + ".json"),
           "--batch=1", "--dtype=bf16", "--attention=" + attn, "--kv-cache=cropped",
           "-o", step]
    if label.startswith("decode"):
        cmd += ["--phase=decode", "--context=" + label.split("-")[1], "--seq=1"]
    else:
        cmd += ["--seq=" + label.split("-")[1]]
    if model.startswith("bert"):
        cmd += ["--head=none"]
    subprocess.run(cmd, check=True)
    out = subprocess.run([os.path.join(build, "bin", "perf-opt"), step, "--perf-device=H200",
                          "--estimate=models=roofline format=json overheads=" + spec],
                         check=True, capture_output=True, text=True).stdout
    graph = json.loads(out)["graphs"][0]
    layers = int(json.load(open(os.path.join(ROOT, "data", "e2e", "configs", model + ".json")))
                 .get("num_hidden_layers") or json.load(open(os.path.join(
                     ROOT, "data", "e2e", "configs", model + ".json"))).get("n_layer"))
    return graph["host_us"], layers


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host-ops", default=os.path.join(ROOT, "data", "measured", "h200", "host-ops.json"))
    ap.add_argument("--probe", default=os.path.join(ROOT, "data", "measured", "h200", "host-overheads.json"))
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", default=os.path.join(ROOT, "data", "hosts", "h200-vm.json"))
    args = ap.parse_args()
    measured = json.load(open(args.host_ops))
    launch = json.load(open(args.probe))["runtime"]["cudaLaunchKernel"]
    source = ("bench/e2e/host_spec.py from %s (host_ops.py, PyTorch %s, %s) and %s" %
              (os.path.relpath(args.host_ops, ROOT), measured["torch"], measured["device"],
               os.path.relpath(args.probe, ROOT)))
    rows = []
    with tempfile.TemporaryDirectory() as work:
        spec = os.path.join(work, "ops.json")
        json.dump(table(measured["ops"], launch, source), open(spec, "w"))
        for key, steps in sorted(measured["tiny_models"].items()):
            model, attn = key.rsplit("-", 1)
            for label, ms in sorted(steps.items()):
                ops_us, layers = host_us(args.build, model, label, attn, spec, work)
                rows.append((key, label, ms * 1000.0, ops_us, layers))
        layer_us = statistics.median((m - o) / n for _, _, m, o, n in rows)
        doc = table(measured["ops"], launch, source, layer_us)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    print("layer_us %.1f (median of %d tiny steps); in-sample:" % (layer_us, len(rows)))
    errors = []
    for key, label, m, o, n in rows:
        pred = o + n * layer_us
        errors.append(abs(pred - m) / m)
        print("  %-18s %-12s measured %7.1f ms  spec %7.1f ms  %+5.1f%%" %
              (key, label, m / 1000, pred / 1000, 100 * (pred - m) / m))
    print("mean |error| %.1f%%" % (100 * statistics.mean(errors)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
