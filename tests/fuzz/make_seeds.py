#!/usr/bin/env python3
"""Writes the seed corpora under tests/fuzz/corpus/ (committed; rerun after changing the input
layout of a fuzz target). Each seed is a byte string in the layout the target decodes,
documented in docs/hardening.md; the fuzzer mutates from here."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

def u64(v): return struct.pack('<Q', v)
def u32(v): return struct.pack('<I', v)

# fuzz_descriptor: flags, perturb, type, rank, axis, direction, sizes..., [in strides],
# in total mode (+ extra), [out strides], out total mode, ..., seed.
# flags: 1 product, 2 exclusive, 4 in place, 8 input strides, 0x10 output strides,
#        0x20 two threads, 0x40 host pool, 0x80 one arena for both buffers.
# type byte t < 0xe0 picks supported type (t % 11): 0 float32, 1 float16, 2 uint32,
#        3 uint16, 4 uint8, 5 int32, 6 int16, 7 int8, 8 float64, 9 uint64, 10 int64.
# rank byte b < 0xe0: rank 1 + b % 8.  size byte s < 0xc0: 1 + s % 6.
DESCRIPTOR = {
    # the spec's reference example: float32 {1,1,3,4}, sum along axis 3
    'spec_example_sum': bytes([0x00, 0x00, 0, 3, 3, 0, 0, 0, 2, 3, 0, 0]) + u64(1),
    'spec_example_product_decreasing_exclusive': bytes([0x03, 0x00, 0, 3, 2, 1, 0, 0, 2, 3, 0, 0]) + u64(2),
    'int8_in_place': bytes([0x04, 0x00, 7, 1, 1, 0, 5, 4, 0]) + u64(3),
    'float16_transposed_output': bytes([0x10, 0x00, 1, 2, 0, 0, 3, 4, 0, 0, 7, 1, 2, 0]) + u64(4),
    'int64_padded_input': bytes([0x08, 0x00, 10, 2, 1, 1, 2, 5, 0, 1, 0, 3, 1, 9, 0]) + u64(5),
    'broadcast_input_uint16': bytes([0x08, 0x00, 3, 2, 1, 0, 3, 5, 3, 1, 0, 0, 0]) + u64(6),
    'overlapping_arena': bytes([0x80, 0x00, 5, 1, 0, 0, 0xc0, 200, 0, 0, 4, 0, 6, 0]) + u64(7),
    'invalid_type_13': bytes([0x00, 0x00, 0xed, 2, 0, 0, 2, 2, 0, 0]) + u64(8),
    'rank_9': bytes([0x00, 0x00, 0, 0xe9, 0, 0] + [0] * 9 + [0, 0]) + u64(9),
    'direction_max': bytes([0x00, 0x00, 0, 1, 0, 0xff]) + u32(0xffffffff) + bytes([3, 0, 0]) + u64(10),
    'huge_total_validate_only': bytes([0x00, 0x00, 0, 1, 0, 0, 0xff]) + u32(0xffffffff) + bytes([2]) + u64(2**63) + bytes([0]) + u64(11),
    'misaligned_output': bytes([0x00, 0x08, 8, 1, 0, 0, 4, 0, 0, 0x83]) + u64(12),
    'large_uint8_two_threads': bytes([0x20, 0x00, 4, 2, 0, 0, 0xf5]) + struct.pack('<H', 400) + bytes([0xf5]) + struct.pack('<H', 400) + bytes([0, 0]) + u64(13),
}

# fuzz_typed: flags, type (% 9: float, double, half, int8, uint8, int16, int32, uint64,
# int64), more, rank, axis (int8 % 10), direction, sizes..., in layout, out layout,
# in extra, out extra, seed.  flags: 1 product, 2 exclusive, 0x10 output size differs,
# 0x20 two threads.  more: 1 carry_in, 2 carry_out, 4 same carry view, 8 keepdims,
# 0x30 mis-shaped carry, 0x40 separate buffers.  layout mode byte % 4: 0 packed,
# 1 permuted/padded/signed (key, pad, sign bytes per dim), 2 small signed raw, 3 packed
# with one dim reversed or (0x80) broadcast.
TYPED = {
    'float_in_place': bytes([0x00, 0, 0x00, 1, 1, 0, 1, 2, 0, 0, 0, 0]) + u64(21),
    'int32_reversed_output_overlap': bytes([0x00, 6, 0x00, 1, 0xff, 0, 0xe0, 30, 0, 3, 0x00, 0, 3]) + u64(22),
    'half_product_carry': bytes([0x01, 2, 0x03, 2, 0xff, 1, 2, 3, 0, 0, 0, 0]) + u64(23),
    'int8_transposed_keepdims_carry': bytes([0x02, 3, 0x0b, 2, 1, 0, 2, 3, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]) + u64(24),
    'uint64_empty_axis_carry': bytes([0x00, 7, 0x03, 2, 1, 0, 3, 0xd0, 0, 0, 0, 0]) + u64(25),
    'double_interleaved': bytes([0x00, 1, 0x40, 2, 0, 1, 2, 2, 2, 1, 2, 2, 1, 0, 0]) + u64(26),
    'int64_small_strides': bytes([0x02, 8, 0x00, 3, 0xfe, 0, 2, 3, 2, 2, 1, 2, 3, 2, 2, 0xfe, 1, 0, 5]) + u64(27),
    'rank_9_refused': bytes([0x00, 0, 0x00, 0xf9, 0, 0] + [1] * 9 + [0, 0, 0, 0]) + u64(28),
    'uint8_long_lines': bytes([0x00, 4, 0x00, 2, 0, 0, 0xf0]) + struct.pack('<H', 900) + bytes([2, 0, 0, 0, 0]) + u64(29),
}

# fuzz_vocabulary: function (% 10: 0 cumsum int16->int64, 1 cumprod float->double,
# 2 nancumsum float, 3 nancumprod double, 4 cummax float + indices, 5 cummin int32,
# 6 logcumsumexp float, 7 scan of 2x2 matrices, 8 segmented cumsum float, 9 cumsum int32
# on the SIMD engine), flags, rank (1 + b % 4), axis (int8 % 6), sizes..., in layout,
# out layout, aux layout (indices or resets), in extra, out extra, seed.  flags:
# 1 decreasing, 2 exclusive, 4 include_initial, 0x18 wrong output length, 0x20 separate
# buffers, 0x40 three threads, 0x80 scan_accuracy::exact (function 9 then scans float32).
# Layouts as in fuzz_typed.
VOCABULARY = {
    'widening_sum_include_initial': bytes([0, 0x04, 1, 1, 2, 3, 0, 0, 0, 0, 0]) + u64(31),
    'product_float_to_double_decreasing': bytes([1, 0x01, 0, 0, 3, 0, 0, 0, 0, 0]) + u64(32),
    'nancumsum_in_place': bytes([2, 0x00, 1, 0, 2, 2, 0, 0, 0, 0, 0]) + u64(33),
    'nancumprod_exclusive_shifted': bytes([3, 0x02, 0, 0, 3, 0, 0, 0, 2, 1]) + u64(34),
    'cummax_indices_transposed': bytes([4, 0x20, 1, 0, 2, 3, 1, 1, 0, 2, 0, 1, 0, 0, 0, 0, 0]) + u64(35),
    'cummin_exclusive_refused': bytes([5, 0x02, 0, 0, 3, 0, 0, 0, 0, 0]) + u64(36),
    'logcumsumexp_long_line': bytes([6, 0x20, 0, 0, 0xf0]) + struct.pack('<H', 300) + bytes([0, 0, 0, 0, 0]) + u64(37),
    'matrix_scan_decreasing': bytes([7, 0x21, 1, 0xff, 3, 2, 0, 0, 0, 0, 0]) + u64(38),
    'segmented_broadcast_resets': bytes([8, 0x20, 1, 1, 2, 3, 0, 0, 3, 0x80, 0, 0]) + u64(39),
    'simd_include_initial_wrong_length': bytes([9, 0x3c, 1, 1, 2, 3, 0, 0, 0, 0, 0]) + u64(40),
    'exact_float_long_line': bytes([9, 0xa0, 0, 0, 0xf0]) + struct.pack('<H', 300) + bytes([0, 0, 0, 0, 0]) + u64(41),
    'exact_float_decreasing_in_place': bytes([9, 0x81, 0, 0, 0xf0]) + struct.pack('<H', 200) + bytes([0, 0, 0, 0, 0]) + u64(42),
}

for folder, seeds in (('descriptor', DESCRIPTOR), ('typed', TYPED), ('vocabulary', VOCABULARY)):
    path = os.path.join(HERE, 'corpus', folder)
    os.makedirs(path, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(path, name), 'wb') as f:
            f.write(data)
