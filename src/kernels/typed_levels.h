/* SPDX-License-Identifier: Apache-2.0 */
/* Includes the loop file NX__LOOPS once per instruction level (typed.h):
   base, then AVX2 and AVX-512 where the compiler targets x86-64, each
   copy's names suffixed by its level (NX__SUF) and compiled for it
   (NX__TGT). Included by the file that defines NX__LOOPS. */
#define NX__SUF _base
#define NX__TGT
#include NX__LOOPS
#undef NX__SUF
#undef NX__TGT
#if defined(NX__TYPED_X86)
#define NX__SUF _avx2
#define NX__TGT NX__TGT_AVX2
#include NX__LOOPS
#undef NX__SUF
#undef NX__TGT
#define NX__SUF _512
#define NX__TGT NX__TGT_512
#include NX__LOOPS
#undef NX__SUF
#undef NX__TGT
#endif
#undef NX__LOOPS
