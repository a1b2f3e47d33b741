#!/usr/bin/env bash
# The LLM campaign: what the host and LLM-kernel models need next, in about
# eight minutes of GPU time, in this order (docs/runtime-bench.md):
#   host      the host's time per ATen call and per tiny-model step
#             (host_ops.py), first, so that the steps after it are priced
#             with the host of the same machine start
#   steps     GPT-2 Large and Llama-3-8B in BF16, sdpa and eager attention:
#             decode over KV caches of 512-8192 tokens at batch 1-32 and
#             prefill, each launched eager and under a CUDA graph
#   adam      a GPT-2 Large BF16 training step with Adam
#   attention grouped-query attention: causal prefill to 16k tokens, forward
#             and backward, and decoding over KV caches to 32k
#   gemm      Llama-3-8B's GEMMs in BF16 and FP8 (torch._scaled_mm)
#   compiled  decode steps under torch.compile
# Each phase runs under its own time limit and writes its results as it
# goes, so a lease that ends early keeps every finished row.
#
#   runtime/bench/campaign/llm.sh OUT_DIR [SECONDS]
#   runtime/bench/campaign/llm.sh --dry-run OUT_DIR
#
# SECONDS (default 480) bounds the whole run. --dry-run needs no GPU and no
# PyTorch: it checks every phase's command (labels, configs, shapes) and the
# time plan, and prints both. STEP_CONFIGS names the HuggingFace configs
# (default data/e2e/configs).
set -u
dry=0
if [ "${1:-}" = "--dry-run" ]; then dry=1; shift; fi
out=${1:?usage: llm.sh [--dry-run] OUT_DIR [SECONDS]}
budget=${2:-480}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
configs=${STEP_CONFIGS:-$root/data/e2e/configs}
py=${PYTHON:-python3}
mkdir -p "$out"
log="$out/campaign.log"
start=$(date +%s)
say() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$log"; }
left() { echo $(( budget - ($(date +%s) - start) )); }
limit() { local l; l=$(left); [ "$1" -lt "$l" ] && echo "$1" || echo "$l"; }

decode="gpt2_large-decode-512-1,gpt2_large-decode-512-32,llama3_8b-decode-512-1"
decode="$decode,llama3_8b-decode-2048-8,llama3_8b-decode-8192-1,llama3_8b-decode-2048-32"
prefill="llama3_8b-inf-512-1,llama3_8b-inf-2048-1,gpt2_large-inf-1024-4"

# name seconds command...: each phase and its share of the budget.
phases=(
  "host 60 $py $here/host_ops.py --out $out/host-ops.json --configs $configs"
  "steps 150 $py $here/measure_steps.py --configs $configs --out $out/steps-llm.json --dtype bf16 --attn sdpa,eager --labels $decode,$prefill --launch eager,cuda-graph --reps 5"
  "adam 40 $py $here/measure_steps.py --configs $configs --out $out/steps-llm-adam.json --dtype bf16 --attn sdpa --labels gpt2_large-train-1024-1 --optimizer adam --reps 5"
  "attention 70 $py $here/llm_kernels.py attention --out $out/attention-llm.csv"
  "gemm 50 $py $here/llm_kernels.py gemm --out $out/gemm-llm.csv"
  "compiled 100 $py $here/measure_steps.py --configs $configs --out $out/steps-llm-compiled.json --dtype bf16 --attn sdpa --labels gpt2_large-decode-512-1,llama3_8b-decode-512-1 --launch compiled --reps 5"
)

total=0
for p in "${phases[@]}"; do
  set -- $p
  total=$(( total + $2 ))
done
if [ "$total" -gt "$budget" ]; then
  echo "llm.sh: the phases ask for ${total} s, more than the ${budget} s budget" >&2
  exit 2
fi

status=0
for p in "${phases[@]}"; do
  set -- $p
  name=$1; secs=$2; shift 2
  if [ "$dry" = 1 ]; then
    echo "phase $name ${secs}s: $*"
    "$@" --dry-run | sed "s/^/  /" || { echo "llm.sh: phase $name: its dry run failed" >&2; status=1; }
    continue
  fi
  secs=$(limit "$secs")
  if [ "$secs" -le 5 ]; then say "phase $name skipped: ${secs} s left"; continue; fi
  say "phase $name (${secs} s): $*"
  PYTHONUNBUFFERED=1 timeout -k 10 "$secs" "$@" >>"$log" 2>&1
  say "phase $name: exit $?"
done
if [ "$dry" = 1 ]; then
  echo "plan: ${#phases[@]} phases, ${total} s of ${budget} s"
fi
exit $status
