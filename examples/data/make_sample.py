#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Makes the shipped samples: sample.safetensors (bfloat16 weights and a
float32 vector) and sample.npz (float32 arrays), from a fixed seed, with
numpy and ml_dtypes only. The safetensors header is written as the format
says: an 8-byte little-endian length, JSON padded with spaces to 8 bytes,
then the tensors' bytes, widest dtype first and then by name."""
import json
import os
import struct
import sys

import ml_dtypes
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240611)

weights = {
    "embed.weight": (rng.standard_normal((32, 16)) * 0.5).astype(ml_dtypes.bfloat16),
    "layer0.attn.weight": (rng.standard_normal((16, 16)) * 0.08).astype(ml_dtypes.bfloat16),
    "layer0.mlp.weight": (rng.standard_normal((64, 16)) * 0.03).astype(ml_dtypes.bfloat16),
    "layer0.norm.weight": (1 + 0.1 * rng.standard_normal(16)).astype(np.float32),
}
codes = {np.dtype(ml_dtypes.bfloat16): "BF16", np.dtype(np.float32): "F32"}

def save_safetensors(path, tensors, metadata):
    order = sorted(tensors, key=lambda n: (-tensors[n].dtype.itemsize, n))
    header, offset = {"__metadata__": metadata}, 0
    for n in order:
        a = tensors[n]
        header[n] = {"dtype": codes[a.dtype], "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for n in order:
            f.write(np.ascontiguousarray(tensors[n]).astype(tensors[n].dtype.newbyteorder("<")).tobytes())

save_safetensors(os.path.join(here, "sample.safetensors"), weights, {"format": "nx sample", "seed": "20240611"})
np.savez(os.path.join(here, "sample.npz"),
         activations=rng.standard_normal((4, 16)).astype(np.float32),
         bias=(0.01 * rng.standard_normal(16)).astype(np.float32))
print("wrote sample.safetensors and sample.npz in", here, file=sys.stderr)
