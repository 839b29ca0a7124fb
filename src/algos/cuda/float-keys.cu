/* keys=f32 of the seed sorts' CUDA twins, as in their SIMT twins (src/algos/simt/float-keys.c):
 * floats are sorted as the unsigned words of mdl_keys_f32_order (src/algos/keys.h), so that each
 * sort keeps its one unsigned kernel. A launch maps the input into words (into in2, so that the
 * input stays as drawn for the next timed launch) and maps the sorted words back to float bits
 * in the output; the check is the bit-exact one in totalOrder. */
#include "twin.h"

/* The threads of a block of the map (the SIMT twin's). */
#define ORDER_BLOCK 256

__global__ void
keys_order (const unsigned *src, unsigned *dst, unsigned n, bool back)
{
  unsigned i = blockIdx.x * ORDER_BLOCK + threadIdx.x;
  if (i < n)
    dst[i] = back ? mdl_keys_f32_unorder (src[i]) : mdl_keys_f32_order (src[i]);
}

bool
mdl_cuda_float_keys (const Case &c)
{
  return c.text ("keys", "u32") == "f32";
}

void
mdl_cuda_keys_order (const unsigned *src, unsigned *dst, size_t n, bool back)
{
  if (n == 0)
    return;
  unsigned blocks = (unsigned) ((n + ORDER_BLOCK - 1) / ORDER_BLOCK);
  keys_order<<<blocks, ORDER_BLOCK>>> (src, dst, (unsigned) n, back);
  CUDA_OK (cudaGetLastError ());
}

void
mdl_cuda_keys_scratch (const Case &c, Buffers &b)
{
  if (mdl_cuda_float_keys (c))
    b.in2.assign (b.in.size (), 0);
}

const unsigned *
mdl_cuda_keys_in (const Case &c, const Buffers &b, int *launches)
{
  if (!mdl_cuda_float_keys (c))
    return (const unsigned *) b.d_in;
  mdl_cuda_keys_order ((const unsigned *) b.d_in, (unsigned *) b.d_in2, b.in.size () / 4, false);
  ++*launches;
  return (const unsigned *) b.d_in2;
}

void
mdl_cuda_keys_out (const Case &c, unsigned *out, size_t n, int *launches)
{
  if (!mdl_cuda_float_keys (c) || n == 0)
    return;
  mdl_cuda_keys_order (out, out, n, true);
  ++*launches;
}
