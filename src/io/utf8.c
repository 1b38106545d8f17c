/* SPDX-License-Identifier: Apache-2.0 */
/* UTF-8, as the file formats' names and strings are: checked strictly, and
   cut only between characters. */
#include "io_internal.h"

/* Strict UTF-8: no overlong forms, surrogates or code points past U+10FFFF. */
bool nx__io_utf8_valid(const uint8_t *p, int64_t n) {
  int64_t i = 0;
  while (i < n) {
    uint8_t c = p[i];
    int len;
    uint32_t cp;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (n - i < len) return false;
    for (int k = 1; k < len; k++) {
      if ((p[i + k] & 0xC0) != 0x80) return false;
      cp = cp << 6 | (p[i + k] & 0x3F);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += len;
  }
  return true;
}

size_t nx__io_utf8_cut(const char *p, size_t n, size_t max) {
  if (n <= max) return n;
  size_t k = max;
  while (k > 0 && ((unsigned char)p[k] & 0xC0) == 0x80) k--; /* p[k] continues a character: cut before it */
  return k;
}

size_t nx__io_utf8_mend(const char *p, size_t n, char *out, size_t cap) {
  static const char fffd[3] = {(char)0xEF, (char)0xBF, (char)0xBD};
  size_t i = 0, o = 0;
  while (i < n) {
    uint8_t c = (uint8_t)p[i];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool whole = len && c != 0 && len <= n - i && nx__io_utf8_valid((const uint8_t *)p + i, (int64_t)len);
    const char *piece = whole ? p + i : fffd;
    size_t k = whole ? len : 3;
    if (o + k > cap) break;
    memcpy(out + o, piece, k);
    o += k;
    i += whole ? len : 1;
  }
  return o;
}
