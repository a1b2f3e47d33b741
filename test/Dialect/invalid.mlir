// RUN: perf-opt %s -split-input-file -verify-diagnostics

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' attribute 'm' failed to satisfy constraint: a positive 64-bit integer at most max-extent (2^40)}}
    perf.gemm {m = 0, n = 4, k = 4}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' requires attribute 'n'}}
    perf.gemm {m = 4, k = 4}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.memcpy' attribute 'kind' failed to satisfy constraint: the direction of a copy, #perf.copy<h2d|d2h|d2d>}}
    perf.memcpy {bytes = 8, kind = "d2h"}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+2 {{expected ::perf::CopyDirection to be one of: h2d, d2h, d2d}}
    // expected-error @+1 {{failed to parse Perf_CopyDirectionAttr parameter 'value'}}
    perf.memcpy {bytes = 8, kind = #perf.copy<p2p>}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.conv2d' attribute 'stride' failed to satisfy constraint: a pair [h, w] of positive integers at most max-extent, array<i64: h, w>}}
    perf.conv2d {n = 1, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, stride = array<i64: 1, 1, 1>}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.conv2d' 'groups' (2) must divide c and k}}
    perf.conv2d {n = 1, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, groups = 2}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.conv2d' output is empty: filter larger than padded input}}
    perf.conv2d {n = 1, c = 3, h = 2, w = 2, k = 4, r = 3, s = 3}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.embedding_bag' 'pass' must be one of fwd bwd, got wgrad}}
    perf.embedding_bag {rows = 10, dim = 4, batch = 2, pass = #perf.pass<wgrad>}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.all_reduce' device 1 appears twice in 'group'}}
    perf.all_reduce {bytes = 8, group = array<i64: 0, 1, 1>}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.send' 'group' must be [source, destination]}}
    perf.send {bytes = 8, group = array<i64: 0, 1, 2>}
  }
}

// -----

// expected-error @+1 {{'perf.graph' op phase must be "inference", "training" or "decode", got "eval"}}
perf.graph @g attributes {phase = "eval"} {
}

// -----

perf.graph @g {
  // expected-error @+1 {{'perf.elementwise' is device work, not an op: list it in the braces of the perf.op that launches it}}
  perf.elementwise {elements = 4}
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.sync' is not device work; only kernels, copies and collectives may appear in a perf.op}}
    perf.sync
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' attribute 'dtype' failed to satisfy constraint: an integer or float element type}}
    perf.gemm {m = 4, n = 4, k = 4, dtype = index}
  }
}

// -----

// expected-error @+1 {{unknown GPU 'Z9000': name a catalog GPU or give its figures}}
perf.graph @g attributes {target = #perf.gpu<"Z9000">} {
}

// -----

// expected-error @+1 {{invalid #perf.gpu: unknown key 'warp_speed'}}
perf.graph @g attributes {target = #perf.gpu<"H100", warp_speed = 9>} {
}

// -----

// A string literal may hold any byte; the device JSON reader takes UTF-8.
// expected-error @+1 {{device strings must be valid UTF-8}}
perf.graph @g attributes {target = #perf.gpu<"H\FF100">} {
}

// -----

// A misspelt attribute is an error, not ignored.
perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' has no attribute 'tarns_a'; it takes 'batch', 'device', 'dtype', 'k', 'kernel_name', 'm', 'n', 'pass', 'stream', 'tensor_cores', 'trans_a', 'trans_b'}}
    perf.gemm {m = 4, n = 4, k = 4, tarns_a}
  }
}

// -----

// A negative measured latency never reaches the estimate.
perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' 'perf.latency_us' must be a finite non-negative number of microseconds, got -5}}
    perf.gemm {m = 4, n = 4, k = 4, perf.latency_us = -5.0, perf.cost_model = "measured"}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' 'perf.latency_us' must be a finite non-negative number of microseconds, got nan}}
    perf.gemm {m = 4, n = 4, k = 4, perf.latency_us = 0x7FF8000000000000 : f64}
  }
}

// -----

// Sizes past max-extent would overflow the FLOP and byte counts.
perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.elementwise' attribute 'inputs' failed to satisfy constraint: a non-negative 64-bit integer at most max-extent (2^40)}}
    perf.elementwise {elements = 4, inputs = 9223372036854775807}
  }
}

// -----

// The limit holds for every size and pair entry, read from the op's
// attributes rather than a list per kernel kind.
perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.conv2d' attribute 'pad' failed to satisfy constraint: a pair [h, w] of non-negative integers at most max-extent, array<i64: h, w>}}
    perf.conv2d {n = 1, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, pad = array<i64: 0, 2199023255552>}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.conv2d' attribute 'pad' failed to satisfy constraint: a pair [h, w] of non-negative integers at most max-extent, array<i64: h, w>}}
    perf.conv2d {n = 1, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, pad = array<i64: -1, 0>}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.conv2d' 'pass' must be one of fwd dgrad wgrad, got bwd}}
    perf.conv2d {n = 1, c = 3, h = 8, w = 8, k = 4, r = 3, s = 3, pass = #perf.pass<bwd>}
  }
}

// -----

// The pass is an enum attribute: a string, as earlier versions wrote it, is
// refused with the spelling it takes.
perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' attribute 'pass' failed to satisfy constraint: the training pass of a kernel, #perf.pass<fwd|bwd|dgrad|wgrad|update>}}
    perf.gemm {m = 4, n = 4, k = 4, pass = "dgrad"}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.all_reduce' attribute 'algorithm' failed to satisfy constraint: the NCCL algorithm of a collective, #perf.nccl<tree|ring|collnet_direct|collnet_chain|nvls|nvls_tree|pat|auto>}}
    perf.all_reduce {bytes = 8, group = array<i64: 0, 1>, algorithm = "ring"}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.all_reduce' device id is 70000, above the limit max-devices (65536)}}
    perf.all_reduce {bytes = 8, group = array<i64: 0, 70000>}
  }
}

// -----

perf.graph @g {
  // expected-error @+1 {{'perf.op' op 'device' must be from 0 to 65536 (limit max-devices), got 100000}}
  perf.op "x" {device = 100000} : () -> ()
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.kernel' 'flops' and 'bytes' must be finite and non-negative}}
    perf.kernel {flops = 0x7FF0000000000000 : f64, bytes = 8.0}
  }
}

// -----

// A misspelt perf.* attribute would leave the measured latency unread.
perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' has no attribute 'perf.latency_uss'; did you mean 'perf.latency_us'?}}
    perf.gemm {m = 4, n = 4, k = 4, perf.latency_uss = 5.0}
  }
}

// -----

// Nothing close: no suggestion.
// expected-error @+1 {{'perf.graph' op has no attribute 'perf.colour'}}
perf.graph @g attributes {perf.colour = "red"} {
}

// -----

// expected-error @+1 {{'perf.graph' op 'perf.tensor_parallel' must be an integer, got "4"}}
perf.graph @g attributes {perf.tensor_parallel = "4"} {
}

// -----

// expected-error @+1 {{'perf.graph' op 'perf.measured_on' must be a #perf.gpu<...>, got "A100"}}
perf.graph @g attributes {perf.measured_on = "A100"} {
}

// -----

perf.graph @g {
  // expected-error @+1 {{'perf.op' op 'perf.overhead_us' must be a finite non-negative number of microseconds, got -1}}
  perf.op "x" {perf.overhead_us = array<f64: 1.0, -1.0, 0.0, 0.0>} : () -> ()
}

// -----

// Another dialect's attributes are its own to check.
perf.graph @g attributes {other.colour = "red", perf.tensor_parallel = 2} {
}

// -----

perf.graph @g {
  // expected-error @+1 {{'perf.repeat' op attribute 'count' failed to satisfy constraint: a positive 64-bit integer at most max-extent (2^40)}}
  perf.repeat 0 : () -> () {
    perf.sync
  }
}

// -----

perf.graph @g {
  %x = perf.op "a" : () -> tensor<4xf32>
  // expected-error @+1 {{'perf.repeat' op must yield the types of the initial values ('tensor<4xf32>'), got ('tensor<8xf32>')}}
  %r = perf.repeat 2 (%x) : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%h: tensor<4xf32>):
    %y = perf.op "b"(%h) : (tensor<4xf32>) -> tensor<8xf32>
    perf.yield %y : tensor<8xf32>
  }
}

// -----

perf.graph @g {
  perf.repeat 2 : () -> () {
    // expected-error @+1 {{'perf.gemm' is device work, not an op: list it in the braces of the perf.op that launches it}}
    perf.gemm {m = 1, n = 1, k = 1}
  }
}

// -----

perf.graph @g {
  // expected-error @+1 {{'perf.repeat' op stands for more host ops once unrolled than the limit max-unrolled-ops (30000000)}}
  perf.repeat 100000 : () -> () {
    perf.repeat 1000 : () -> () {
      perf.sync
    }
  }
}

// -----

perf.graph @g {
  perf.op "a" : () -> () {
    // expected-error @+1 {{'perf.repeat' is not device work; only kernels, copies and collectives may appear in a perf.op}}
    perf.repeat 2 : () -> () {
    }
  }
}

// -----

// expected-error @+1 {{'perf.graph' op body must take no arguments; make a step's inputs with ops (perf.op "input")}}
perf.graph @g {
^bb0(%a: tensor<4xf32>):
  perf.op "x"(%a) : (tensor<4xf32>) -> ()
}

// -----

// The launch queue's depth is a number of kernels (0: no limit).
// expected-error @+1 {{'perf.graph' op 'perf.launch_queue_depth' must be a number of kernels from 0 (no limit) to 4294967295, got -2}}
perf.graph @g attributes {perf.launch_queue_depth = -2} {
}

// -----

// An integer fact counts or indexes something: a negative parameter count
// was read as none.
perf.graph @g {
  %x = perf.op "input" : () -> tensor<4x8xf32>
  // expected-error @+1 {{'perf.op' op 'perf.params' must be an integer from 0 to 2^53 (max-count), got -5}}
  %h = perf.op "aten::addmm"(%x) {perf.params = -5 : i64} : (tensor<4x8xf32>) -> tensor<4x8xf32>
}

// -----

// ... and one past 2^53 (9.0e15) stops products of it overflowing.
// expected-error @+1 {{'perf.graph' op 'perf.grad_bytes' must be an integer from 0 to 2^53 (max-count), got 9007199254740993}}
perf.graph @g attributes {perf.grad_bytes = 9007199254740993 : i64} {
}

// -----

// An iteration's host tail is a duration.
// expected-error @+1 {{'perf.graph' op 'perf.host_tail_us' must be a finite non-negative number of microseconds, got -5}}
perf.graph @g attributes {perf.host_tail_us = -5.0 : f64} {
}

// -----

// Only a copy runs inside its runtime call.
perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.gemm' 'perf.copy_in_call' is for a perf.memcpy (a copy that runs inside its runtime call)}}
    perf.gemm {m = 4, n = 4, k = 4, perf.copy_in_call}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.attention' 'kv_heads' (5) must divide 'heads' (32)}}
    perf.attention {batch = 1, heads = 32, kv_heads = 5, seq = 16, head_dim = 128}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.attention' 'impl' must be one of flash2, flash3, efficient, cudnn, got "flash4"}}
    perf.attention {batch = 1, heads = 32, seq = 16, head_dim = 128, impl = "flash4"}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.attention' a causal 'seq' (16) may not exceed 'kv_seq'}}
    perf.attention {batch = 1, heads = 32, seq = 16, kv_seq = 8, head_dim = 128, causal}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.rope' 'rotary_dim' must not exceed 'head_dim'}}
    perf.rope {tokens = 8, heads = 32, head_dim = 64, rotary_dim = 128}
  }
}

// -----

perf.graph @g {
  perf.op "x" : () -> () {
    // expected-error @+1 {{'perf.kv_cache_write' requires attribute 'kv_heads'}}
    perf.kv_cache_write {tokens = 8, head_dim = 64}
  }
}
