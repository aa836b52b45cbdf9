/*
 * posenc fields: sinusoids beyond sequences. Diffusion timestep embeddings
 * (timestep.c), sin-cos tables over positions and 2-D patch grids
 * (patch_grid.c), NeRF and random Fourier features (fourier.c).
 *
 * The third wasm module's interface (its export list is c/exports/fields.txt).
 * Status codes, limits and dtypes come from posenc.h.
 * docs/fields.md names the library each convention follows. Every angle must
 * stay within +-PE_MAX_ANGLE (else PE_ERR_POSITION): past it a double angle
 * has no meaningful sine left.
 */
#ifndef POSENC_FIELDS_H
#define POSENC_FIELDS_H

#include "posenc.h"
#define PE_MAX_ANGLE 4398046511104.0 /* 2^42 */

/* ---- this module's own limits --------------------------------------------------------
 * Far above any model's (ViT grids are tens of patches a side, NeRF uses 10
 * levels, Tancik et al. 256 features), so that a mistyped size is refused
 * before it asks for seconds of work or the whole byte limit. */
#define PE_MAX_GRID 65536          /* 2^16: pe_sincos_2d's gh and gw, each */
#define PE_MAX_EXTRA_TOKENS 65536  /* 2^16: pe_sincos_2d's extra (class token) rows */
#define PE_MAX_FEATURES 65536      /* 2^16: the m rows pe_fourier_gaussian draws */
#define PE_MAX_FOURIER_LEVELS 1024 /* pe_fourier_features' levels */
#define PE_MAX_FOURIER_LOG2 64     /* |max_log2| of pe_fourier_features: bands up to 2^64 */

/* ---- diffusion timesteps (timestep.c) --------------------------------------------- */
/* n x dim, h = floor(dim/2), w_i = exp(-ln(max_period) i / (h - shift)), i < h:
 * row r = [sin(scale t_r w) | cos(scale t_r w)], or [cos | sin] when cos_first != 0,
 * and an odd dim ends in a zero column (Hugging Face diffusers get_timestep_embedding).
 * max_period >= 1 and, when h >= 1, h - shift > 0; |scale t_r| <= PE_MAX_POSITION. */
PE_API int pe_timestep_embedding(void *out, int dtype, const double *t, int32_t n, int32_t dim, int cos_first,
                                 double shift, double scale, double max_period);

/* ---- sin-cos tables over arbitrary positions and patch grids (patch_grid.c) ------- */
/* Frequency rules of the 2-D tables, over the k = dim/2 frequencies of one axis:
 * PE_GRID_MAE      w_i = base^(-i/k)        (MAE, DiT, diffusers get_1d_sincos_pos_embed)
 * PE_GRID_SPACED   w_i = base^(-i/(k - 1))  (big_vision posemb_sincos_2d, simple ViT; k >= 2) */
enum { PE_GRID_MAE = 0, PE_GRID_SPACED = 1 };
/* n x dim (dim even): row r = [sin(pos_r w) | cos(pos_r w)], dim/2 frequencies. */
PE_API int pe_sincos_1d(void *out, int dtype, const double *pos, int32_t n, int32_t dim, int rule,
                        double base);
/* (extra + gh gw) x dim (dim a multiple of 4; gh, gw <= PE_MAX_GRID, 0 <= extra <=
 * PE_MAX_EXTRA_TOKENS): extra zero rows (class tokens), then
 * patch (r, c) in row extra + r gw + c = [1-D code of pos_w[c] | 1-D code of pos_h[r]],
 * each of width dim/2; h_first != 0 swaps the two halves. MAE's meshgrid(grid_w,
 * grid_h) puts the column (w) coordinate first. */
PE_API int pe_sincos_2d(void *out, int dtype, const double *pos_h, int32_t gh, const double *pos_w,
                        int32_t gw, int32_t dim, int32_t extra, int h_first, int rule, double base);

/* ---- NeRF and random Fourier features (fourier.c) ----------------------------------- */
/* Column order of the NeRF encoding of a point with d coordinates. */
enum {
    PE_FOURIER_BY_FREQUENCY =
        0, /* [sin(f_0 x) (d) | cos(f_0 x) (d) | sin(f_1 x) ...] (bmild/nerf, nerf-pytorch) */
    PE_FOURIER_BY_COORDINATE =
        1 /* per coordinate p: sin(f_0 p), cos(f_0 p), sin(f_1 p), ... (gamma(p) applied to each) */
};
/* n x cols, cols = (include_input ? d : 0) + 2 levels d; the input copy comes first.
 * f_k = 2^(max_log2 k / (levels - 1)) (log_sampling) or 1 + k (2^max_log2 - 1) / (levels - 1),
 * f_0 = 1 when levels is 1; times pi when use_pi != 0.
 * levels <= PE_MAX_FOURIER_LEVELS, |max_log2| <= PE_MAX_FOURIER_LOG2. */
PE_API int pe_fourier_features(void *out, int dtype, const double *x, int32_t n, int32_t d, int32_t levels,
                               double max_log2, int log_sampling, int include_input, int use_pi, int layout);
/* n x 2m random Fourier features (Tancik et al. 2020): v = 2 pi B x_r (B is m x d),
 * 2 pi max_k sum_j |B_kj| max |x| <= PE_MAX_ANGLE,
 * row r = [sin v | cos v]. */
PE_API int pe_fourier_random(void *out, int dtype, const double *x, int32_t n, int32_t d, const double *b,
                             int32_t m);
/* m x d matrix B with entries ~ N(0, sigma^2): the learned table's seeded stream
 * (pe_learned_table of posenc_variants.h, normal, scale sigma), 0 <= seed < 2^53,
 * m <= PE_MAX_FEATURES, 0 <= sigma <= PE_LEARNED_MAX_SCALE (posenc_variants.h). */
PE_API int pe_fourier_gaussian(double *b, int32_t m, int32_t d, double seed, double sigma);
/* *out = max_k sum_j |B_kj| of the B pe_fourier_gaussian draws with these arguments (pe_fourier_random's
 * bound), without making B: nothing is allocated, so a B whose bound refuses the call costs no memory. */
PE_API int pe_fourier_gaussian_bound(double *out, int32_t m, int32_t d, double seed, double sigma);

#endif
