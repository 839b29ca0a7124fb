// The CUDA tools' one error check (tools/*.cu, each built alone with nvcc): CUDA_OK (call) runs a
// CUDA runtime call and, when it fails, names the file, the line, the call and CUDA's message on
// stderr and exits with 1. The harness under src/algos/cuda has its own (twin.h, exit 2), as its
// exit statuses mean more there.
#ifndef MDL_TOOLS_CUDA_CHECK_H
#define MDL_TOOLS_CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CUDA_OK(call)                                                                    \
  do                                                                                     \
    {                                                                                    \
      cudaError_t e_ = (call);                                                           \
      if (e_ != cudaSuccess)                                                             \
        {                                                                                \
          fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                 \
                   cudaGetErrorString (e_));                                             \
          exit (1);                                                                      \
        }                                                                                \
    }                                                                                    \
  while (0)

#endif
