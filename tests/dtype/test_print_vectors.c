/* SPDX-License-Identifier: Apache-2.0 */
/* pp_value against the research vectors, transcribed exactly: every code of
   float8_e4m3fn, float8_e5m2 and float4_e2m1fn (dtypes_vectors.md section 2)
   and the selected float16 and bfloat16 codes (section 3), the seed's and the
   report's examples, and the refusals: values not of the format, buffers too
   small, integers, booleans and complex numbers. No GMP. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nx_dtype.h"
#include "../check.h"

struct selected {
  uint32_t bits;
  const char *exact; /* the table's "exact value": Python's repr of the double */
  const char *text;
};

/* ---- dtypes_vectors.md sections 2 and 3, as the appendix has them ---------- */

static const char E4M3FN_TABLE[] =
    "00=0  01=0.002  02=0.004  03=0.006  04=0.008  05=0.01  06=0.012  07=0.014\n"
    "08=0.016  09=0.018  0A=0.02  0B=0.021  0C=0.023  0D=0.025  0E=0.027  0F=0.03\n"
    "10=0.031  11=0.035  12=0.04  13=0.043  14=0.047  15=0.05  16=0.055  17=0.06\n"
    "18=0.062  19=0.07  1A=0.08  1B=0.086  1C=0.09  1D=0.1  1E=0.11  1F=0.12\n"
    "20=0.13  21=0.14  22=0.16  23=0.17  24=0.19  25=0.2  26=0.22  27=0.23\n"
    "28=0.25  29=0.28  2A=0.3  2B=0.34  2C=0.38  2D=0.4  2E=0.44  2F=0.47\n"
    "30=0.5  31=0.56  32=0.6  33=0.7  34=0.75  35=0.8  36=0.9  37=0.94\n"
    "38=1  39=1.1  3A=1.2  3B=1.4  3C=1.5  3D=1.6  3E=1.8  3F=1.9\n"
    "40=2  41=2.2  42=2.5  43=2.8  44=3  45=3.2  46=3.5  47=3.8\n"
    "48=4  49=4.5  4A=5  4B=5.5  4C=6  4D=6.5  4E=7  4F=7.5\n"
    "50=8  51=9  52=10  53=11  54=12  55=13  56=14  57=15\n"
    "58=16  59=18  5A=20  5B=22  5C=24  5D=26  5E=28  5F=30\n"
    "60=32  61=36  62=40  63=44  64=50  65=52  66=56  67=60\n"
    "68=64  69=70  6A=80  6B=90  6C=100  6D=104  6E=110  6F=120\n"
    "70=130  71=140  72=160  73=180  74=200  75=210  76=220  77=240\n"
    "78=260  79=300  7A=320  7B=350  7C=400  7D=420  7E=450  7F=nan\n"
    "80=-0  81=-0.002  82=-0.004  83=-0.006  84=-0.008  85=-0.01  86=-0.012  87=-0.014\n"
    "88=-0.016  89=-0.018  8A=-0.02  8B=-0.021  8C=-0.023  8D=-0.025  8E=-0.027  8F=-0.03\n"
    "90=-0.031  91=-0.035  92=-0.04  93=-0.043  94=-0.047  95=-0.05  96=-0.055  97=-0.06\n"
    "98=-0.062  99=-0.07  9A=-0.08  9B=-0.086  9C=-0.09  9D=-0.1  9E=-0.11  9F=-0.12\n"
    "A0=-0.13  A1=-0.14  A2=-0.16  A3=-0.17  A4=-0.19  A5=-0.2  A6=-0.22  A7=-0.23\n"
    "A8=-0.25  A9=-0.28  AA=-0.3  AB=-0.34  AC=-0.38  AD=-0.4  AE=-0.44  AF=-0.47\n"
    "B0=-0.5  B1=-0.56  B2=-0.6  B3=-0.7  B4=-0.75  B5=-0.8  B6=-0.9  B7=-0.94\n"
    "B8=-1  B9=-1.1  BA=-1.2  BB=-1.4  BC=-1.5  BD=-1.6  BE=-1.8  BF=-1.9\n"
    "C0=-2  C1=-2.2  C2=-2.5  C3=-2.8  C4=-3  C5=-3.2  C6=-3.5  C7=-3.8\n"
    "C8=-4  C9=-4.5  CA=-5  CB=-5.5  CC=-6  CD=-6.5  CE=-7  CF=-7.5\n"
    "D0=-8  D1=-9  D2=-10  D3=-11  D4=-12  D5=-13  D6=-14  D7=-15\n"
    "D8=-16  D9=-18  DA=-20  DB=-22  DC=-24  DD=-26  DE=-28  DF=-30\n"
    "E0=-32  E1=-36  E2=-40  E3=-44  E4=-50  E5=-52  E6=-56  E7=-60\n"
    "E8=-64  E9=-70  EA=-80  EB=-90  EC=-100  ED=-104  EE=-110  EF=-120\n"
    "F0=-130  F1=-140  F2=-160  F3=-180  F4=-200  F5=-210  F6=-220  F7=-240\n"
    "F8=-260  F9=-300  FA=-320  FB=-350  FC=-400  FD=-420  FE=-450  FF=nan\n";

static const char E5M2_TABLE[] =
    "00=0  01=2e-05  02=3e-05  03=5e-05  04=6e-05  05=8e-05  06=9e-05  07=0.0001\n"
    "08=0.00012  09=0.00015  0A=0.00018  0B=0.0002  0C=0.00024  0D=0.0003  0E=0.00037  0F=0.0004\n"
    "10=0.0005  11=0.0006  12=0.0007  13=0.0009  14=0.001  15=0.0012  16=0.0015  17=0.0017\n"
    "18=0.002  19=0.0024  1A=0.003  1B=0.0034  1C=0.004  1D=0.005  1E=0.006  1F=0.007\n"
    "20=0.008  21=0.01  22=0.012  23=0.014  24=0.016  25=0.02  26=0.023  27=0.027\n"
    "28=0.03  29=0.04  2A=0.05  2B=0.055  2C=0.06  2D=0.08  2E=0.09  2F=0.11\n"
    "30=0.12  31=0.16  32=0.2  33=0.22  34=0.25  35=0.3  36=0.4  37=0.44\n"
    "38=0.5  39=0.6  3A=0.8  3B=0.9  3C=1  3D=1.2  3E=1.5  3F=1.8\n"
    "40=2  41=2.5  42=3  43=3.5  44=4  45=5  46=6  47=7\n"
    "48=8  49=10  4A=12  4B=14  4C=16  4D=20  4E=24  4F=28\n"
    "50=30  51=40  52=50  53=56  54=60  55=80  56=100  57=110\n"
    "58=130  59=160  5A=200  5B=220  5C=260  5D=300  5E=400  5F=450\n"
    "60=500  61=600  62=800  63=900  64=1000  65=1300  66=1500  67=1800\n"
    "68=2000  69=2600  6A=3000  6B=3600  6C=4000  6D=5000  6E=6000  6F=7000\n"
    "70=8000  71=10000  72=12000  73=14000  74=16000  75=20000  76=25000  77=30000\n"
    "78=33000  79=40000  7A=50000  7B=60000  7C=inf  7D=nan  7E=nan  7F=nan\n"
    "80=-0  81=-2e-05  82=-3e-05  83=-5e-05  84=-6e-05  85=-8e-05  86=-9e-05  87=-0.0001\n"
    "88=-0.00012  89=-0.00015  8A=-0.00018  8B=-0.0002  8C=-0.00024  8D=-0.0003  8E=-0.00037  8F=-0.0004\n"
    "90=-0.0005  91=-0.0006  92=-0.0007  93=-0.0009  94=-0.001  95=-0.0012  96=-0.0015  97=-0.0017\n"
    "98=-0.002  99=-0.0024  9A=-0.003  9B=-0.0034  9C=-0.004  9D=-0.005  9E=-0.006  9F=-0.007\n"
    "A0=-0.008  A1=-0.01  A2=-0.012  A3=-0.014  A4=-0.016  A5=-0.02  A6=-0.023  A7=-0.027\n"
    "A8=-0.03  A9=-0.04  AA=-0.05  AB=-0.055  AC=-0.06  AD=-0.08  AE=-0.09  AF=-0.11\n"
    "B0=-0.12  B1=-0.16  B2=-0.2  B3=-0.22  B4=-0.25  B5=-0.3  B6=-0.4  B7=-0.44\n"
    "B8=-0.5  B9=-0.6  BA=-0.8  BB=-0.9  BC=-1  BD=-1.2  BE=-1.5  BF=-1.8\n"
    "C0=-2  C1=-2.5  C2=-3  C3=-3.5  C4=-4  C5=-5  C6=-6  C7=-7\n"
    "C8=-8  C9=-10  CA=-12  CB=-14  CC=-16  CD=-20  CE=-24  CF=-28\n"
    "D0=-30  D1=-40  D2=-50  D3=-56  D4=-60  D5=-80  D6=-100  D7=-110\n"
    "D8=-130  D9=-160  DA=-200  DB=-220  DC=-260  DD=-300  DE=-400  DF=-450\n"
    "E0=-500  E1=-600  E2=-800  E3=-900  E4=-1000  E5=-1300  E6=-1500  E7=-1800\n"
    "E8=-2000  E9=-2600  EA=-3000  EB=-3600  EC=-4000  ED=-5000  EE=-6000  EF=-7000\n"
    "F0=-8000  F1=-10000  F2=-12000  F3=-14000  F4=-16000  F5=-20000  F6=-25000  F7=-30000\n"
    "F8=-33000  F9=-40000  FA=-50000  FB=-60000  FC=-inf  FD=nan  FE=nan  FF=nan\n";

static const char E2M1_TABLE[] =
    "0=0  1=0.5  2=1  3=1.5  4=2  5=3  6=4  7=6\n"
    "8=-0  9=-0.5  A=-1  B=-1.5  C=-2  D=-3  E=-4  F=-6\n";

static const struct selected F16_SELECTED[] = {
    {0x0001, "5.960464477539063e-08", "6e-08"},
    {0x0002, "1.1920928955078125e-07", "1e-07"},
    {0x0003, "1.7881393432617188e-07", "2e-07"},
    {0x03FF, "6.097555160522461e-05", "6.1e-05"},
    {0x0400, "6.103515625e-05", "6.104e-05"},
    {0x068E, "0.00010001659393310547", "0.0001"},
    {0x0690, "0.00010013580322265625", "0.00010014"},
    {0x0C00, "0.000244140625", "0.0002441"},
    {0x1400, "0.0009765625", "0.000977"},
    {0x2E66, "0.0999755859375", "0.1"},
    {0x3555, "0.333251953125", "0.3333"},
    {0x3BFF, "0.99951171875", "0.9995"},
    {0x3C00, "1.0", "1"},
    {0x3C01, "1.0009765625", "1.001"},
    {0x3E00, "1.5", "1.5"},
    {0x4248, "3.140625", "3.14"},
    {0x57D0, "125.0", "125"},
    {0x6400, "1024.0", "1024"},
    {0x7BFE, "65472.0", "65470"},
    {0x7BFF, "65504.0", "65500"},
    {0x8001, "-5.960464477539063e-08", "-6e-08"},
    {0xFBFF, "-65504.0", "-65500"},
};

static const struct selected BF16_SELECTED[] = {
    {0x0001, "9.183549615799121e-41", "9e-41"},
    {0x0002, "1.8367099231598242e-40", "2e-40"},
    {0x007F, "1.1663108012064884e-38", "1.17e-38"},
    {0x0080, "1.1754943508222875e-38", "1.18e-38"},
    {0x38D1, "9.965896606445312e-05", "9.97e-05"},
    {0x38D2, "0.00010013580322265625", "0.0001"},
    {0x3DCD, "0.10009765625", "0.1"},
    {0x3EAB, "0.333984375", "0.334"},
    {0x3F80, "1.0", "1"},
    {0x3F81, "1.0078125", "1.01"},
    {0x4049, "3.140625", "3.14"},
    {0x42C8, "100.0", "100"},
    {0x496B, "962560.0", "963000"},
    {0x49B4, "1474560.0", "1475000"},
    {0x4B18, "9961472.0", "9960000"},
    {0x4B61, "14745600.0", "14750000"},
    {0x5A0D, "9921992929050624.0", "9900000000000000"},
    {0x5A0E, "9992361673228288.0", "10000000000000000"},
    {0x5A0F, "1.0062730417405952e+16", "1.006e+16"},
    {0x7F7E, "3.3762391092936863e+38", "3.38e+38"},
    {0x7F7F, "3.3895313892515355e+38", "3.39e+38"},
};

/* ---- Helpers ---------------------------------------------------------------- */

/* The text of the value of `bits` in `code`, by nx_dtype_format_value on the
   double nx_dtype_load_bits gives and by nx_dtype_pp_value on the nx_value:
   both must agree; the first is returned in out ("<error>" on failure). */
static void text_of_bits(int code, uint64_t bits, char *out, size_t cap) {
  double x = nx_dtype_load_bits(code, bits);
  char b2[NX_DTYPE_PP_MAX];
  int r = nx_dtype_format_value(code, x, out, cap);
  if (r < 0) snprintf(out, cap, "<error: %s>", nx_error_message());
  nx_value v;
  memset(&v, 0, sizeof v);
  v.f = x;
  int r2 = nx_dtype_pp_value((nx_dtype)code, v, b2, sizeof b2);
  CHECK(r == r2 && (r < 0 || strcmp(out, b2) == 0), "code %d bits %#llx: format_value \"%s\" (%d), pp_value \"%s\" (%d)",
        code, (unsigned long long)bits, out, r, r2 >= 0 ? b2 : "", r2);
  CHECK(r < 0 || r == (int)strlen(out), "code %d bits %#llx: length %d for \"%s\"", code, (unsigned long long)bits, r, out);
}

/* Every entry of a section 2 table: `count` codes, each once. */
static void check_table(int code, const char *name, const char *table, int count) {
  char seen[256] = {0};
  int entries = 0;
  const char *p = table;
  long f0 = check_failures;
  while (*p) {
    while (*p == ' ' || *p == '\n') p++;
    if (!*p) break;
    char *eq;
    unsigned long bits = strtoul(p, &eq, 16);
    CHECK(*eq == '=', "%s table: malformed entry at \"%.12s\"", name, p);
    if (*eq != '=') return;
    const char *t = eq + 1, *end = t;
    while (*end && *end != ' ' && *end != '\n') end++;
    char want[32], got[NX_DTYPE_PP_MAX];
    snprintf(want, sizeof want, "%.*s", (int)(end - t), t);
    CHECK(bits < (unsigned long)count && !seen[bits], "%s table: code %#lx out of range or repeated", name, bits);
    if (bits < (unsigned long)count) seen[bits] = 1;
    text_of_bits(code, bits, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "%s code %02lX: expected \"%s\", got \"%s\"", name, bits, want, got);
    entries++;
    p = end;
  }
  CHECK(entries == count, "%s table: %d entries, expected %d", name, entries, count);
  printf("%s: %d codes of the table, %ld failures\n", name, entries, check_failures - f0);
}

static void check_selected(int code, const char *name, const struct selected *s, size_t n) {
  long f0 = check_failures;
  for (size_t i = 0; i < n; i++) {
    char got[NX_DTYPE_PP_MAX], want_exact[64], got_exact[NX_DTYPE_PP_MAX];
    text_of_bits(code, s[i].bits, got, sizeof got);
    CHECK(strcmp(got, s[i].text) == 0, "%s %#06x: expected \"%s\", got \"%s\"", name, (unsigned)s[i].bits, s[i].text, got);
    /* The "exact value" column is the double itself (Python's repr, the
       shortest round-trip digits of float64): it reads back to the loaded
       value, and is float64's own text once repr's ".0" goes. */
    double x = nx_dtype_load_bits(code, s[i].bits);
    CHECK(strtod(s[i].exact, NULL) == x, "%s %#06x: the table's %s is not %.17g", name, (unsigned)s[i].bits,
          s[i].exact, x);
    snprintf(want_exact, sizeof want_exact, "%s", s[i].exact);
    size_t l = strlen(want_exact);
    if (l > 2 && strcmp(want_exact + l - 2, ".0") == 0) want_exact[l - 2] = 0;
    int r = nx_dtype_format_value(NX_FLOAT64, x, got_exact, sizeof got_exact);
    CHECK(r >= 0 && strcmp(got_exact, want_exact) == 0, "%s %#06x as float64: expected \"%s\", got \"%s\"", name,
          (unsigned)s[i].bits, want_exact, r >= 0 ? got_exact : nx_error_message());
  }
  printf("%s: %zu selected codes, %ld failures\n", name, n, check_failures - f0);
}

/* The text of the real x of `code`, expected `want`. */
#define EXPECT(code, x, want)                                                                  \
  do {                                                                                        \
    char b_[NX_DTYPE_PP_MAX];                                                                 \
    int r_ = nx_dtype_format_value((code), (x), b_, sizeof b_);                               \
    CHECK(r_ == (int)strlen(want) && strcmp(b_, (want)) == 0, "%s (code %d): expected \"%s\", got \"%s\" (%d) %s", \
          #x, (int)(code), (want), r_ >= 0 ? b_ : "", r_, r_ < 0 ? nx_error_message() : "");  \
  } while (0)

/* The text of nx_value v of dt, expected `want`. */
static void expect_pp(nx_dtype dt, nx_value v, const char *want, const char *what) {
  char b[NX_DTYPE_PP_MAX];
  int r = nx_dtype_pp_value(dt, v, b, sizeof b);
  CHECK(r == (int)strlen(want) && strcmp(b, want) == 0, "%s: expected \"%s\", got \"%s\" (%d) %s", what, want,
        r >= 0 ? b : "", r, r < 0 ? nx_error_message() : "");
}

/* A refusal of nx_dtype_format_value: -1 and a message that names the
   function and holds `says`. */
static void expect_refused(int code, double x, size_t cap, const char *says, const char *what) {
  char b[NX_DTYPE_PP_MAX + 8];
  int r = nx_dtype_format_value(code, x, b, cap);
  const char *m = nx_error_message();
  CHECK(r == -1, "%s: returned %d (\"%s\"), expected -1", what, r, r >= 0 ? b : "");
  CHECK(strncmp(m, "nx_dtype_format_value", strlen("nx_dtype_format_value")) == 0 && strstr(m, says) != NULL,
        "%s: message \"%s\" should name nx_dtype_format_value and say \"%s\"", what, m, says);
  CHECK(strstr(m, "nx_dtype_pp_value") == NULL, "%s: message \"%s\" names nx_dtype_pp_value", what, m);
}

static void expect_pp_refused(nx_dtype dt, nx_value v, size_t cap, const char *says, const char *what) {
  char b[NX_DTYPE_PP_MAX + 8];
  int r = nx_dtype_pp_value(dt, v, cap ? b : NULL, cap);
  const char *m = nx_error_message();
  CHECK(r == NX_EINVAL, "%s: returned %d, expected NX_EINVAL", what, r);
  CHECK(strncmp(m, "nx_dtype_pp_value", strlen("nx_dtype_pp_value")) == 0 && strstr(m, says) != NULL,
        "%s: message \"%s\" should name nx_dtype_pp_value and say \"%s\"", what, m, says);
}

static nx_value vf(double x) { nx_value v; memset(&v, 0, sizeof v); v.f = x; return v; }
static nx_value vi(int64_t x) { nx_value v; memset(&v, 0, sizeof v); v.i = x; return v; }
static nx_value vu(uint64_t x) { nx_value v; memset(&v, 0, sizeof v); v.u = x; return v; }
static nx_value vb(bool x) { nx_value v; memset(&v, 0, sizeof v); v.b = x; return v; }
static nx_value vc(double re, double im) { nx_value v; memset(&v, 0, sizeof v); v.c.re = re; v.c.im = im; return v; }

/* ---- The seed's and the report's examples ------------------------------------ */

static void examples(void) {
  long f0 = check_failures;
  /* The seed (pp_value's doc). */
  EXPECT(NX_FLOAT32, (double)0.1f, "0.1");
  EXPECT(NX_FLOAT16, 65504.0, "65500");
  EXPECT(NX_FLOAT8_E4M3FN, 448.0, "450");
  /* "0.01563": 0.015625 = 2^-6 in float16, whose interval (0.0156212...,
     0.0156326...) holds no 3-digit decimal. In float32 and float64 the same
     value has a narrower interval and prints itself. */
  EXPECT(NX_FLOAT16, 0.015625, "0.01563");
  EXPECT(NX_FLOAT32, 0.015625, "0.015625");
  EXPECT(NX_FLOAT64, 0.015625, "0.015625");
  /* "1.59e+29": the float64 and the float32 nearest 1.59e29. */
  EXPECT(NX_FLOAT64, 1.59e29, "1.59e+29");
  EXPECT(NX_FLOAT32, (double)1.59e29f, "1.59e+29");
  /* "6e-08": the least float16 subnormal, 2^-24. */
  EXPECT(NX_FLOAT16, 0x1p-24, "6e-08");
  EXPECT(NX_FLOAT16, -0x1p-24, "-6e-08");
  /* "0.5-2i". */
  expect_pp(NX_COMPLEX128, vc(0.5, -2), "0.5-2i", "complex128 0.5-2i");
  expect_pp(NX_COMPLEX64, vc(0.5, -2), "0.5-2i", "complex64 0.5-2i");
  /* Specials. */
  EXPECT(NX_FLOAT64, NAN, "nan");
  EXPECT(NX_FLOAT64, -NAN, "nan");
  EXPECT(NX_FLOAT64, INFINITY, "inf");
  EXPECT(NX_FLOAT64, -INFINITY, "-inf");
  EXPECT(NX_FLOAT64, 0.0, "0");
  EXPECT(NX_FLOAT64, -0.0, "-0");
  EXPECT(NX_FLOAT32, NAN, "nan");
  EXPECT(NX_FLOAT16, -INFINITY, "-inf");
  EXPECT(NX_BFLOAT16, INFINITY, "inf");
  EXPECT(NX_FLOAT8_E5M2, -INFINITY, "-inf");
  EXPECT(NX_FLOAT8_E4M3FN, NAN, "nan");
  EXPECT(NX_FLOAT4_E2M1FN, -0.0, "-0");

  /* dtypes.md section 3, by value. */
  EXPECT(NX_FLOAT8_E5M2, 57344.0, "60000");
  EXPECT(NX_BFLOAT16, nx_dtype_load_bits(NX_BFLOAT16, 0x7F7F), "3.39e+38");
  EXPECT(NX_FLOAT8_E4M3FN, 48.0, "50");
  EXPECT(NX_FLOAT8_E4M3FN, 96.0, "100");
  EXPECT(NX_FLOAT8_E4M3FN, 384.0, "400");
  EXPECT(NX_FLOAT8_E4M3FN, 3.25, "3.2");
  EXPECT(NX_FLOAT8_E5M2, 1.25, "1.2");
  EXPECT(NX_FLOAT8_E5M2, 0.09375, "0.09");
  EXPECT(NX_BFLOAT16, nx_dtype_load_bits(NX_BFLOAT16, 0x0001), "9e-41");
  EXPECT(NX_BFLOAT16, 962560.0, "963000");
  EXPECT(NX_BFLOAT16, 1474560.0, "1475000");
  EXPECT(NX_BFLOAT16, 14745600.0, "14750000");
  EXPECT(NX_BFLOAT16, 9992361673228288.0, "10000000000000000");
  EXPECT(NX_BFLOAT16, 10062730417405952.0, "1.006e+16");
  EXPECT(NX_FLOAT16, nx_dtype_load_bits(NX_FLOAT16, 0x068E), "0.0001");
  EXPECT(NX_BFLOAT16, nx_dtype_load_bits(NX_BFLOAT16, 0x38D1), "9.97e-05");

  /* float64 and float32 classics. */
  EXPECT(NX_FLOAT64, 0.1, "0.1");
  EXPECT(NX_FLOAT64, 0.3, "0.3");
  EXPECT(NX_FLOAT64, 0.1 + 0.2, "0.30000000000000004");
  EXPECT(NX_FLOAT64, 1.0 / 3, "0.3333333333333333");
  EXPECT(NX_FLOAT64, 5e-324, "5e-324");
  EXPECT(NX_FLOAT64, -5e-324, "-5e-324");
  EXPECT(NX_FLOAT64, 2.2250738585072014e-308, "2.2250738585072014e-308");
  EXPECT(NX_FLOAT64, 1.7976931348623157e308, "1.7976931348623157e+308");
  EXPECT(NX_FLOAT64, 1e23, "1e+23");
  EXPECT(NX_FLOAT64, 1e22, "1e+22");
  EXPECT(NX_FLOAT64, 1e16, "1e+16");
  EXPECT(NX_FLOAT64, 9999999999999998.0, "9999999999999998");
  EXPECT(NX_FLOAT64, 1e15, "1000000000000000");
  EXPECT(NX_FLOAT64, 1e-4, "0.0001");
  EXPECT(NX_FLOAT64, 9.999999999999999e-05, "9.999999999999999e-05");
  EXPECT(NX_FLOAT64, 123456789012345680.0, "1.2345678901234568e+17");
  EXPECT(NX_FLOAT64, 9007199254740993.0, "9007199254740992"); /* rounds to 2^53 */
  EXPECT(NX_FLOAT64, 1e100, "1e+100");
  EXPECT(NX_FLOAT64, 1e-100, "1e-100");
  EXPECT(NX_FLOAT64, -1.5, "-1.5");
  EXPECT(NX_FLOAT64, 100.0, "100");
  EXPECT(NX_FLOAT32, (double)3.4028234663852886e38f, "3.4028235e+38");
  EXPECT(NX_FLOAT32, 0x1p-149, "1e-45");
  EXPECT(NX_FLOAT32, 0x1p-126, "1.1754944e-38");
  EXPECT(NX_FLOAT32, (double)(1.0f / 3), "0.33333334");
  EXPECT(NX_FLOAT32, 16777216.0, "16777216");
  EXPECT(NX_FLOAT32, (double)1e10f, "10000000000");
  EXPECT(NX_FLOAT32, (double)1e-10f, "1e-10");
  EXPECT(NX_FLOAT16, 1.0, "1");
  EXPECT(NX_FLOAT16, 0.5, "0.5");
  EXPECT(NX_FLOAT4_E2M1FN, 6.0, "6");
  EXPECT(NX_FLOAT4_E2M1FN, -0.5, "-0.5");

  /* Complex numbers: the components of the component format, the sign
     between them. */
  expect_pp(NX_COMPLEX128, vc(1, 0), "1+0i", "complex128 1+0i");
  expect_pp(NX_COMPLEX128, vc(-0.0, -0.0), "-0-0i", "complex128 -0-0i");
  expect_pp(NX_COMPLEX128, vc(0.1, 0.2), "0.1+0.2i", "complex128 0.1+0.2i");
  expect_pp(NX_COMPLEX128, vc(-1e300, 5e-324), "-1e+300+5e-324i", "complex128 -1e300+5e-324i");
  expect_pp(NX_COMPLEX64, vc((double)0.1f, -(double)0.2f), "0.1-0.2i", "complex64 0.1-0.2i");
  /* A NaN is never negative and prints "nan" whatever its sign bit, so
     re+nani; infinities keep their sign. */
  expect_pp(NX_COMPLEX128, vc(0.5, -NAN), "0.5+nani", "complex128 0.5+(-nan)i");
  expect_pp(NX_COMPLEX128, vc(0.5, NAN), "0.5+nani", "complex128 0.5+nani");
  expect_pp(NX_COMPLEX64, vc(0.5, -NAN), "0.5+nani", "complex64 0.5+(-nan)i");
  expect_pp(NX_COMPLEX128, vc(-NAN, -NAN), "nan+nani", "complex128 -nan+(-nan)i");
  {
    uint64_t nb = 0xFFF0000000000001ull; /* a negative signalling NaN */
    double sn;
    memcpy(&sn, &nb, sizeof sn);
    expect_pp(NX_COMPLEX128, vc(1, sn), "1+nani", "complex128 1+(-snan)i");
  }
  expect_pp(NX_COMPLEX128, vc(0.5, -INFINITY), "0.5-infi", "complex128 0.5-infi");
  expect_pp(NX_COMPLEX64, vc(0.5, INFINITY), "0.5+infi", "complex64 0.5+infi");
  EXPECT(NX_COMPLEX128, 2.5, "2.5+0i");
  EXPECT(NX_COMPLEX64, (double)0.1f, "0.1+0i");

  /* Integers in decimal, unsigned ones unsigned; booleans. */
  expect_pp(NX_UINT64, vu(UINT64_MAX), "18446744073709551615", "uint64 max");
  expect_pp(NX_UINT64, vu(0), "0", "uint64 0");
  expect_pp(NX_INT64, vi(INT64_MIN), "-9223372036854775808", "int64 min");
  expect_pp(NX_INT64, vi(INT64_MAX), "9223372036854775807", "int64 max");
  expect_pp(NX_UINT32, vu(4294967295u), "4294967295", "uint32 max");
  expect_pp(NX_INT32, vi(-2147483647 - 1), "-2147483648", "int32 min");
  expect_pp(NX_INT16, vi(-32768), "-32768", "int16 min");
  expect_pp(NX_UINT16, vu(65535), "65535", "uint16 max");
  expect_pp(NX_INT8, vi(-128), "-128", "int8 min");
  expect_pp(NX_UINT8, vu(255), "255", "uint8 max");
  expect_pp(NX_INT4, vi(-8), "-8", "int4 min");
  expect_pp(NX_INT4, vi(7), "7", "int4 max");
  expect_pp(NX_UINT4, vu(15), "15", "uint4 max");
  EXPECT(NX_INT8, -128.0, "-128");
  EXPECT(NX_INT8, 127.0, "127");
  EXPECT(NX_INT64, -9223372036854775808.0, "-9223372036854775808");
  EXPECT(NX_UINT64, 18446744073709549568.0, "18446744073709549568"); /* the largest double below 2^64 */
  EXPECT(NX_UINT32, 4294967295.0, "4294967295");
  EXPECT(NX_INT32, -0.0, "0");
  EXPECT(NX_UINT4, 15.0, "15");
  EXPECT(NX_INT4, -8.0, "-8");
  expect_pp(NX_BOOL, vb(true), "true", "bool true");
  expect_pp(NX_BOOL, vb(false), "false", "bool false");
  expect_pp(NX_BIT, vb(true), "true", "bit true");
  expect_pp(NX_BIT, vb(false), "false", "bit false");
  EXPECT(NX_BOOL, 1.0, "true");
  EXPECT(NX_BOOL, 0.0, "false");
  EXPECT(NX_BIT, 1.0, "true");
  EXPECT(NX_BIT, -0.0, "false");
  printf("examples: %ld failures\n", check_failures - f0);
}

/* ---- Refusals ------------------------------------------------------------------ */

static void refusals(void) {
  long f0 = check_failures;
  expect_refused(NX_FLOAT32, 0.1, NX_DTYPE_PP_MAX, "0.1 is not a value of float32", "float32 0.1");
  expect_refused(NX_FLOAT16, 65505.0, NX_DTYPE_PP_MAX, "65505 is not a value of float16", "float16 65505");
  expect_refused(NX_FLOAT8_E4M3FN, 1000.0, NX_DTYPE_PP_MAX, "1000 is not a value of float8_e4m3fn", "e4m3fn 1000");
  /* a float that is not finite prints as "nan", "inf" or "-inf" in every
     format, those without one included: the seed refuses only a finite
     float the format lacks */
  EXPECT(NX_FLOAT8_E4M3FN, INFINITY, "inf");
  EXPECT(NX_FLOAT8_E4M3FN, -INFINITY, "-inf");
  EXPECT(NX_FLOAT4_E2M1FN, NAN, "nan");
  EXPECT(NX_FLOAT4_E2M1FN, -INFINITY, "-inf");
  expect_pp(NX_FLOAT8_E4M3FN, (nx_value){.f = INFINITY}, "inf", "pp e4m3fn inf");
  expect_pp(NX_FLOAT4_E2M1FN, (nx_value){.f = -NAN}, "nan", "pp e2m1 -nan");
  expect_refused(NX_FLOAT4_E2M1FN, 2.5, NX_DTYPE_PP_MAX, "2.5 is not a value of float4_e2m1fn", "e2m1 2.5");
  expect_refused(NX_BFLOAT16, 0x1p-134, NX_DTYPE_PP_MAX, "is not a value of bfloat16", "bfloat16 2^-134");
  expect_refused(NX_COMPLEX64, 0.1, NX_DTYPE_PP_MAX, "0.1 is not a value of complex64", "complex64 0.1");
  expect_refused(NX_INT8, 2.5, NX_DTYPE_PP_MAX, "2.5 is not a value of int8", "int8 2.5");
  expect_refused(NX_INT8, 128.0, NX_DTYPE_PP_MAX, "128 is not a value of int8", "int8 128");
  expect_refused(NX_UINT8, -1.0, NX_DTYPE_PP_MAX, "-1 is not a value of uint8", "uint8 -1");
  expect_refused(NX_UINT64, 18446744073709551616.0, NX_DTYPE_PP_MAX, "is not a value of uint64", "uint64 2^64");
  expect_refused(NX_INT64, 9223372036854775808.0, NX_DTYPE_PP_MAX, "is not a value of int64", "int64 2^63");
  expect_refused(NX_INT32, NAN, NX_DTYPE_PP_MAX, "nan is not a value of int32", "int32 nan");
  expect_refused(NX_BOOL, 2.0, NX_DTYPE_PP_MAX, "2 is not a value of bool", "bool 2");
  expect_refused(NX_BIT, 0.5, NX_DTYPE_PP_MAX, "0.5 is not a value of bit", "bit 0.5");
  {
    char b[NX_DTYPE_PP_MAX];
    CHECK(nx_dtype_format_value(NX_DTYPE_COUNT, 1.0, b, sizeof b) == -1, "an unknown code is refused");
    CHECK(strstr(nx_error_message(), "nx_dtype_format_value") != NULL, "unknown code: message \"%s\"",
          nx_error_message());
    CHECK(nx_dtype_format_value(-1, 1.0, b, sizeof b) == -1, "code -1 is refused");
  }
  /* Buffers: the text and its NUL must fit; one byte short is refused. */
  {
    char b[NX_DTYPE_PP_MAX];
    CHECK(nx_dtype_format_value(NX_FLOAT64, 0.1, b, 4) == 3 && strcmp(b, "0.1") == 0, "cap 4 holds \"0.1\"");
    expect_refused(NX_FLOAT64, 0.1, 3, "nx_dtype_format_value", "float64 0.1, cap 3");
    expect_refused(NX_FLOAT64, 0.1, 1, "bytes", "float64 0.1, cap 1");
    expect_refused(NX_FLOAT64, 0.1, 0, "bytes", "float64 0.1, cap 0");
    expect_refused(NX_FLOAT64, -1.7976931348623157e308, 23, "bytes", "float64 -max, cap 23");
    CHECK(nx_dtype_format_value(NX_FLOAT64, -1.7976931348623157e308, b, 25) == 24, "cap 25 holds -max");
    expect_refused(NX_BOOL, 0.0, 5, "bytes", "bool false, cap 5");
    CHECK(nx_dtype_format_value(NX_BOOL, 0.0, b, 6) == 5 && strcmp(b, "false") == 0, "cap 6 holds \"false\"");
    expect_refused(NX_UINT64, 18446744073709549568.0, 20, "bytes", "uint64, cap 20");
    expect_refused(NX_COMPLEX128, 0.5, 5, "bytes", "complex128 0.5+0i, cap 5");
    CHECK(nx_dtype_format_value(NX_COMPLEX128, 0.5, b, 7) == 6 && strcmp(b, "0.5+0i") == 0, "cap 7 holds 0.5+0i");
    expect_pp_refused(NX_UINT64, vu(UINT64_MAX), 20, "bytes", "pp_value uint64 max, cap 20");
    expect_pp_refused(NX_COMPLEX128, vc(0.5, -2), 6, "bytes", "pp_value 0.5-2i, cap 6");
    CHECK(nx_dtype_pp_value(NX_COMPLEX128, vc(0.5, -2), b, 7) == 6 && strcmp(b, "0.5-2i") == 0, "cap 7 holds 0.5-2i");
  }
  /* nx_dtype_pp_value's own refusals. */
  expect_pp_refused(NX_FLOAT32, vf(0.1), NX_DTYPE_PP_MAX, "0.1 is not a value of float32", "pp_value float32 0.1");
  expect_pp_refused(NX_COMPLEX64, vc(0.5, 0.1), NX_DTYPE_PP_MAX, "0.1 is not a value of complex64",
                    "pp_value complex64 0.5+0.1i");
  expect_pp_refused(NX_INT8, vi(200), NX_DTYPE_PP_MAX, "200 is not a value of int8", "pp_value int8 200");
  expect_pp_refused(NX_INT4, vi(-9), NX_DTYPE_PP_MAX, "-9 is not a value of int4", "pp_value int4 -9");
  expect_pp_refused(NX_UINT4, vu(16), NX_DTYPE_PP_MAX, "16 is not a value of uint4", "pp_value uint4 16");
  expect_pp_refused(NX_FLOAT64, vf(1.0), 0, "NULL", "pp_value NULL buffer");
  printf("refusals: %ld failures\n", check_failures - f0);
}

/* Under denormals-are-zero (MXCSR's DAZ and FTZ bits), a subnormal double is
   still no integer or boolean value: the checks read bits (before: a
   comparison of doubles took it for 0, printed "0" and "false"). */
static void under_daz(void) {
#if defined(__x86_64__)
  unsigned old;
  __asm__ volatile("stmxcsr %0" : "=m"(old));
  unsigned v = old | 0x8040u;
  __asm__ volatile("ldmxcsr %0" : : "m"(v));
  volatile double tiny = 5e-324, small = 1e-310, mzero = -0.0;
  char b[NX_DTYPE_PP_MAX];
  int rb = nx_dtype_format_value(NX_BOOL, tiny, b, sizeof b), ri = nx_dtype_format_value(NX_INT8, small, b, sizeof b);
  int ru = nx_dtype_format_value(NX_UINT64, tiny, b, sizeof b);
  int rz = nx_dtype_format_value(NX_INT8, mzero, b, sizeof b), rf = nx_dtype_format_value(NX_BOOL, mzero, b, sizeof b);
  __asm__ volatile("ldmxcsr %0" : : "m"(old));
  CHECK(rb == -1 && ri == -1 && ru == -1, "under DAZ: bool 5e-324 %d, int8 1e-310 %d, uint64 5e-324 %d (want -1)", rb,
        ri, ru);
  CHECK(rz == 1 && rf == 5, "under DAZ: -0 as int8 %d, as bool %d (want \"0\" and \"false\")", rz, rf);
#endif
}

int main(void) {
  under_daz();
  check_table(NX_FLOAT8_E4M3FN, "float8_e4m3fn", E4M3FN_TABLE, 256);
  check_table(NX_FLOAT8_E5M2, "float8_e5m2", E5M2_TABLE, 256);
  check_table(NX_FLOAT4_E2M1FN, "float4_e2m1fn", E2M1_TABLE, 16);
  check_selected(NX_FLOAT16, "float16", F16_SELECTED, sizeof F16_SELECTED / sizeof F16_SELECTED[0]);
  check_selected(NX_BFLOAT16, "bfloat16", BF16_SELECTED, sizeof BF16_SELECTED / sizeof BF16_SELECTED[0]);
  examples();
  refusals();
  return check_done();
}
