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
        predicted = {"bert_large-inf-512-8-bf16": 1100.0,
                     "gpt2_large-inf-1024-4-fp32": 1900.0,
                     "gpt3_xl-inf-2048-2-bf16": 450.0}
        rows = run_graph_eval.score(runs, lambda name: predicted[name])
        errors = {r[0]: r[3] for r in rows}
        # 1100 / 1000 - 1 and 1900 / 2000 - 1.
        self.assertAlmostEqual(errors["bert_large-inf-512-8-bf16"], 0.10)
        self.assertAlmostEqual(errors["gpt2_large-inf-1024-4-fp32"], -0.05)
        self.assertIsNone(errors["gpt3_xl-inf-2048-2-bf16"])  # 2 launches not run
        self.assertIsNone(errors["opt_13-inf-2048-2-bf16"])
        text, mean = run_graph_eval.report(rows, "h200", "default")
        self.assertAlmostEqual(mean, 7.5)  # (10 + 5) / 2
        self.assertIn("| gpt3_xl-inf-2048-2-bf16 | 500.0 | 450.0 | not scored | 2 |", text)
        self.assertIn("| opt_13-inf-2048-2-bf16 | - | - | - | out of memory |", text)
        self.assertIn("Mean |error| 7.5%, worst 10.0%, over 2 steps run whole.", text)

    def test_names_split_at_the_last_dash(self):
        self.assertEqual(run_graph_eval.split_name("gpt2_large-train-1024-1-bf16"),
                         ("gpt2_large-train-1024-1", "bf16"))


if __name__ == "__main__":
    unittest.main()
