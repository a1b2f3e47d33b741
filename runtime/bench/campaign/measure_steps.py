#!/usr/bin/env python3
"""Measure whole transformer steps on the local GPU with PyTorch and HuggingFace.

For each label of a NeuSight-style folder (configs/<model>.json and the
label names <model>-<inf|train>-<seq>-<batch>), builds the model from its
config with random weights on the GPU, feeds input ids of all ones (as
NeuSight's measure_e2e does) and times the step with CUDA events: inference
is one forward under no_grad; training is forward + backward from gradients
of ones on the logits (no loss; no optimizer, or Adam's step with --optimizer
adam), the step the importer's --phase=training --optimizer=none|adam
--loss=none builds. A label <model>-decode-<context>-<batch> is one generation
step, one new token per sequence over a KV cache of <context> tokens (the
importer's --phase=decode --context=N).

    measure_steps.py --configs DIR --out steps.json [--dtype fp32,bf16]
                     [--attn eager,sdpa] [--labels LIST] [--reps N]
                     [--optimizer none|adam] [--launch eager,cuda-graph,compiled]
                     [--dry-run]

--launch says how an inference or decode step is launched: eager (PyTorch
dispatches every op), cuda-graph (the step captured once with
torch.cuda.CUDAGraph after the warm-up and replayed: the host launches one
graph) or compiled (torch.compile's default mode: Inductor's fused kernels,
launched from Python). Training steps run eager. --dry-run checks the
labels and configs and prints the plan without importing PyTorch.

Results are rewritten to --out after every step, so a run that is stopped
keeps what it measured; a rerun skips the steps --out already has.
"""

import argparse
import contextlib
import json
import os
import sys
import time

# How a step is launched (--launch).
LAUNCHES = ("eager", "cuda-graph", "compiled")

DEFAULT_LABELS = [
    "bert_large-inf-512-8", "bert_large-inf-512-16",
    "gpt2_large-inf-1024-4", "gpt2_large-inf-1024-8",
    "gpt3_xl-inf-2048-2", "gpt3_xl-inf-2048-8",
    "gpt3_27-inf-2048-2", "gpt3_27-inf-2048-8",
    "opt_13-inf-2048-2", "opt_13-inf-2048-8",
    "switchxl4-inf-512-1", "switchxl4-inf-512-2",
    "switchxl4-inf-2048-1", "switchxl4-inf-2048-2",
    "bert_large-train-512-2", "bert_large-train-512-8",
    "gpt2_large-train-1024-1",
]


def parse_label(name):
    model, phase, seq, batch = name.rsplit("-", 3)
    return model, phase, int(seq), int(batch)


def build(torch, transformers, cfg_path, model, phase, dtype, attn):
    with open(cfg_path) as f:
        d = json.load(f)
    mtype = d.pop("model_type")
    d.pop("torch_dtype", None)
    d.pop("dtype", None)
    cfg = transformers.AutoConfig.for_model(mtype, **d)
    cfg._attn_implementation = attn
    if mtype == "bert":
        cls = (transformers.BertForPreTraining if phase == "train"
               else transformers.BertForSequenceClassification)
    elif mtype == "switch_transformers":
        cls = transformers.SwitchTransformersForConditionalGeneration
    else:
        cls = transformers.AutoModelForCausalLM
    with torch.device("cuda"):
        # The Auto classes build through from_config; a model class through
        # its constructor (it has no from_config).
        m = cls.from_config(cfg) if hasattr(cls, "from_config") else cls(cfg)
    m = m.to(device="cuda", dtype=dtype)
    return m, mtype


def outputs(out):
    keys = ("logits", "prediction_logits", "seq_relationship_logits")
    return [getattr(out, k) for k in keys if getattr(out, k, None) is not None]


def event_time_ms(torch, fn):
    """The GPU time of fn() in ms, between two CUDA events."""
    a = torch.cuda.Event(enable_timing=True)
    b = torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b)


def time_step(torch, m, mtype, phase, seq, batch, reps, warmup, optimizer="none",
              timed=None, launch="eager"):
    """Times of `reps` steps in ms. For a decode step `seq` is the context:
    the cache is filled once by a prefill of that many tokens, and cut back
    to it after every step (outside the timed region). `timed`, a context
    manager, encloses the timed steps alone (a profiler)."""
    ids = torch.ones(batch, 1 if phase == "decode" else seq, dtype=torch.long,
                     device="cuda")
    kw = {"decoder_input_ids": ids} if mtype == "switch_transformers" else {}
    if phase == "train":
        m.train()
    else:
        m.eval()
    opt = None
    if phase == "train" and optimizer == "adam":
        opt = torch.optim.Adam(m.parameters(), lr=1e-6)
    cache = None
    if phase == "decode":
        with torch.no_grad():
            prefill = torch.ones(batch, seq, dtype=torch.long, device="cuda")
            cache = m(input_ids=prefill, use_cache=True).past_key_values

    def step():
        if phase == "train":
            outs = outputs(m(input_ids=ids, **kw))
            torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
            if opt is not None:
                opt.step()
            for p in m.parameters():
                p.grad = None
        elif phase == "decode":
            with torch.no_grad():
                m(input_ids=ids, past_key_values=cache, use_cache=True)
        else:
            with torch.no_grad():
                m(input_ids=ids, **kw)

    def reset():
        if cache is not None:
            cache.crop(seq)

    for _ in range(warmup):
        step()
        reset()
    torch.cuda.synchronize()
    if launch == "cuda-graph":
        # Captured once, on a side stream as PyTorch requires, after the
        # warm-up above allocated what the step needs; the replay reads the
        # cache the capture read (reset() crops it back each time).
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        reset()
        torch.cuda.synchronize()
        step = graph.replay
    times = []
    with timed if timed is not None else contextlib.nullcontext():
        for _ in range(reps):
            times.append(event_time_ms(torch, step))
            reset()
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--dtype", default="fp32")
    ap.add_argument("--attn", default="eager")
    ap.add_argument("--labels", default=",".join(DEFAULT_LABELS))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--optimizer", default="none", choices=("none", "adam"),
                    help="training steps: none (forward + backward) or adam (then Adam's step)")
    ap.add_argument("--launch", default="eager",
                    help="comma-separated: eager, cuda-graph, compiled (inference and decode)")
    ap.add_argument("--dry-run", action="store_true",
                    help="check the labels and configs, print the plan, measure nothing")
    args = ap.parse_args()
    launches = args.launch.split(",")
    for launch in launches:
        if launch not in LAUNCHES:
            print("error: --launch %s: not one of %s" % (launch, ", ".join(LAUNCHES)),
                  file=sys.stderr)
            return 2
    plan = []
    for label in args.labels.split(","):
        try:
            model, phase, seq, batch = parse_label(label)
        except ValueError:
            print("error: label '%s' is not <model>-<inf|train|decode>-<seq>-<batch>" % label,
                  file=sys.stderr)
            return 2
        if phase not in ("inf", "train", "decode"):
            print("error: label '%s': phase '%s' is not inf, train or decode" % (label, phase),
                  file=sys.stderr)
            return 2
        if not os.path.exists(os.path.join(args.configs, model + ".json")):
            print("error: label '%s': no %s.json in %s" % (label, model, args.configs),
                  file=sys.stderr)
            return 2
        for launch in launches:
            if launch == "eager" or phase != "train":
                plan.append((label, launch))
    if args.dry_run:
        for dname in args.dtype.split(","):
            for attn in args.attn.split(","):
                for label, launch in plan:
                    print("plan %s %s %s %s" % (label, dname, attn, launch))
        return 0

    import torch
    import transformers
    # PyTorch's default since 1.12, stated so that FP32 means FP32 (no TF32).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dtypes = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}

    doc = {"schema": "perf.measured_steps/1", "steps": []}
    if os.path.exists(args.out):
        with open(args.out) as f:
            doc = json.load(f)
    have = {(s["label"], s["dtype"], s["attn"], s.get("optimizer", "none"),
             s.get("launch", "eager")) for s in doc["steps"]}
    doc["device"] = torch.cuda.get_device_name(0)
    doc["torch"] = torch.__version__
    doc["cuda"] = torch.version.cuda
    doc["cudnn"] = torch.backends.cudnn.version()
    doc["transformers"] = transformers.__version__
    doc["date"] = time.strftime("%Y-%m-%d")
    doc["method"] = ("random weights, input ids of ones, CUDA events around each "
                     "step; inference under no_grad; training forward + backward "
                     "from ones on the logits, no optimizer; TF32 off")

    # Consecutive labels of one model share it (built once: a 8B model takes
    # seconds to initialize); training builds its own class (BERT's heads).
    built = {"key": None, "model": None}

    def model_for(model, phase, dname, attn, launch):
        key = (model, phase == "train", dname, attn, launch == "compiled")
        if built["key"] != key:
            built["key"], built["model"] = None, None
            torch.cuda.empty_cache()
            m, mtype = build(torch, transformers,
                             os.path.join(args.configs, model + ".json"),
                             model, phase, dtypes[dname], attn)
            if launch == "compiled":
                m = torch.compile(m)
            built["model"] = (m, mtype)
            built["key"] = key
        return built["model"]

    for dname in args.dtype.split(","):
        for attn in args.attn.split(","):
            for label, launch in plan:
                if (label, dname, attn, args.optimizer, launch) in have:
                    continue
                model, phase, seq, batch = parse_label(label)
                t0 = time.time()
                entry = {"label": label, "model": model, "phase": phase,
                         "seq": seq, "batch": batch, "dtype": dname, "attn": attn}
                if phase == "train":
                    entry["optimizer"] = args.optimizer
                if launch != "eager":
                    entry["launch"] = launch
                try:
                    m, mtype = model_for(model, phase, dname, attn, launch)
                    # Compilation happens in the first calls: more warm-up.
                    warmup = args.warmup + (3 if launch == "compiled" else 0)
                    times = time_step(torch, m, mtype, phase, seq, batch,
                                      args.reps, warmup, args.optimizer,
                                      launch=launch)
                    times.sort()
                    entry.update(ms_median=times[len(times) // 2], ms_min=times[0],
                                 ms_all=[round(t, 4) for t in times])
                    del m
                except Exception as e:  # keep going: one model failing is data too
                    entry["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
                    built["key"], built["model"] = None, None
                torch.cuda.empty_cache()
                entry["wall_s"] = round(time.time() - t0, 1)
                doc["steps"].append(entry)
                with open(args.out + ".tmp", "w") as f:
                    json.dump(doc, f, indent=1)
                os.replace(args.out + ".tmp", args.out)
                print("%-28s %s %-5s %-10s %s" % (label, dname, attn, launch,
                      "%.3f ms" % entry["ms_median"] if "ms_median" in entry
                      else entry["error"]), flush=True)


if __name__ == "__main__":
    sys.exit(main())
