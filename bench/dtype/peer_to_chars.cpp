/* SPDX-License-Identifier: Apache-2.0 */
// The printing peer of bench_dtype: std::to_chars of the C++ library, the
// shortest round-trip digits (Ryu's algorithm in libstdc++), as C functions.
// Scientific: the plain form writes some integers with all their digits
// rather than the shortest ones.
#include <charconv>

extern "C" int bench_to_chars_f64(double x, char *buf, int cap) {
  return (int)(std::to_chars(buf, buf + cap, x, std::chars_format::scientific).ptr - buf);
}

extern "C" int bench_to_chars_f32(float x, char *buf, int cap) {
  return (int)(std::to_chars(buf, buf + cap, x, std::chars_format::scientific).ptr - buf);
}
