// rnn_batch.cu - the CUDA sample's kernel: a batch of variable-length sequences, one per
// CUDA thread, run through a small gated recurrent cell whose weights every thread shares.
//
// Thread i reads its sequence x_i (len[i] steps of D inputs each, stored time-major so that
// neighbouring threads read neighbouring addresses), runs
//     c_t = tanh(W h_{t-1} + U x_t + b)                candidate state
//     h_t = (1 - g) h_{t-1} + g c_t,  g = sigmoid(a)   leaky update (the gate a is a weight too)
// from h_0 = 0, projects its last state, y_i = v . h_T, and adds its squared error
// (y_i - target_i)^2 into *total with atomicAdd.
//
// CGP_GRAD(W, U, b, v, a, total) asks cgp-ad for rnn_batch_grad, a __global__ kernel launched
// with the same grid and block as rnn_batch, that adds d total / d{W, U, b, v, a} into d_W,
// d_U, d_b, d_v, d_a (zeroed by the caller) for the seed the caller puts in d_total[0].
// The weights' adjoints receive a contribution from every thread: the generated code sums
// them per warp and adds the sum atomically. Each thread tapes what its reverse sweep needs
// (about len[i] x (H + a few) doubles) in the device heap.
#include <cgp/cgp.h>

#include <cmath>

constexpr int H = 8; // hidden units
constexpr int D = 2; // inputs per step

__device__ double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

// One step of the cell for hidden unit r: the unit's new state from the previous state h
// (all H units) and this step's input, the D values from x[at].
__device__ double cell(const double *W, const double *U, const double *b, double g,
                       const double *h, const double *x, int at, int r) {
  double z = b[r];
  for (int c = 0; c < H; ++c)
    z += W[r * H + c] * h[c];
  for (int d = 0; d < D; ++d)
    z += U[r * D + d] * x[at + d];
  return (1.0 - g) * h[r] + g * tanh(z);
}

// x: the inputs, x[(t * n + i) * D + d] for step t of sequence i (steps past len[i] unread);
// len: the sequences' lengths; target: one value per sequence; *total: the summed squared
// error is added into it (the caller zeroes it).
CGP_GRAD(W, U, b, v, a, total)
__global__ void rnn_batch(const double *W, const double *U, const double *b, const double *v,
                          const double *a, const double *x, const int *len,
                          const double *target, double *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double g = sigmoid(a[0]);
  double h[H];
  for (int r = 0; r < H; ++r)
    h[r] = 0.0;
  for (int t = 0; t < len[i]; ++t) {
    double next[H];
    for (int r = 0; r < H; ++r)
      next[r] = cell(W, U, b, g, h, x, (t * n + i) * D, r);
    for (int r = 0; r < H; ++r)
      h[r] = next[r];
  }
  double y = 0.0;
  for (int r = 0; r < H; ++r)
    y += v[r] * h[r];
  double e = y - target[i];
  atomicAdd(&total[0], e * e);
}
