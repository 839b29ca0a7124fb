/* The one check of a CUDA runtime call, for the harness's twins (twin.h) and the CUDA tools under
 * tools/ (each built alone with nvcc): CUDA_OK (call) runs the call and, when it fails, names the
 * file, the line, the call and CUDA's message on stderr and exits with status 2. No GLib: the GPU
 * machine has none. */
#ifndef MDL_CUDA_CHECK_H
#define MDL_CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CUDA_OK(call)                                                                              \
  do                                                                                               \
    {                                                                                              \
      cudaError_t err_ = (call);                                                                   \
      if (err_ != cudaSuccess)                                                                     \
        {                                                                                          \
          fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                           \
                   cudaGetErrorString (err_));                                                     \
          exit (2);                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

#endif
