/* Private to the SIMT layer and its algorithms: MDL_SIMT_CLONES before a function whose lane
 * loops are worth four 64-bit lanes a step. GCC (and clang) then build it twice, for the x86-64
 * baseline (SSE2: two lanes a step) and for AVX2, and the loader picks one by the CPU (an ifunc:
 * the call goes through a pointer, so such a function is never inlined). Elsewhere it is
 * nothing, and so is it in a build with -DMDL_SIMT_CLONES= (the baseline alone, to check it). */
#ifndef MDL_SIMT_CLONES_H
#define MDL_SIMT_CLONES_H

#ifndef MDL_SIMT_CLONES
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define MDL_SIMT_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#endif
#ifndef MDL_SIMT_CLONES
#define MDL_SIMT_CLONES
#endif

#endif
