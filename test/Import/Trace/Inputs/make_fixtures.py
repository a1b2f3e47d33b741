#!/usr/bin/env python3
"""Writes the hand-made trace pair used by the importer tests.

dlrm_mini_et.json: a PyTorch Execution Trace (schema 1.0.1) of one DLRM-like
training step, batch 64: two host-to-device copies, a bottom linear + relu,
three embedding_bag lookups (1000 x 16 tables, 4 lookups per bag), cat, a top
addmm, mse_loss and its backward, AddmmBackward0 (two mm and a sum under
it), the embedding backward, an SGD _foreach_add_ under the
Optimizer.step annotation and a gradient all_reduce recorded by
record_param_comms. Node 1 is the process root and names itself as parent.

dlrm_mini_kineto.json: the Kineto trace of the same step (record function
ids equal the ET rf_id), with the measured kernels given in KERNELS below.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
nodes = []
kineto = []
rf = [100]


def T(tid, shape, dtype="float", dev="cuda:0"):
    numel = 1
    for d in shape:
        numel *= d
    item = {"float": 4, "long int": 8}[dtype]
    return ([tid, tid + 1000, 0, numel, item, dev], shape, "Tensor(%s)" % dtype)


def node(nid, name, parent, ins=(), outs=(), scalars=()):
    rf[0] += 1
    inputs, shapes, types = [], [], []
    for a in ins:
        if isinstance(a, list):  # a tensor list
            inputs.append([t[0] for t in a])
            shapes.append([t[1] for t in a])
            types.append("GenericList[%s]" % ",".join(t[2] for t in a))
        else:
            inputs.append(a[0]); shapes.append(a[1]); types.append(a[2])
    for s in scalars:
        inputs.append(s); shapes.append([])
        types.append("Int" if isinstance(s, int) else "String" if isinstance(s, str) else "GenericList[]")
    nodes.append({"name": name, "id": nid, "rf_id": rf[0], "parent": parent,
                  "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0,
                  "op_schema": "", "inputs": inputs, "input_shapes": shapes,
                  "input_types": types, "outputs": [o[0] for o in outs],
                  "output_shapes": [o[1] for o in outs],
                  "output_types": [o[2] for o in outs]})
    return rf[0]


B, D, R, L = 64, 16, 1000, 4
nodes.append({"name": "[pytorch|profiler|execution_trace|process]", "id": 1,
              "rf_id": 0, "parent": 1, "tid": 0, "inputs": [], "outputs": []})
nodes.append({"name": "[pytorch|profiler|execution_trace|thread]", "id": 2,
              "rf_id": 1, "parent": 1, "tid": 1, "inputs": [], "outputs": []})
ops = []  # (rf_id, name, kernels)
dense_h, dense = T(1, [B, 13], dev="cpu"), T(2, [B, 13])
idx_h, idx = T(3, [B * L], "long int", "cpu"), T(4, [B * L], "long int")
off = T(5, [B], "long int")
w1, b1 = T(100, [32, 13]), T(101, [32])
h1, h2 = T(6, [B, 32]), T(7, [B, 32])
tables = [T(110 + i, [R, D]) for i in range(3)]
embs = [T(8 + i, [B, D]) for i in range(3)]
cat = T(11, [B, 80])
w2t, b2 = T(102, [80, 1]), T(103, [1])
y, target, loss = T(12, [B, 1]), T(13, [B, 1]), T(14, [])
gy = T(16, [B, 1])
gcat, gw2 = T(17, [B, 80]), T(18, [1, 80])
gemb = T(19, [R, D])
grads = T(20, [32 * 13 + 32 + 80 + 1])

KERNELS = {}
def op(nid, name, ins=(), outs=(), scalars=(), kernels=(), parent=2, children=()):
    r = node(nid, name, parent, ins, outs, scalars)
    for c in children:
        node(*c)
    ops.append((r, name, list(kernels)))

op(10, "aten::to", [dense_h], [dense], kernels=[("memcpy", "Memcpy HtoD (Pageable -> Device)", 6, B * 13 * 4)])
op(12, "aten::to", [idx_h], [idx], kernels=[("memcpy", "Memcpy HtoD (Pageable -> Device)", 5, B * L * 8)])
op(14, "aten::linear", [dense, w1, b1], [h1], kernels=[("kernel", "volta_sgemm_32x32_sliced1x4_tn", 9, 0)],
   children=[(15, "aten::t", 14, [w1], [T(104, [13, 32])]),
             (16, "aten::addmm", 14, [b1, dense, T(104, [13, 32])], [h1])])
op(17, "aten::relu", [h1], [h2], kernels=[("kernel", "void at::native::vectorized_elementwise_kernel<4>", 2, 0)])
for i in range(3):
    op(20 + i, "aten::embedding_bag", [tables[i], idx, off], [embs[i], T(30 + i, [B * L], "long int")],
       kernels=[("kernel", "void at::native::embedding_bag_nbits_rowwise_kernel", 11 + i, 0)])
op(24, "aten::cat", [[h2] + embs], [cat], scalars=[1], kernels=[("kernel", "CatArrayBatchedCopy", 3, 0)])
op(25, "aten::addmm", [b2, cat, w2t], [y], kernels=[("kernel", "volta_sgemm_64x32_sliced1x4_nn", 7, 0)])
op(26, "aten::mse_loss", [y, target], [loss], scalars=[1],
   kernels=[("kernel", "void at::native::vectorized_elementwise_kernel<4, mse>", 2, 0),
            ("kernel", "void at::native::reduce_kernel<512, 1>", 4, 0)])
op(27, "MseLossBackward0", [T(15, [])], [gy],
   kernels=[("kernel", "void at::native::vectorized_elementwise_kernel<4, mse_bwd>", 2, 0)],
   children=[(28, "aten::mse_loss_backward", 27, [T(15, []), y, target], [gy], [1])])
op(29, "AddmmBackward0", [gy], [gcat, gw2],
   kernels=[("kernel", "volta_sgemm_32x32_sliced1x4_nt", 6, 0),
            ("kernel", "volta_sgemm_32x32_sliced1x4_tn", 5, 0),
            ("kernel", "void at::native::reduce_kernel<256, 2>", 3, 0)],
   children=[(30, "aten::mm", 29, [gy, T(105, [1, 80])], [gcat]),
             (31, "aten::mm", 29, [T(106, [1, B]), cat], [gw2]),
             (32, "aten::sum", 29, [gy], [T(107, [1])])])
op(33, "EmbeddingBagBackward0", [gcat], [gemb],
   kernels=[("kernel", "void at::native::embedding_backward_feature_kernel", 15, 0),
            ("kernel", "void at::native::vectorized_elementwise_kernel<4, zero>", 4, 0)],
   children=[(34, "aten::_embedding_bag_backward", 33, [T(21, [B, D]), idx, off], [gemb], [R])])
node(40, "Optimizer.step#SGD.step", 2)
op(41, "aten::_foreach_add_", [[w1, b1, w2t, b2], [T(120, [32, 13]), T(121, [32]), T(122, [80, 1]), T(123, [1])]],
   [], kernels=[("kernel", "void at::native::multi_tensor_apply_kernel", 5, 0)], parent=40)
op(42, "c10d::allreduce_", [[grads]], [],
   kernels=[("nccl", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", 40, 0)],
   children=[(43, "record_param_comms", 42, [[grads]], [], [7, 0, 0, "allreduce", [], []])])

et = {"schema": "1.0.1", "pid": 4242, "time": "hand-made", "nodes": nodes}

# Kineto: one host thread, ops back to back with fixed host overheads, each
# kernel launched by its own cudaLaunchKernel (cudaMemcpyAsync for copies).
events = []
t, corr = 1000, 1
gpu_free = 0
start = t
for r, name, kernels in ops:
    op_start = t
    t += 4  # T2
    calls = []
    for kind, kname, dur, nbytes in kernels:
        call = "cudaMemcpyAsync" if kind == "memcpy" else "cudaLaunchKernel"
        events.append({"ph": "X", "cat": "cuda_runtime", "name": call, "pid": 4242,
                       "tid": 4242, "ts": t, "dur": 5, "args": {"correlation": corr}})
        ks = max(t + 3, gpu_free + 1)
        stream = 20 if kind == "nccl" else 7
        args = {"device": 0, "stream": stream, "correlation": corr}
        if nbytes:
            args["bytes"] = nbytes
        events.append({"ph": "X", "cat": "gpu_memcpy" if kind == "memcpy" else "kernel",
                       "name": kname, "pid": 0, "tid": stream, "ts": ks, "dur": dur, "args": args})
        if stream == 7:
            gpu_free = ks + dur
        corr += 1
        t += 5 + 2  # T4 + T5
    t += 3  # T3
    events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 4242, "tid": 4242,
                   "ts": op_start, "dur": t - op_start,
                   "args": {"Record function id": r, "External id": r}})
    t += 6  # T1
end = max(t, gpu_free) + 10
events.insert(0, {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 4242,
                  "tid": 4242, "ts": start - 5, "dur": end - start + 5})
kin = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Tesla V100-SXM2-32GB"}],
       "traceEvents": events}
with open(os.path.join(HERE, "dlrm_mini_et.json"), "w") as f:
    json.dump(et, f, indent=0)
with open(os.path.join(HERE, "dlrm_mini_kineto.json"), "w") as f:
    json.dump(kin, f, indent=0)
