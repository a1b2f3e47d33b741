#!/usr/bin/env python3
"""The parts of the campaign's PyTorch scripts that need no GPU: which shapes
torch_layer_ops.py times and how it reads a profiler trace, and how
kernel_gap.py reads gaps (hand-written traces; no measurement is claimed)."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kernel_gap  # noqa: E402
import torch_layer_ops  # noqa: E402


class LayerOpShapes(unittest.TestCase):
    def test_spec_expansion(self):
        spec = {"kernels": [
            {"kind": "softmax", "dtype": ["bf16", "f32"], "rows": [16, 32], "cols": 128},
            {"kind": "elementwise", "dtype": "bf16", "elements": {"from": 1024, "to": 16384,
                                                                 "mul": 4},
             "inputs": [1, 2, 3], "op": ["add", "gelu"]},
            {"kind": "conv2d", "dtype": "f16", "n": 1}]}
        got = [(k, d, s) for k, d, s, _ in torch_layer_ops.shapes(spec)]
        # 2 dtypes x 2 rows; add with 1 and 2 inputs and gelu with 1, each at
        # 1024, 4096 and 16384 elements; three inputs and conv skipped.
        self.assertEqual(len(got), 4 + 9)
        self.assertEqual(got[0], ("softmax", "bf16", "rows=16 cols=128"))
        self.assertIn(("elementwise", "bf16", "n=4096 in=2 op=add"), got)
        self.assertIn(("elementwise", "bf16", "n=16384 in=1 op=gelu"), got)
        self.assertNotIn(("elementwise", "bf16", "n=1024 in=3 op=add"), got)
        self.assertNotIn(("elementwise", "bf16", "n=1024 in=2 op=gelu"), got)

    def test_the_shipped_layer_sweep(self):
        with open(os.path.join(HERE, "layer-sweep.json")) as f:
            shapes = list(torch_layer_ops.shapes(json.load(f)))
        # layernorm 3 x 3 x 5, softmax 3 x 3 x 4, reduce 2 x 2 x 2, element-wise
        # 3 dtypes x 7 sizes x (2 binary + 3 unary).
        self.assertEqual(len(shapes), 45 + 36 + 8 + 105)

    def test_kernel_list(self):
        listed = {"kernels": [
            {"kind": "layernorm", "dtype": "bf16", "signature": "rows=8 cols=64"},
            {"kind": "elementwise", "dtype": "f32", "signature": "n=10 in=1 op=add"},
            {"kind": "elementwise", "dtype": "f32", "signature": "n=10 in=2 op=where"},
            {"kind": "elementwise", "dtype": "i64", "signature": "n=10 in=2 op=add"},
            {"kind": "gemm", "dtype": "f32", "signature": "b=1 m=1 n=1 k=1 ta=0 tb=0"}]}
        got = list(torch_layer_ops.listed_shapes(listed))
        self.assertEqual(got, [("layernorm", "bf16", "rows=8 cols=64", (8, 64)),
                               ("elementwise", "f32", "n=10 in=1 op=add", (10, 1, "add"))])

    def test_cnn_layers_of_a_kernel_list(self):
        conv = "n=32 c=64 h=56 w=56 k=128 r=1 s=1 sh=2 sw=2 ph=0 pw=0 dh=1 dw=1 g=1"
        listed = {"kernels": [
            {"kind": "conv2d", "dtype": "f32", "signature": conv + " pass=wgrad"},
            {"kind": "conv2d", "dtype": "f32", "signature": conv.replace("g=1", "g=3")
             + " pass=fwd"},
            {"kind": "pooling", "dtype": "f32",
             "signature": "n=32 c=64 h=112 w=112 r=3 s=3 sh=2 sw=2 ph=1 pw=1 pass=bwd"},
            {"kind": "pooling", "dtype": "f32",
             "signature": "n=1 c=1 h=8 w=8 r=2 s=2 sh=2 sw=2 ph=2 pw=0 pass=fwd"},
            {"kind": "batchnorm", "dtype": "f32", "signature": "n=6422528 c=64 pass=fwd"},
            {"kind": "batchnorm", "dtype": "f32", "signature": "n=100 c=64 pass=fwd"},
            {"kind": "batchnorm", "dtype": "f32", "signature": "n=128 c=64 pass=update"}]}
        got = [(k, params) for k, _, _, params in torch_layer_ops.listed_shapes(listed)]
        # Kept: the weight gradient, the pooling backward, the first batch
        # norm. Left out: 64 and 128 channels in 3 groups, a padding of 2 on
        # a window of 2, 100 elements over 64 channels, a pass PyTorch has
        # no batch-norm kernel for.
        self.assertEqual([k for k, _ in got], ["conv2d", "pooling", "batchnorm"])
        self.assertEqual(got[0][1][1], "wgrad")
        self.assertEqual(got[0][1][0]["sh"], 2)
        self.assertEqual(got[1][1], ({"n": 32, "c": 64, "h": 112, "w": 112, "r": 3, "s": 3,
                                      "sh": 2, "sw": 2, "ph": 1, "pw": 1}, "bwd"))
        self.assertEqual(got[2][1], ({"n": 6422528, "c": 64}, "fwd"))

    def test_the_shipped_example_kernels(self):
        with open(os.path.join(HERE, "example-kernels.json")) as f:
            listed = json.load(f)
        kinds = {}
        for kind, _, _, _ in torch_layer_ops.listed_shapes(listed):
            kinds[kind] = kinds.get(kind, 0) + 1
        # Every convolution, pooling and batch norm of the examples.
        self.assertEqual((kinds["conv2d"], kinds["pooling"], kinds["batchnorm"]),
                         (475, 48, 132))

    def test_calls_are_consecutive_kernels(self):
        events = [{"cat": "kernel", "ph": "X", "ts": 10 * i, "dur": d, "name": "k"}
                  for i, d in enumerate([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])]
        events.append({"cat": "cuda_runtime", "ph": "X", "ts": 0, "dur": 50.0})
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "t.json")
            with open(path, "w") as f:
                json.dump({"traceEvents": events}, f)
            # Two kernels a call: 1+2, 3+4, 5+6.
            self.assertEqual(torch_layer_ops.call_times(path, 3), ([3.0, 7.0, 11.0], "k"))
            with self.assertRaises(RuntimeError):
                torch_layer_ops.call_times(path, 4)


class Schema(unittest.TestCase):
    def test_the_database_is_perfs(self):
        import sqlite3
        con = sqlite3.connect(":memory:")
        con.executescript(torch_layer_ops.schema_sql())
        self.assertEqual(con.execute("SELECT value FROM meta WHERE key = 'schema_version'")
                         .fetchone(), ("1",))
        columns = [r[1] for r in con.execute("PRAGMA table_info(kernels)")]
        self.assertEqual(columns[:5], ["device", "dtype", "kind", "signature", "latency_us"])


class KernelGap(unittest.TestCase):
    def test_gaps_between_consecutive_kernels(self):
        events = [{"cat": "kernel", "ph": "X", "ts": 0.0, "dur": 100.0},
                  {"cat": "kernel", "ph": "X", "ts": 105.0, "dur": 2.0},
                  {"cat": "kernel", "ph": "X", "ts": 108.5, "dur": 2.0},
                  {"cat": "cuda_runtime", "ph": "X", "ts": 1.0, "dur": 3.0}]
        gaps, durations = kernel_gap.gaps_of(events)
        self.assertEqual(gaps, [5.0, 1.5])
        self.assertEqual(durations, [100.0, 2.0, 2.0])
        s = kernel_gap.summary([1.0, 2.0, 3.0], [0.5, 0.7, 0.9])
        self.assertEqual((s["median_us"], s["mean_us"], s["count"], s["kernel_us"]),
                         (2.0, 2.0, 3, 0.7))


class LlmCampaignDryRun(unittest.TestCase):
    """llm.sh --dry-run: every phase's command checked without a GPU, the
    host probe first, the plan within the eight-minute budget."""

    def run_script(self, *args, env=None):
        import subprocess
        return subprocess.run(list(args), capture_output=True, text=True,
                              env=dict(os.environ, **(env or {})))

    def test_the_plan(self):
        with tempfile.TemporaryDirectory() as out:
            r = self.run_script("bash", os.path.join(HERE, "llm.sh"), "--dry-run", out,
                                env={"PYTHON": sys.executable})
        self.assertEqual(r.returncode, 0, r.stderr)
        phases = [l.split()[1] for l in r.stdout.splitlines() if l.startswith("phase ")]
        self.assertEqual(phases, ["host", "steps", "adam", "attention", "gemm", "compiled"])
        last = r.stdout.strip().splitlines()[-1]
        self.assertEqual(last, "plan: 6 phases, 470 s of 480 s")
        plans = [l.strip() for l in r.stdout.splitlines() if l.startswith("  plan ")]
        # 9 labels x 2 attentions x 2 launches, Adam's step, 2 compiled.
        self.assertEqual(sum(1 for l in plans if l.startswith("plan gpt2_large")
                             or l.startswith("plan llama3_8b")), 36 + 1 + 2)
        self.assertIn("plan llama3_8b-decode-8192-1 bf16 sdpa cuda-graph", plans)
        self.assertIn("plan attention: 46 shapes", " ".join(plans))
        self.assertIn("plan gemm: 72 shapes", " ".join(plans))

    def test_a_budget_too_small_is_refused(self):
        with tempfile.TemporaryDirectory() as out:
            r = self.run_script("bash", os.path.join(HERE, "llm.sh"), out, "300",
                                env={"PYTHON": sys.executable})
        self.assertEqual(r.returncode, 2)
        self.assertIn("the phases ask for 470 s, more than the 300 s budget", r.stderr)

    def test_a_bad_label_fails_the_dry_run(self):
        r = self.run_script(sys.executable, os.path.join(HERE, "measure_steps.py"),
                            "--configs", os.path.join(HERE, "..", "..", "..", "data", "e2e",
                                                      "configs"),
                            "--out", "/dev/null", "--labels", "llama3_8b-prefill-512-1",
                            "--dry-run")
        self.assertEqual(r.returncode, 2)
        self.assertIn("phase 'prefill' is not inf, train or decode", r.stderr)
        r = self.run_script(sys.executable, os.path.join(HERE, "measure_steps.py"),
                            "--configs", "/nonexistent", "--out", "/dev/null",
                            "--labels", "gpt2_large-decode-512-1", "--launch", "graph",
                            "--dry-run")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--launch graph: not one of eager, cuda-graph, compiled", r.stderr)


if __name__ == "__main__":
    unittest.main()
