// CUB DeviceRadixSort::SortKeys of n 32-bit keys (uniform in [0,2^31), the same splitmix stream
// as keys.h's uniform), timed with CUDA events, median of reps; prints n, us, Gkeys/s.
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
static unsigned long long mix(unsigned long long z){z=(z^(z>>30))*0xbf58476d1ce4e5b9ULL;z=(z^(z>>27))*0x94d049bb133111ebULL;return z^(z>>31);}
int main(int argc,char**argv){
  for(int a=1;a<argc;a++){
    size_t n=1ull<<atoi(argv[a]);
    std::vector<unsigned> h(n);
    for(size_t k=0;k<n;k++) h[k]=(unsigned)(mix(1+(k+1)*0x9e3779b97f4a7c15ULL)>>33);
    unsigned *in,*out; cudaMalloc(&in,4*n); cudaMalloc(&out,4*n);
    cudaMemcpy(in,h.data(),4*n,cudaMemcpyHostToDevice);
    size_t tb=0; cub::DeviceRadixSort::SortKeys(nullptr,tb,in,out,(int)n);
    void*tmp; cudaMalloc(&tmp,tb);
    cudaEvent_t s,e; cudaEventCreate(&s); cudaEventCreate(&e);
    std::vector<float> ms;
    for(int r=0;r<13;r++){cudaEventRecord(s);cub::DeviceRadixSort::SortKeys(tmp,tb,in,out,(int)n);cudaEventRecord(e);cudaEventSynchronize(e);float t;cudaEventElapsedTime(&t,s,e);if(r>=3)ms.push_back(t);}
    std::sort(ms.begin(),ms.end());
    std::vector<unsigned> o(n); cudaMemcpy(o.data(),out,4*n,cudaMemcpyDeviceToHost);
    bool ok=std::is_sorted(o.begin(),o.end());
    printf("cub-radix-sort n=2^%d us=%.1f gkeys_per_s=%.3f sorted=%d\n",atoi(argv[a]),1000*ms[ms.size()/2],n/(ms[ms.size()/2]*1e6),ok);
    cudaFree(in);cudaFree(out);cudaFree(tmp);
  }
}
