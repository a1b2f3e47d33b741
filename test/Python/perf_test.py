"""The perf Python package against figures worked by hand and the tools'
own output (ctest `python`; PYTHONPATH is the build's python/ folder)."""

import json
import os
import subprocess
import unittest

import perf

SOURCE = os.environ.get("PERF_SOURCE_DIR",
                        os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BUILD = os.environ.get("PERF_BUILD_DIR", os.path.join(SOURCE, "build"))
MLP = os.path.join(SOURCE, "examples", "mlp_training.mlir")
GPT2_TINY = os.path.join(SOURCE, "test", "Import", "Model", "Inputs", "gpt2_tiny.json")
LINEAR_GELU = os.path.join(SOURCE, "test", "Import", "ONNX", "Inputs", "linear_gelu.onnx")


def tool(name, *args):
    return subprocess.run([os.path.join(BUILD, "bin", name)] + list(args), check=True,
                          capture_output=True, text=True).stdout


class Catalog(unittest.TestCase):
    def test_devices(self):
        names = perf.devices()
        self.assertIn("H100-SXM5-80GB", names)
        self.assertEqual(len(names), len(set(names)))

    def test_device_figures(self):
        # What the driver gives CUDA on an H100 80 GB: 81559 MiB.
        h100 = perf.device("h100")
        self.assertEqual(h100["name"], "H100-SXM5-80GB")
        self.assertAlmostEqual(h100["mem_gib"], 79.65)
        self.assertEqual(h100["sms"], 132)


class Kernels(unittest.TestCase):
    def test_roofline_gemm(self):
        # A100-SXM4-40GB at 0.7 of 19.5 TFLOP/s: 2 x 4096 x 4096 x 1024 =
        # 34.36 GFLOP -> 2517.2 us; its 100.7 MB take 80.9 us at 0.8 of
        # 1555 GB/s, so it is compute-bound.
        price = perf.kernel_latency("gemm", "A100", models="roofline", m=4096, n=4096,
                                    k=1024)
        self.assertAlmostEqual(price["latency_us"], 2517.197, places=2)
        self.assertEqual(price["model"], "roofline")
        self.assertEqual(price["flops"], 2 * 4096 * 4096 * 1024)
        self.assertEqual(price["bytes"], 4 * (4096 * 1024 * 2 + 4096 * 4096))

    def test_tensor_cores(self):
        # H100 BF16 tensor cores, 0.7 of 989.4 TFLOP/s: 137.44 GFLOP -> 198.45 us.
        price = perf.kernel_latency("gemm", "h100", models="roofline", m=4096, n=4096,
                                    k=4096, dtype="bf16", tensor_cores=True)
        self.assertAlmostEqual(price["latency_us"], 2 * 4096**3 / (0.7 * 989.4e12) * 1e6,
                               places=3)

    def test_enum_attributes(self):
        # Enum attributes are given as their keywords: Adam does 12 FLOPs per
        # parameter and reads four FP32 arrays (param, grad, two moments)
        # where SGD with momentum does 3 and reads three.
        adam = perf.kernel_latency("optimizer", "A100", models="roofline",
                                   elements=1000, algorithm="adam", **{"pass": "update"})
        sgd = perf.kernel_latency("optimizer", "A100", models="roofline", elements=1000)
        self.assertEqual(adam["flops"], 12 * 1000)
        self.assertEqual(sgd["flops"], 3 * 1000)
        dgrad = perf.kernel_latency("gemm", "A100", models="roofline", m=64, n=64, k=64,
                                    **{"pass": "dgrad"})
        self.assertEqual(dgrad["flops"], 2 * 64**3)
        with self.assertRaisesRegex(perf.Error, "'pass' failed to satisfy|expected .*TrainingPass"):
            perf.kernel_latency("gemm", "A100", m=4, n=4, k=4, **{"pass": "sideways"})
        with self.assertRaisesRegex(perf.Error, "is not a keyword"):
            perf.kernel_latency("gemm", "A100", m=4, n=4, k=4, **{"pass": "fwd>} {"})

    def test_stack_once_many_kernels(self):
        model = perf.CostModel("heuristic,roofline")
        self.assertEqual(model.models, ["heuristic", "roofline"])
        # ReLU over 16.78 M floats, read and written (134.2 MB) at 0.8 of
        # 1555 GB/s: 107.9 us.
        relu = model.latency("elementwise", "A100", elements=4096 * 4096, fn="relu")
        self.assertAlmostEqual(relu["latency_us"], 2 * 4 * 4096 * 4096 / (0.8 * 1555e9) * 1e6,
                               places=3)
        conv = model.latency("conv2d", "A100", n=8, c=64, h=56, w=56, k=64, r=3, s=3,
                             pad=[1, 1])
        self.assertEqual(conv["model"], "roofline")
        self.assertGreater(conv["latency_us"], 0)

    def test_default_stack_is_perf_opt_default(self):
        price = perf.kernel_latency("gemm", "V100-PCIe-32GB", m=4096, n=1024, k=1024)
        self.assertIn(price["model"], ("ml", "tile", "calibrated"))

    def test_model_folder_names(self):
        # ml_dir= is every tool's --ml-dir; model_dir= its earlier name.
        for keyword in ("ml_dir", "model_dir"):
            with self.assertRaisesRegex(perf.Error, "ml model directory '/no/such/models'"):
                perf.CostModel("ml,roofline", **{keyword: "/no/such/models"})
        with self.assertRaisesRegex(perf.Error, "give the model folder once"):
            perf.kernel_latency("gemm", "A100", ml_dir="a", model_dir="b", m=4, n=4, k=4)

    def test_bad_kernels(self):
        with self.assertRaisesRegex(perf.Error, "attribute 'm' failed to satisfy constraint: a positive 64-bit integer"):
            perf.kernel_latency("gemm", "A100", m=-1, n=4, k=4)
        with self.assertRaisesRegex(perf.Error, "unknown device 'B9000'"):
            perf.kernel_latency("gemm", "B9000", m=4, n=4, k=4)
        with self.assertRaisesRegex(perf.Error, "'perf.gemmx' is unknown"):
            perf.kernel_latency("gemmx", "A100", m=4)
        with self.assertRaisesRegex(perf.Error, "unknown dtype 'fp7'"):
            perf.kernel_latency("gemm", "A100", m=4, n=4, k=4, dtype="fp7")
        with self.assertRaisesRegex(perf.Error, "cannot use a dict"):
            perf.kernel_latency("gemm", "A100", m={})


class Steps(unittest.TestCase):
    def test_same_as_perf_opt(self):
        ours = perf.estimate(MLP, device="A100", models="roofline")
        theirs = json.loads(tool("perf-opt", MLP, "--perf-device=A100",
                                 "--estimate=models=roofline format=json"))
        self.assertEqual(ours["graphs"][0]["e2e_us"], theirs["graphs"][0]["e2e_us"])
        self.assertEqual(ours["graphs"][0]["target"], "A100-SXM4-40GB")

    def test_every_estimate_option(self):
        # The keywords are the estimate pipeline's options (EstimateOptions.def),
        # each the same as perf-opt's: the launch mode, a catalog host, the
        # kernel gap.
        options = "models=roofline launch=cuda-graph overheads=h200-vm kernel-gap-us=2"
        ours = perf.estimate(MLP, models="roofline", launch="cuda-graph", overheads="h200-vm",
                             kernel_gap_us=2)
        theirs = json.loads(tool("perf-opt", MLP, "--estimate=format=json " + options))
        self.assertEqual(ours["graphs"][0]["e2e_us"], theirs["graphs"][0]["e2e_us"])
        self.assertEqual(ours["graphs"][0]["host_table"], "h200-vm")
        eager = perf.estimate(MLP, models="roofline", overheads="h200-vm", kernel_gap_us=2)
        self.assertLess(ours["graphs"][0]["e2e_us"], eager["graphs"][0]["e2e_us"])
        with self.assertRaisesRegex(perf.Error, "bad estimate options .*no such option lanch"):
            perf.estimate(MLP, lanch="eager")

    def test_passes_and_timeline(self):
        report = perf.estimate(MLP, models="roofline", passes="perf-data-parallel{devices=2}",
                               timeline=True)
        graph = report["graphs"][0]
        self.assertEqual([d["device"] for d in graph["devices"]], [0, 1])
        events = report["timeline"]["traceEvents"]
        slices = [e for e in events if e.get("ph") == "X"]
        kernels = [e for e in slices if e["cat"] == "kernel"]
        collectives = [e for e in slices if e["cat"] == "collective"]
        # The step's 13 kernels and its gradient all_reduce, which is a
        # slice on each of the two replicas' timelines.
        self.assertEqual(len(kernels) + len(collectives) // 2, graph["num_kernels"])
        self.assertEqual(sorted(e["pid"] for e in collectives), [0, 1])
        self.assertTrue(all(e["dur"] >= 0 for e in slices))

    def test_model_config_and_onnx(self):
        ir = perf.import_model_config(GPT2_TINY, seq=16, batch=2)
        self.assertEqual(ir, tool("perf-translate", "--import-model-config", GPT2_TINY,
                                  "--seq=16", "--batch=2"))
        report = perf.estimate(ir=ir, device="a100", models="roofline")
        # The kernels PyTorch eager runs, counted by hand in
        # test/Import/Model/model-config.test.
        self.assertEqual(report["graphs"][0]["num_kernels"], 54)
        mixed = perf.import_model_config(GPT2_TINY, seq=16, phase="training", dtype="bf16",
                                         optimizer="adam", master_weights=True)
        self.assertEqual(mixed, tool("perf-translate", "--import-model-config", GPT2_TINY,
                                     "--seq=16", "--phase=training", "--dtype=bf16",
                                     "--optimizer=adam", "--master-weights"))
        self.assertIn('fn = "master_to_model"', mixed)
        onnx = perf.estimate(LINEAR_GELU, device="a100", models="roofline", onnx_batch=4)
        self.assertGreater(onnx["graphs"][0]["e2e_us"], 0)
        self.assertIn("perf.graph", perf.import_onnx(LINEAR_GELU))

    def test_bad_steps(self):
        with self.assertRaisesRegex(perf.Error, r"cannot read: .*\(nope\.mlir\)"):
            perf.estimate("nope.mlir")
        with self.assertRaisesRegex(perf.Error, r"<ir>:1:29: error: expected attribute value"):
            perf.estimate(ir="perf.graph @g { %0 = perf.op }")
        with self.assertRaisesRegex(perf.Error, "'perf-nope' does not refer to a registered pass"):
            perf.estimate(MLP, passes="perf-nope")
        with self.assertRaisesRegex(perf.Error, "give one of a file"):
            perf.estimate()
        with self.assertRaisesRegex(perf.Error, "--seq 64 is longer than the 32 positions"):
            perf.import_model_config(GPT2_TINY, seq=64)
        with self.assertRaisesRegex(perf.Error, "--loss must be none or cross-entropy"):
            perf.import_model_config(GPT2_TINY, seq=16, loss="mse")


if __name__ == "__main__":
    unittest.main()
