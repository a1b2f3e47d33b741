"""Writes the small hand-built ONNX fixtures of the import tests.

Run with Debian's python3-onnx (1.12): /usr/bin/python3 make_fixtures.py
"""
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def save(model, name):
    onnx.save(model, name)


def conv_model(weight):
    x = helper.make_tensor_value_info("x", F, [2, 3, 32, 32])
    y = helper.make_tensor_value_info("y", F, [2, 8, 16, 16])
    conv = helper.make_node("Conv", ["x", "w"], ["c"], name="conv0",
                            kernel_shape=[3, 3], strides=[2, 2],
                            pads=[1, 1, 1, 1])
    relu = helper.make_node("Relu", ["c"], ["y"], name="relu0")
    g = helper.make_graph([conv, relu], "g", [x], [y], initializer=[weight])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


# Weights stripped: dims but no bytes.
w = TensorProto()
w.name = "w"
w.data_type = F
w.dims.extend([8, 3, 3, 3])
save(conv_model(w), "stripped_weights.onnx")

# Weights in a file that does not exist next to the model.
w = TensorProto()
w.name = "w"
w.data_type = F
w.dims.extend([8, 3, 3, 3])
w.data_location = TensorProto.EXTERNAL
e = w.external_data.add()
e.key, e.value = "location", "weights.bin"
save(conv_model(w), "external_data.onnx")

# A matrix product whose inner dimensions disagree (3 vs 4).
a = helper.make_tensor_value_info("a", F, [2, 3])
b = helper.make_tensor_value_info("b", F, [4, 5])
y = helper.make_tensor_value_info("y", F, [2, 5])
mm = helper.make_node("MatMul", ["a", "b"], ["y"], name="mismatched_matmul")
g = helper.make_graph([mm], "g", [a, b], [y])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
     "bad_shapes.onnx")

# An op from a domain no lowering knows, next to one that is known.
x = helper.make_tensor_value_info("x", F, [4, 16])
y = helper.make_tensor_value_info("y", F, [None, None])
n1 = helper.make_node("Relu", ["x"], ["r"], name="relu")
n2 = helper.make_node("FancyNorm", ["r"], ["s"], name="fancy0",
                      domain="com.example")
n3 = helper.make_node("FancyNorm", ["s"], ["y"], name="fancy1",
                      domain="com.example")
g = helper.make_graph([n1, n2, n3], "g", [x], [y])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                         helper.make_opsetid("com.example", 1)]),
     "custom_op.onnx")

# EmbeddingBag as PyTorch exports it (opset 13): a Loop over the bags whose
# body gathers the bag's rows and sums them.
table = helper.make_tensor_value_info("table", F, [1000, 64])
idx = helper.make_tensor_value_info("indices", TensorProto.INT64, [4, 20])
out = helper.make_tensor_value_info("out", F, [None, None])
trip = helper.make_tensor("trip", TensorProto.INT64, [], [4])
cond = helper.make_tensor("cond", TensorProto.BOOL, [], [True])
it = helper.make_tensor_value_info("i", TensorProto.INT64, [])
cin = helper.make_tensor_value_info("cin", TensorProto.BOOL, [])
cout = helper.make_tensor_value_info("cout", TensorProto.BOOL, [])
bag = helper.make_tensor_value_info("bag", F, [64])
body = helper.make_graph(
    [helper.make_node("Identity", ["cin"], ["cout"], name="keep_going"),
     helper.make_node("Gather", ["indices", "i"], ["rows"], name="bag_rows",
                      axis=0),
     helper.make_node("Gather", ["table", "rows"], ["vecs"], name="lookup",
                      axis=0),
     helper.make_node("ReduceSum", ["vecs", "axes"], ["bag"], name="pool",
                      keepdims=0)],
    "body", [it, cin], [cout, bag],
    initializer=[helper.make_tensor("axes", TensorProto.INT64, [1], [0])])
loop = helper.make_node("Loop", ["trip", "cond"], ["out"], name="embedding_bag",
                        body=body)
g = helper.make_graph([loop], "g", [table, idx], [out],
                      initializer=[trip, cond])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
     "embedding_bag_loop.onnx")

# Broadcast operands: x [64, 128] + bias [128], then Where(mask [1, 128],
# x, scalar). Only x is streamed per output element by either kernel.
x = helper.make_tensor_value_info("x", F, [64, 128])
mask = helper.make_tensor_value_info("mask", TensorProto.BOOL, [1, 128])
y = helper.make_tensor_value_info("y", F, [64, 128])
bias = helper.make_tensor("bias", F, [128], [0.0] * 128)
zero = helper.make_tensor("zero", F, [], [0.0])
add = helper.make_node("Add", ["x", "bias"], ["a"], name="add0")
where = helper.make_node("Where", ["mask", "a", "zero"], ["y"], name="where0")
g = helper.make_graph([add, where], "g", [x, mask], [y], initializer=[bias, zero])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "broadcast.onnx")

# nn.Linear + exact GELU + nn.Linear as torch.onnx exports them: MatMul and
# a bias Add per Linear, and GELU as Div(sqrt 2), Erf, Add 1, Mul x, Mul 0.5.
# Eager PyTorch runs three kernels: addmm, gelu, addmm.
x = helper.make_tensor_value_info("x", F, [8, 16, 64])
y = helper.make_tensor_value_info("y", F, [8, 16, 64])
w1 = helper.make_tensor("w1", F, [64, 256], [0.0] * (64 * 256))
b1 = helper.make_tensor("b1", F, [256], [0.0] * 256)
w2 = helper.make_tensor("w2", F, [256, 64], [0.0] * (256 * 64))
b2 = helper.make_tensor("b2", F, [64], [0.0] * 64)
sqrt2 = helper.make_tensor("sqrt2", F, [], [1.4142135])
one = helper.make_tensor("one", F, [], [1.0])
half = helper.make_tensor("half", F, [], [0.5])
nodes = [
    helper.make_node("MatMul", ["x", "w1"], ["mm1"], name="fc1.matmul"),
    helper.make_node("Add", ["b1", "mm1"], ["h"], name="fc1.bias"),
    helper.make_node("Div", ["h", "sqrt2"], ["d"], name="gelu.div"),
    helper.make_node("Erf", ["d"], ["e"], name="gelu.erf"),
    helper.make_node("Add", ["e", "one"], ["a"], name="gelu.add"),
    helper.make_node("Mul", ["h", "a"], ["m"], name="gelu.mul"),
    helper.make_node("Mul", ["m", "half"], ["g"], name="gelu.mul_1"),
    helper.make_node("MatMul", ["g", "w2"], ["mm2"], name="fc2.matmul"),
    helper.make_node("Add", ["mm2", "b2"], ["y"], name="fc2.bias"),
]
g = helper.make_graph(nodes, "g", [x], [y], initializer=[w1, b1, w2, b2, sqrt2, one, half])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "linear_gelu.onnx")

# A token model with a dynamic sequence axis: ids [1, 8] -> embedding
# Gather [100, 16] -> MatMul [16, 32]. --onnx-seq resizes dim 1.
ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [1, 8])
y = helper.make_tensor_value_info("y", F, [1, 8, 32])
table = helper.make_tensor("table", F, [100, 16], [0.0] * 1600)
w = helper.make_tensor("w", F, [16, 32], [0.0] * 512)
nodes = [helper.make_node("Gather", ["table", "ids"], ["e"], name="embed"),
         helper.make_node("MatMul", ["e", "w"], ["y"], name="proj")]
g = helper.make_graph(nodes, "g", [ids], [y], initializer=[table, w])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "tokens.onnx")

# A classifier's loss as a training export writes it: CumSum over the
# logits [4, 10] and SoftmaxCrossEntropyLoss against labels [4].
logits = helper.make_tensor_value_info("logits", F, [4, 10])
labels = helper.make_tensor_value_info("labels", TensorProto.INT64, [4])
loss = helper.make_tensor_value_info("loss", F, [])
axis = helper.make_tensor("axis", TensorProto.INT64, [], [1])
nodes = [helper.make_node("CumSum", ["logits", "axis"], ["c"], name="cumsum"),
         helper.make_node("SoftmaxCrossEntropyLoss", ["c", "labels"], ["loss"],
                          name="loss", reduction="mean")]
g = helper.make_graph(nodes, "g", [logits, labels], [loss], initializer=[axis])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), "loss.onnx")

# Linear then Dropout (opset 11: the ratio is an attribute): nothing at
# inference, one kernel and its backward in a synthesized training step.
x = helper.make_tensor_value_info("x", F, [4, 64])
y = helper.make_tensor_value_info("y", F, [4, 32])
w = helper.make_tensor("w", F, [64, 32], [0.0] * (64 * 32))
nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc"),
         helper.make_node("Dropout", ["h"], ["y"], name="drop", ratio=0.1)]
g = helper.make_graph(nodes, "g", [x], [y], initializer=[w])
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 11)]), "dropout.onnx")

# A tied LM head as torch.onnx.export writes it with constant folding (its
# default): the token embedding "emb.weight" [100, 16] and, for the head's
# MatMul, a folded transposed copy "onnx::MatMul_12" [16, 100] with the
# same numbers: one parameter. The two zero biases of one size are equal by
# construction, not tied: both count.
import numpy as np
rng = np.random.default_rng(7)
emb = rng.standard_normal((100, 16)).astype(np.float32)
ids = helper.make_tensor_value_info("input", TensorProto.INT64, [2, 8])
y = helper.make_tensor_value_info("logits", F, [2, 8, 100])
inits = [
    numpy_helper.from_array(emb, "emb.weight"),
    numpy_helper.from_array(
        rng.standard_normal((16, 16)).astype(np.float32), "onnx::MatMul_11"),
    numpy_helper.from_array(np.zeros(16, np.float32), "lin.bias"),
    numpy_helper.from_array(
        rng.standard_normal((16, 16)).astype(np.float32), "onnx::MatMul_13"),
    numpy_helper.from_array(np.zeros(16, np.float32), "lin2.bias"),
    numpy_helper.from_array(np.ascontiguousarray(emb.T), "onnx::MatMul_12"),
]
nodes = [
    helper.make_node("Gather", ["emb.weight", "input"], ["e"], name="emb"),
    helper.make_node("MatMul", ["e", "onnx::MatMul_11"], ["m"], name="lin_mm"),
    helper.make_node("Add", ["lin.bias", "m"], ["a"], name="lin_add"),
    helper.make_node("MatMul", ["a", "onnx::MatMul_13"], ["m2"], name="lin2_mm"),
    helper.make_node("Add", ["lin2.bias", "m2"], ["a2"], name="lin2_add"),
    helper.make_node("Relu", ["a2"], ["r"], name="relu"),
    helper.make_node("MatMul", ["r", "onnx::MatMul_12"], ["logits"], name="head"),
]
g = helper.make_graph(nodes, "g", [ids], [y], initializer=inits)
save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]),
     "tied_embedding.onnx")

# Bad input that crashed ONNX's shape inference or passed unpriced.
def one_node(node, inputs, out_rank, name):
    y = helper.make_tensor_value_info(
        "Y", F, ["d%d" % i for i in range(out_rank)])
    g = helper.make_graph([node], "g", inputs, [y])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    save(model, name)


def value(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


one_node(helper.make_node("Conv", ["X", "W"], ["Y"], strides=[0, 0]),
         [value("X", [1, 3, 8, 8]), value("W", [4, 3, 3, 3])], 4,
         "conv_stride0.onnx")
one_node(helper.make_node("MaxPool", ["X"], ["Y"], kernel_shape=[2, 2],
                          strides=[0, 0]),
         [value("X", [1, 3, 8, 8])], 4, "pool_stride0.onnx")
one_node(helper.make_node("Conv", ["X", "W"], ["Y"]),
         [value("X", [1, 3, 8]), value("W", [4, 3, 3, 3])], 4,
         "conv_rank_mismatch.onnx")
one_node(helper.make_node("Relu", ["X"], ["Y"]), [value("X", [-5, 3])], 2,
         "negative_dim.onnx")
one_node(helper.make_node("Relu", ["X"], ["Y"]),
         [value("X", [1 << 40, 1 << 40])], 2, "huge_dims.onnx")
# Each tensor within max-tensor-elements, the product 2^70 multiply-adds.
one_node(helper.make_node("MatMul", ["X", "W"], ["Y"]),
         [value("X", [1 << 23, 1 << 24]), value("W", [1 << 24, 1 << 23])], 2,
         "huge_work.onnx")
# A tensor within max-tensor-elements (2^42 elements) whose element-wise
# kernel is above max-extent.
one_node(helper.make_node("Relu", ["X"], ["Y"], name="big_relu"),
         [value("X", [1 << 21, 1 << 21])], 2, "huge_kernel.onnx")
