#include <cgp/cgp.h>

__device__ double cell(double w, double u, double h, double x) { return tanh(w * h + u * x); }

CGP_GRAD(x, w, out)
__global__ void rnn(const double *x, const int *len, const double *w, double *out, int n, int T) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double h = 0;
  for (int t = 0; t < len[i]; ++t)
    h = cell(w[0], w[1], h, x[i * T + t]);
  out[i] = h;
  atomicAdd(&out[n], h); // the batch's total, besides each sequence's result
}
