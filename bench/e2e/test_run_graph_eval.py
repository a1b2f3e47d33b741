#!/usr/bin/env python3
"""run_graph_eval.py's scoring, on hand-written run documents (the numbers
are made up to check the arithmetic; no measurement is claimed)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_graph_eval  # noqa: E402


class Scoring(unittest.TestCase):
    def test_errors_mean_and_steps_not_scored(self):
        runs = {
            "bert_large-inf-512-8-bf16": {"graphs": [
                {"measured_us": 1000.0, "not_run": {}}]},
            "gpt2_large-inf-1024-4-fp32": {"graphs": [
                {"measured_us": 2000.0, "not_run": {}}]},
            "gpt3_xl-inf-2048-2-bf16": {"graphs": [
                {"measured_us": 500.0, "not_run": {"collective (one GPU runs no NCCL)": 2}}]},
            "opt_13-inf-2048-2-bf16": {"graphs": [{"error_text": "out of memory"}]},
        }
        # No prediction is asked for the step that left launches out.
        predicted = {"bert_large-inf-512-8-bf16": 1100.0,
                     "gpt2_large-inf-1024-4-fp32": 1900.0}
        rows = run_graph_eval.score(runs, lambda name: predicted[name])
        errors = {r[0]: r[3] for r in rows}
        # 1100 / 1000 - 1 and 1900 / 2000 - 1.
        self.assertAlmostEqual(errors["bert_large-inf-512-8-bf16"], 0.10)
        self.assertAlmostEqual(errors["gpt2_large-inf-1024-4-fp32"], -0.05)
        self.assertIsNone(errors["gpt3_xl-inf-2048-2-bf16"])  # 2 launches not run
        self.assertIsNone(errors["opt_13-inf-2048-2-bf16"])
        text, mean = run_graph_eval.report({"default": rows, "db": rows}, "h200")
        self.assertAlmostEqual(mean, 7.5)  # (10 + 5) / 2
        self.assertIn("| gpt3_xl-inf-2048-2-bf16 | 500.0 | - | not scored | - | "
                      "not scored | 2 |", text)
        self.assertIn("| opt_13-inf-2048-2-bf16 | - | - | - | - | - | out of memory |", text)
        self.assertIn("| bert_large-inf-512-8-bf16 | 1000.0 | 1100.0 | +10.0% | 1100.0 | "
                      "+10.0% | 0 |", text)
        self.assertIn("default: mean |error| 7.5%, worst 10.0%, over 2 steps run whole; "
                      "1 within 8%.", text)

    def test_names_split_at_the_last_dash(self):
        self.assertEqual(run_graph_eval.split_name("gpt2_large-train-1024-1-bf16"),
                         ("gpt2_large-train-1024-1", "bf16"))


class ReplayHost(unittest.TestCase):
    RUNS = {
        "a": {"graphs": [{"host": {"launch_us": {"gemm": {"median": 12.0},
                                                 "elementwise": {"median": 6.0}}}}]},
        "b": {"graphs": [{"host": {"launch_us": {"gemm": {"median": 14.0},
                                                 "memcpy": {"median": 7.0}}}}]},
        "c": {"graphs": [{"host": {"launch_us": {"gemm": {"median": 10.0}}}}]},
        "old": {"graphs": [{"measured_us": 5.0}]},  # before perf-bench kept host times
    }

    def test_the_graph_scored_is_left_out(self):
        host = run_graph_eval.launch_host_us(self.RUNS)
        self.assertEqual(sorted(host), ["a", "b", "c"])
        # a's kinds come from b and c alone: gemm median(14, 10), memcpy 7.
        self.assertEqual(run_graph_eval.left_out_kind_us(host, "a"),
                         {"gemm": 12.0, "memcpy": 7.0})
        self.assertEqual(run_graph_eval.left_out_kind_us(host, "c"),
                         {"gemm": 13.0, "elementwise": 6.0, "memcpy": 7.0})

    def test_table_has_no_framework_gaps_and_prices_launches_as_measured(self):
        probe = {"runtime": {"cudaLaunchKernel": 5.0, "cudaMemcpyAsync": 6.0}}
        launches = {"graphs": [{"launches": [
            {"type": "kernel", "name": "aten::mm", "kind": "gemm"},
            {"type": "kernel", "name": "aten::mm", "kind": "gemm"},
            {"type": "kernel", "name": "aten::add", "kind": "elementwise"},
            {"type": "kernel", "name": "aten::copy_", "kind": "memcpy"},
            {"type": "kernel", "name": "aten::where", "kind": "elementwise"},
            {"type": "sync", "name": "cudaStreamSynchronize"}]}]}
        table = run_graph_eval.replay_table(probe, launches,
                                            {"gemm": 12.0, "elementwise": 4.0, "memcpy": 7.0})
        self.assertEqual(table["default"], {"t1": 0.0, "t2": 0.0, "t3": 0.0, "t5": 0.0})
        # A copy's call is the measured copy launch; a kernel's the probe's.
        self.assertEqual(table["runtime"], {"cudaLaunchKernel": 5.0, "cudaMemcpyAsync": 7.0})
        # A GEMM launch costs 12 us: 5 of launch call, 7 before it (T2, and
        # T5 between launches). Element-wise launches measured under the
        # probe's call cost add nothing, nor does the copy.
        self.assertEqual(table["ops"], {"aten::mm": {"t2": 7.0, "t5": 7.0}})
        bare = run_graph_eval.replay_table(probe, launches, {})
        self.assertNotIn("ops", bare)
        self.assertEqual(bare["runtime"], {"cudaLaunchKernel": 5.0, "cudaMemcpyAsync": 6.0})

    def test_steps_are_found_by_list_name(self):
        path, flags = run_graph_eval.step_source("onnx_resnet50-train-32-fp32", "", "/o", "", "")
        self.assertEqual(path, "/o/light_resnet50.onnx")
        self.assertEqual(flags, ["--onnx-batch=32", "--perf-synthesize-training"])
        path, flags = run_graph_eval.step_source("example_two_branch", "", "", "", "")
        self.assertTrue(path.endswith("examples/two_branch.mlir"))
        self.assertEqual(flags, [])


class Databases(unittest.TestCase):
    def test_later_files_rows_win_and_gz_is_read(self):
        import gzip
        import sqlite3
        import tempfile
        with tempfile.TemporaryDirectory() as work:
            def make(path, rows):
                db = sqlite3.connect(path)
                db.execute("CREATE TABLE devices (name TEXT PRIMARY KEY, spec TEXT)")
                db.execute("CREATE TABLE kernels (device TEXT, dtype TEXT, kind TEXT, "
                           "signature TEXT, latency_us REAL, "
                           "PRIMARY KEY (device, dtype, kind, signature))")
                db.execute("INSERT INTO devices VALUES ('H200-SXM-141GB', '')")
                db.executemany("INSERT INTO kernels VALUES ('H200-SXM-141GB', 'f32', ?, ?, ?)",
                               rows)
                db.commit()
                db.close()
            first, second = os.path.join(work, "a.db"), os.path.join(work, "b.db")
            make(first, [("gemm", "m=1", 10.0), ("conv2d", "n=1", 20.0)])
            make(second, [("conv2d", "n=1", 25.0), ("pooling", "n=2", 5.0)])
            with open(second, "rb") as src, gzip.open(second + ".gz", "wb") as dst:
                dst.write(src.read())
            merged = run_graph_eval.merge_databases(
                [first, second + ".gz"], os.path.join(work, "merged.db"))
            db = sqlite3.connect(merged)
            rows = dict(((k, sig), us) for k, sig, us in db.execute(
                "SELECT kind, signature, latency_us FROM kernels"))
            self.assertEqual(rows, {("gemm", "m=1"): 10.0, ("conv2d", "n=1"): 25.0,
                                    ("pooling", "n=2"): 5.0})
            self.assertEqual(db.execute("SELECT COUNT(*) FROM devices").fetchone()[0], 1)


if __name__ == "__main__":
    unittest.main()
