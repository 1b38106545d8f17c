#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make run's main job on the shipped sample: look inside a bfloat16
# checkpoint, convert it to float8_e4m3fn with a per-tensor scale and back,
# and print what was lost. $1 is the nx command.
set -eu
nx=$1
cd "$(dirname "$0")/../.."
out=build/sample
mkdir -p "$out"
set -x
"$nx" info examples/data/sample.safetensors
"$nx" convert examples/data/sample.safetensors "$out/sample-f8.safetensors" --to float8_e4m3fn --scale amax
"$nx" info "$out/sample-f8.safetensors"
"$nx" convert "$out/sample-f8.safetensors" "$out/sample-back.safetensors" --to bfloat16
# What was lost: float8_e4m3fn keeps 3 fraction bits, so every error is at
# most half an ulp there, well under 0.1 at the sample's magnitudes.
"$nx" diff examples/data/sample.safetensors "$out/sample-f8.safetensors" --tol 0.1
"$nx" diff examples/data/sample.safetensors "$out/sample-back.safetensors" --tol 0.1
"$nx" show "$out/sample-back.safetensors:layer0.attn.weight[:2, :6]"
"$nx" info examples/data/sample.npz
"$nx" convert examples/data/sample.npz "$out/sample-npz-f8.safetensors" --to float8_e4m3fn --scale amax
"$nx" diff examples/data/sample.npz "$out/sample-npz-f8.safetensors" --tol 0.1
