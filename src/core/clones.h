/* Private to the library: MDL_CLONES before a function whose loops are written with GCC's vector
 * extensions in vectors of 32 bytes. GCC (and clang) then build it twice, for the x86-64 baseline
 * (SSE2: each operation as two of 16 bytes) and for AVX2 (one), and the loader picks one by the
 * CPU (an ifunc: the call goes through a pointer, so such a function is never inlined; put it
 * around a loop over a batch, not a record). Elsewhere it is nothing, and so is it in a build
 * with -DMDL_CLONES= (the baseline alone, to test it). Used by the SIMT layer and its sorts' lane
 * loops, the count engine and the binary trace reader. */
#ifndef MDL_CORE_CLONES_H
#define MDL_CORE_CLONES_H

#ifndef MDL_CLONES
#if defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define MDL_CLONES __attribute__ ((target_clones ("avx2", "default")))
#endif
#endif
#endif
#ifndef MDL_CLONES
#define MDL_CLONES
#endif

#endif
