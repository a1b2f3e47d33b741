#!/usr/bin/env bash
# The Hopper measurement campaign in one command: the probe, two GEMM sweeps,
# the kernels of the E2E transformer steps, whole steps measured with PyTorch
# (twice, for the run-to-run spread), two layer-op sweeps, fused attention and
# seven traced steps, in that order, each phase under its own time limit so a
# lease of a few minutes ends with every finished phase saved.
#
#   runtime/bench/campaign/hopper.sh OUT_DIR [DEVICE_NAME] [SECONDS]
#
# DEVICE_NAME defaults to the catalog name of the GPU nvidia-smi reports
# (H100-SXM5-80GB, H200-SXM-141GB); SECONDS (default 1500) bounds the whole run.
#
# PERF_BENCH names the perf-bench binary (default runtime/bench/build/perf-bench),
# STEP_CONFIGS the folder of HuggingFace configs (default data/e2e/configs).
# Everything measured lands in OUT_DIR: perf.db (SQLite, docs/perf-db.md),
# probe.json and overheads.json (the device spec and T4 call times),
# steps.json, steps-repeat.json, steps-decode.json and steps-adam.json (whole
# steps measured with PyTorch), run-graph.json and run-graph-examples.json
# (steps replayed from perf's launch lists by perf-bench --run-graph;
# run-graph-examples-fastest-conv.json with the fastest convolutions),
# gpu-tests.log (perf-bench's GPU unit tests),
# warmth-short.db and warmth-long.db (element-wise kernels after a short and a
# long warm-up), attention.csv (fused attention), torch-layers.db (PyTorch's
# layer-op kernels), torch-cnn-layers.db (PyTorch's kernels for the examples'
# convolutions, pooling and batch norms), kernel-gap.json, host-ops.json (host time per op), traces/ (execution + Kineto trace pairs of
# seven steps) and campaign.log. A rerun with the same
# OUT_DIR resumes: perf-bench skips stored kernels, measure_steps.py stored steps.
set -u
out=${1:?usage: hopper.sh OUT_DIR [DEVICE_NAME] [SECONDS]}
# The catalog name, so that the db model finds the rows for --perf-device.
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$gpu" in
  *H200*) guess=H200-SXM-141GB ;;
  *H100*) guess=H100-SXM5-80GB ;;
  *) guess=${gpu// /-} ;;
esac
device=${2:-$guess}
budget=${3:-1500}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bench=${PERF_BENCH:-$root/runtime/bench/build/perf-bench}
configs=${STEP_CONFIGS:-$root/data/e2e/configs}
start=$(date +%s)
mkdir -p "$out"
db=/tmp/perf-campaign.db
[ -f "$out/perf.db" ] && [ ! -f "$db" ] && cp "$out/perf.db" "$db"
log="$out/campaign.log"
say() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$log"; }
left() { echo $(( budget - ($(date +%s) - start) )); }
# A phase gets at most its share and never more than what is left.
limit() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }
# The database is copied out whole (WAL checkpointed) after every phase.
save_db() {
  python3 - "$db" "$out/perf.db" <<'PY' 2>>"$log" || true
import sqlite3, sys
src = sqlite3.connect(sys.argv[1]); dst = sqlite3.connect(sys.argv[2] + ".tmp")
src.backup(dst); dst.close(); src.close()
import os; os.replace(sys.argv[2] + ".tmp", sys.argv[2])
PY
}
bench_phase() { # name seconds args...
  local name=$1 secs; secs=$(limit "$2"); shift 2
  [ "$secs" -le 5 ] && { say "$name: no time left"; return; }
  say "$name: up to ${secs}s"
  timeout -k 15 -s TERM "$secs" "$bench" --db "$db" --device-name "$device" \
    --no-progress "$@" >>"$log" 2>&1
  say "$name: exit $?"
  save_db
}

say "device: $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1)"
say "perf-bench: $bench"
tests=$(dirname "$bench")/bench-gpu-tests
if [ -x "$tests" ]; then
  timeout -k 5 60 "$tests" >"$out/gpu-tests.log" 2>&1
  rc=$?
  say "gpu tests: exit $rc ($(grep -c '^\[       OK' "$out/gpu-tests.log") passed)"
  # A kernel that computes the wrong thing times the wrong thing: measure
  # nothing with a perf-bench whose GPU tests fail.
  if [ "$rc" -ne 0 ]; then
    say "perf-bench's GPU tests failed (gpu-tests.log): no kernel is measured"
    bench=false
  fi
fi
ldd "$bench" >>"$log" 2>&1

timeout -k 10 90 "$bench" --probe --probe-out "$out/probe.json" \
  --probe-base "$device" --host-overheads "$out/overheads.json" \
  --db "$db" --device-name "$device" --no-progress >>"$log" 2>&1
say "probe: exit $?"
save_db
bench_phase gemm 150 --spec "$here/gemm-sweep.json"
bench_phase gemm-wide 120 --spec "$here/gemm-sweep-wide.json"
if [ -f "$here/e2e-kernels.json" ]; then
  bench_phase e2e-kernels 100 --from "$here/e2e-kernels.json" --warmup 3 --reps 10
fi
# Steps replayed whole from their launch lists (e2e_kernels.py --launches
# and --examples): one perf.graph_run/1 document per step, gathered into
# run-graph.json (the E2E transformers) and run-graph-examples.json (the
# examples and ONNX CNNs), the smallest first so that a cut run keeps the
# most steps.
replay_lists() { # archive out.json seconds [perf-bench flags]
  local secs; secs=$(limit "$3")
  [ "$secs" -gt 20 ] && [ -f "$here/$1" ] || return
  local archive=$1 gathered=$2; shift 3
  say "run-graph $archive -> $gathered: up to ${secs}s"
  local lists=/tmp/perf-campaign-${archive%%.*} runs=/tmp/perf-campaign-runs-${gathered%%.*} end
  end=$(( $(date +%s) + secs ))
  mkdir -p "$lists" "$runs"
  tar xzf "$here/$archive" -C "$lists"
  for f in $(ls -S -r "$lists"/*.json); do
    name=$(basename "$f" .json)
    [ -f "$runs/$name.json" ] && continue
    s=$(( end - $(date +%s) )); [ "$s" -le 5 ] && break
    timeout -k 5 "$s" "$bench" --run-graph "$f" --run-graph-out "$runs/$name.json" \
      --warmup 3 --reps 10 "$@" >>"$log" 2>&1 || say "run-graph $name: exit $?"
  done
  python3 - "$runs" "$out/$2" <<'PY' 2>>"$log"
import json, os, sys
runs = {}
for f in sorted(os.listdir(sys.argv[1])):
    try:
        runs[f[:-5]] = json.load(open(os.path.join(sys.argv[1], f)))
    except ValueError:
        pass
json.dump(runs, open(sys.argv[2], "w"), indent=1)
PY
  say "run-graph $gathered: $(ls "$runs" | wc -l) steps"
}
replay_lists example-launches.tar.gz run-graph-examples.json 40
# The same with each convolution on its fastest cuDNN algorithm, the one the
# database's conv2d rows time (cuDNN's heuristic choice above, a framework's
# default), and the examples' kernels alone for the db model.
replay_lists example-launches.tar.gz run-graph-examples-fastest-conv.json 60 \
  --run-graph-fastest-conv
if [ -f "$here/example-kernels.json" ]; then
  bench_phase example-kernels 60 --from "$here/example-kernels.json" --warmup 3 --reps 10
fi
replay_lists e2e-launches.tar.gz run-graph.json 220
steps() { # seconds args...
  local secs; secs=$(limit "$1"); shift
  [ "$secs" -le 20 ] && { say "steps $*: no time left"; return; }
  say "steps $*: up to ${secs}s"
  PYTHONUNBUFFERED=1 timeout -k 10 "$secs" python3 "$here/measure_steps.py" \
    --configs "$configs" "$@" >>"$log" 2>&1
  say "steps: exit $?"
}
steps 170 --out "$out/steps.json" --dtype fp32,bf16 --attn eager
steps 100 --out "$out/steps.json" --dtype bf16 --attn sdpa
# The same steps again, ten repetitions each: how far apart two runs are.
steps 120 --out "$out/steps-repeat.json" --dtype fp32,bf16 --attn eager --reps 10 \
  --labels bert_large-inf-512-8,gpt2_large-inf-1024-4,opt_13-inf-2048-2,gpt3_xl-inf-2048-2,bert_large-train-512-8
# Generation steps over a KV cache, Llama-3-8B, and training with Adam's step.
steps 170 --out "$out/steps-decode.json" --dtype bf16 --attn sdpa,eager --labels \
gpt2_large-decode-512-1,gpt2_large-decode-512-32,gpt2_large-decode-1000-1,\
gpt2_large-decode-1000-32,opt_13-decode-512-1,opt_13-decode-512-32,opt_13-decode-2000-1,\
opt_13-decode-2000-32,gpt3_xl-decode-512-1,gpt3_xl-decode-2000-1,gpt3_xl-decode-2000-32,\
llama3_8b-inf-512-1,llama3_8b-inf-2048-1,llama3_8b-inf-2048-4,llama3_8b-decode-512-1,\
llama3_8b-decode-2048-1,llama3_8b-decode-2048-32,llama3_8b-decode-8000-8
steps 70 --out "$out/steps-adam.json" --dtype fp32,bf16 --attn eager --optimizer adam \
  --labels bert_large-train-512-2,bert_large-train-512-8,gpt2_large-train-1024-1
bench_phase layers 200 --spec "$here/layer-sweep.json"
bench_phase layers-wide 50 --spec "$here/layer-sweep-wide.json"
# The same element-wise kernels timed as the sweeps time them and after a
# long warm-up, each into a database of its own (warmth-short.db,
# warmth-long.db): whether a sweep's short bursts see the GPU's full clocks.
for w in "short 5 20" "long 2000 200"; do
  read -r name warm reps <<<"$w"
  secs=$(limit 40)
  [ "$secs" -le 5 ] && break
  timeout -k 5 "$secs" "$bench" --db "$out/warmth-$name.db" --device-name "$device" \
    --no-progress --spec "$here/elementwise-warmth.json" --warmup "$warm" --reps "$reps" \
    >>"$log" 2>&1
  say "warmth $name: exit $?"
done
secs=$(limit 150)
if [ "$secs" -gt 20 ]; then
  say "attention: up to ${secs}s"
  PYTHONUNBUFFERED=1 timeout -k 10 "$secs" python3 "$here/attention_sweep.py" \
    --out "$out/attention.csv" >>"$log" 2>&1
  say "attention: exit $?"
fi
# PyTorch's own kernels for the layer sweeps and the E2E steps' layer ops
# (torch-layers.db, the reference perf-bench's row kernels are compared
# with), and the device's gap between back-to-back kernels (kernel-gap.json).
secs=$(limit 60)
if [ "$secs" -gt 20 ]; then
  say "torch layers: up to ${secs}s"
  for input in "--spec $here/layer-sweep.json" "--spec $here/layer-sweep-wide.json" \
               "--from $here/e2e-kernels.json"; do
    s=$(limit "$secs"); [ "$s" -le 5 ] && break
    # shellcheck disable=SC2086 # the option and its file are two words
    PYTHONUNBUFFERED=1 timeout -k 5 "$s" python3 "$here/torch_layer_ops.py" $input \
      --db "$out/torch-layers.db" --device-name "$device" --seconds "$s" >>"$log" 2>&1
  done
  say "torch layers: exit $?"
  PYTHONUNBUFFERED=1 timeout -k 5 40 python3 "$here/kernel_gap.py" \
    --out "$out/kernel-gap.json" >>"$log" 2>&1
  say "kernel gap: exit $?"
fi
# PyTorch's kernels for the examples' convolutions (cuDNN, benchmarked),
# max pooling and batch norm, forward and backward (torch-cnn-layers.db: the
# reference for perf-bench's own pooling and batch-norm kernels and for its
# convolutions' fastest algorithm). A rerun goes on where this one stopped.
secs=$(limit 150)
if [ "$secs" -gt 20 ]; then
  say "torch CNN layers: up to ${secs}s"
  PYTHONUNBUFFERED=1 timeout -k 5 "$secs" python3 "$here/torch_layer_ops.py" \
    --from "$here/example-kernels.json" --db "$out/torch-cnn-layers.db" \
    --device-name "$device" --seconds "$((secs - 10))" >>"$log" 2>&1
  say "torch CNN layers: exit $?"
fi
secs=$(limit 120)
if [ "$secs" -gt 20 ]; then
  say "traces: up to ${secs}s"
  PYTHONUNBUFFERED=1 timeout -k 10 "$secs" python3 "$here/trace_steps.py" \
    --configs "$configs" --out "$out/traces" gpt2_large-inf-1024-4:fp32:eager \
    bert_large-train-512-2:fp32:eager opt_13-inf-2048-2:bf16:sdpa \
    gpt2_large-inf-1024-4:bf16:eager llama3_8b-inf-2048-1:bf16:eager \
    gpt2_large-decode-512-1:bf16:sdpa bert_large-train-512-8:bf16:eager >>"$log" 2>&1
  say "traces: exit $?"
fi
secs=$(limit 90)
if [ "$secs" -gt 20 ]; then
  say "host ops: up to ${secs}s"
  PYTHONUNBUFFERED=1 timeout -k 10 "$secs" python3 "$here/host_ops.py" \
    --out "$out/host-ops.json" --configs "$configs" >>"$log" 2>&1
  say "host ops: exit $?"
fi
say "done"
