# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "PERF"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.perf_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# Real public inputs live beside the checkout; tests that need them are
# marked `REQUIRES: shared-data` and are reported unsupported without them.
shared_data = os.path.normpath(
    os.path.join(config.perf_src_root, "..", "shared", "data"))
if os.path.isdir(shared_data):
    config.available_features.add("shared-data")
config.substitutions.append(("%shared_data", shared_data))
config.substitutions.append(("%perf_src", config.perf_src_root))
config.substitutions.append(("%perf_build", config.perf_obj_root))

# JSON outputs are checked against docs/schemas where python3-jsonschema
# is (`REQUIRES: jsonschema`).
if config.schema_python:
    config.available_features.add("jsonschema")
    config.substitutions.append(
        ("%validate_json", config.schema_python + " " +
         os.path.join(config.perf_src_root, "scripts", "validate-json.py")))

# --estimate without model flags uses the shipped model folder; the tests
# check figures worked out by hand from the roofline, so they run without
# it (test/Tools/estimate-default.test runs the default).
config.environment["PERF_MODEL_DIR"] = "none"

tool_dirs = [config.perf_tools_dir, config.llvm_tools_dir]
tools = ["perf-opt", "perf-translate", "perf-trace", "perf-eval",
         "perf-train", "perf-sweep", "perf-comm-eval"]
llvm_config.add_tool_substitutions(
    [t for t in tools
     if os.path.exists(os.path.join(config.perf_tools_dir, t))], tool_dirs)

# The ONNX import tests need perf-translate built with --import-onnx.
import subprocess
_perf_translate = os.path.join(config.perf_tools_dir, "perf-translate")
if os.path.exists(_perf_translate):
    try:
        _help = subprocess.run([_perf_translate, "--help"], capture_output=True,
                               text=True, timeout=60).stdout
        if "--import-onnx" in _help:
            config.available_features.add("onnx-import")
    except (OSError, subprocess.SubprocessError):
        pass
