/* Forward and hand-written backward pass of the lab model (see lab.h).
 * Rows are batch x len positions, row r = b len + t; every matrix is row-major. */
#include <string.h>
#include "lab.h"
#include "../mathlib.h"

#define LN_EPS 1e-5

static void add_bias(lab_real *x, const lab_real *b, int32_t n, int32_t m) {
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < m; j++) x[(size_t)i * m + j] += b[j];
}

static void sum_rows(lab_real *gb, const lab_real *g, int32_t n, int32_t m) {
    for (int32_t i = 0; i < n; i++)
        for (int32_t j = 0; j < m; j++) gb[j] += g[(size_t)i * m + j];
}

static void norm_forward(lab_real *h, lab_real *xhat, double *rstd, const lab_real *x, const lab_real *g,
                         const lab_real *b, int32_t n, int32_t d) {
    for (int32_t i = 0; i < n; i++) {
        const lab_real *xi = x + (size_t)i * d;
        double mean = 0, var = 0;
        for (int32_t j = 0; j < d; j++) mean += xi[j];
        mean /= d;
        for (int32_t j = 0; j < d; j++) var += (xi[j] - mean) * (xi[j] - mean);
        double r = 1 / __builtin_sqrt(var / d + LN_EPS);
        rstd[i] = r;
        for (int32_t j = 0; j < d; j++) {
            lab_real xh = (lab_real)((xi[j] - mean) * r);
            xhat[(size_t)i * d + j] = xh;
            h[(size_t)i * d + j] = xh * g[j] + b[j];
        }
    }
}

/* dx += the gradient through LayerNorm of dh; gg, gb += the gain's and bias's. */
static void norm_backward(lab_real *dx, lab_real *gg, lab_real *gb, const lab_real *dh, const lab_real *xhat,
                          const double *rstd, const lab_real *g, int32_t n, int32_t d) {
    for (int32_t i = 0; i < n; i++) {
        const lab_real *dhi = dh + (size_t)i * d, *xh = xhat + (size_t)i * d;
        double s1 = 0, s2 = 0;
        for (int32_t j = 0; j < d; j++) {
            double dxh = (double)dhi[j] * g[j];
            s1 += dxh;
            s2 += dxh * xh[j];
            gg[j] += dhi[j] * xh[j];
            gb[j] += dhi[j];
        }
        s1 /= d;
        s2 /= d;
        for (int32_t j = 0; j < d; j++)
            dx[(size_t)i * d + j] += (lab_real)(rstd[i] * ((double)dhi[j] * g[j] - s1 - xh[j] * s2));
    }
}

/* Rotates each head's pairs (2i, 2i+1) of row r by its position's angles; inverse != 0
 * rotates back, which is the transpose: the backward pass of the rotation. */
static void rope(const lab_model *m, lab_real *x, int32_t rows, int inverse) {
    int32_t half = m->hd / 2;
    for (int32_t r = 0; r < rows; r++) {
        int32_t t = m->posn[r];
        const lab_real *c = m->rope_cos + (size_t)t * half, *s = m->rope_sin + (size_t)t * half;
        for (int32_t h = 0; h < m->heads; h++) {
            lab_real *v = x + (size_t)r * m->d + (size_t)h * m->hd;
            for (int32_t i = 0; i < half; i++) {
                lab_real a = v[2 * i], b = v[2 * i + 1], sn = inverse ? -s[i] : s[i];
                v[2 * i] = a * c[i] - b * sn;
                v[2 * i + 1] = a * sn + b * c[i];
            }
        }
    }
}

/* ALiBi's score bias of head h for a query at position pi and a key at pj (0 for the other encodings;
 * T5's learned bias is per block and added by the caller). */
static lab_real score_bias(const lab_model *m, int32_t h, int32_t pi, int32_t pj) {
    int enc = m->cfg[LAB_C_ENCODING];
    if (enc == PE_LAB_ALIBI) {
        int32_t dist = pi > pj ? pi - pj : pj - pi; /* causal keys have pj <= pi: -m (pi - pj) */
        return (lab_real)(-m->alibi_slopes[h] * dist);
    }
    return 0;
}

static void attention_forward(const lab_model *m, const lab_block *blk, lab_acts *a, int32_t batch,
                              int32_t len) {
    int32_t d = m->d, dh = m->hd, H = m->heads, causal = m->cfg[LAB_C_CAUSAL];
    double scale = 1 / __builtin_sqrt((double)dh);
    const lab_real *t5 = blk->t5 >= 0 ? m->params + blk->t5 : NULL;
    int32_t nb = m->cfg[LAB_C_BUCKETS];
    for (int32_t b = 0; b < batch; b++)
        for (int32_t h = 0; h < H; h++) {
            lab_real *P = a->p + ((size_t)b * H + h) * len * len;
            const int32_t *pos = m->posn + (size_t)b * len;
            for (int32_t i = 0; i < len; i++) {
                const lab_real *qi = a->q + ((size_t)b * len + i) * d + h * dh;
                lab_real *row = P + (size_t)i * len;
                int32_t end = causal ? i + 1 : len;
                double mx = -1e300, sum = 0;
                for (int32_t j = 0; j < end; j++) {
                    const lab_real *kj = a->k + ((size_t)b * len + j) * d + h * dh;
                    lab_real s = 0;
                    for (int32_t c = 0; c < dh; c++) s += qi[c] * kj[c];
                    s = (lab_real)(s * scale) + score_bias(m, h, pos[i], pos[j]);
                    if (t5) s += t5[(size_t)h * nb + m->t5_bucket[pos[j] - pos[i] + m->npos - 1]];
                    row[j] = s;
                    if (s > mx) mx = s;
                }
                for (int32_t j = 0; j < end; j++) {
                    double e = pe_exp(row[j] - mx);
                    row[j] = (lab_real)e;
                    sum += e;
                }
                for (int32_t j = 0; j < end; j++) row[j] = (lab_real)(row[j] / sum);
                for (int32_t j = end; j < len; j++) row[j] = 0;
                lab_real *ci = a->ctx + ((size_t)b * len + i) * d + h * dh;
                memset(ci, 0, sizeof(lab_real) * dh);
                for (int32_t j = 0; j < end; j++) {
                    const lab_real *vj = a->v + ((size_t)b * len + j) * d + h * dh;
                    for (int32_t c = 0; c < dh; c++) ci[c] += row[j] * vj[c];
                }
            }
        }
}

/* dq, dk, dv (zeroed here) from dctx; the T5 table's gradient into grads. */
static void attention_backward(lab_model *m, const lab_block *blk, const lab_acts *a, int32_t batch,
                               int32_t len) {
    int32_t d = m->d, dh = m->hd, H = m->heads, causal = m->cfg[LAB_C_CAUSAL];
    lab_real scale = (lab_real)(1 / __builtin_sqrt((double)dh));
    lab_real *gt5 = blk->t5 >= 0 ? m->grads + blk->t5 : NULL;
    int32_t nb = m->cfg[LAB_C_BUCKETS];
    size_t nd = (size_t)batch * len * d;
    memset(m->dq, 0, sizeof(lab_real) * nd);
    memset(m->dk, 0, sizeof(lab_real) * nd);
    memset(m->dv, 0, sizeof(lab_real) * nd);
    for (int32_t b = 0; b < batch; b++)
        for (int32_t h = 0; h < H; h++) {
            const lab_real *P = a->p + ((size_t)b * H + h) * len * len;
            const int32_t *pos = m->posn + (size_t)b * len;
            for (int32_t i = 0; i < len; i++) {
                size_t ri = ((size_t)b * len + i) * d + h * dh;
                const lab_real *gi = m->dctx + ri, *pi = P + (size_t)i * len;
                lab_real *dp = m->dp;
                int32_t end = causal ? i + 1 : len;
                double dot = 0;
                for (int32_t j = 0; j < end; j++) {
                    size_t rj = ((size_t)b * len + j) * d + h * dh;
                    const lab_real *vj = a->v + rj;
                    lab_real *dvj = m->dv + rj;
                    lab_real s = 0;
                    for (int32_t c = 0; c < dh; c++) {
                        s += gi[c] * vj[c];
                        dvj[c] += pi[j] * gi[c];
                    }
                    dp[j] = s;
                    dot += (double)pi[j] * s;
                }
                for (int32_t j = 0; j < end; j++) {
                    lab_real ds = (lab_real)(pi[j] * (dp[j] - dot));
                    if (gt5) gt5[(size_t)h * nb + m->t5_bucket[pos[j] - pos[i] + m->npos - 1]] += ds;
                    ds *= scale;
                    size_t rj = ((size_t)b * len + j) * d + h * dh;
                    const lab_real *kj = a->k + rj, *qi = a->q + ri;
                    lab_real *dqi = m->dq + ri, *dkj = m->dk + rj;
                    for (int32_t c = 0; c < dh; c++) {
                        dqi[c] += ds * kj[c];
                        dkj[c] += ds * qi[c];
                    }
                }
            }
        }
}

static void embed(lab_model *m, const int32_t *tokens, int32_t rows, lab_real *x) {
    int32_t d = m->d, enc = m->cfg[LAB_C_ENCODING];
    for (int32_t r = 0; r < rows; r++) {
        int32_t t = m->posn[r];
        const lab_real *e = m->params + m->tok + (size_t)tokens[r] * d;
        const lab_real *p = enc == PE_LAB_SINUSOIDAL ? m->sin_table + (size_t)t * d
                            : enc == PE_LAB_LEARNED  ? m->params + m->pos + (size_t)t * d
                                                     : NULL;
        for (int32_t c = 0; c < d; c++) x[(size_t)r * d + c] = p ? e[c] + p[c] : e[c];
    }
}

static void block_forward(lab_model *m, int32_t l, int32_t batch, int32_t len, lab_real *out) {
    const lab_block *blk = &m->blocks[l];
    lab_acts *a = &m->acts[l];
    int32_t n = batch * len, d = m->d;
    const lab_real *P = m->params;
    norm_forward(a->h1, a->xhat1, a->rstd1, a->x, P + blk->g1, P + blk->b1, n, d);
    lab_mm_nn(a->q, a->h1, P + blk->wq, n, d, d, 0);
    lab_mm_nn(a->k, a->h1, P + blk->wk, n, d, d, 0);
    lab_mm_nn(a->v, a->h1, P + blk->wv, n, d, d, 0);
    if (m->cfg[LAB_C_ENCODING] == PE_LAB_ROPE) {
        rope(m, a->q, n, 0);
        rope(m, a->k, n, 0);
    }
    attention_forward(m, blk, a, batch, len);
    memcpy(a->xmid, a->x, sizeof(lab_real) * n * d);
    lab_mm_nn(a->xmid, a->ctx, P + blk->wo, n, d, d, 1);
    if (!m->mlp) {
        memcpy(out, a->xmid, sizeof(lab_real) * n * d);
        return;
    }
    norm_forward(a->h2, a->xhat2, a->rstd2, a->xmid, P + blk->g2, P + blk->b2, n, d);
    lab_mm_nn(a->u, a->h2, P + blk->w1, n, d, m->mlp, 0);
    add_bias(a->u, P + blk->c1, n, m->mlp);
    for (size_t i = 0; i < (size_t)n * m->mlp; i++) a->a[i] = a->u[i] > 0 ? a->u[i] : 0;
    memcpy(out, a->xmid, sizeof(lab_real) * n * d);
    lab_mm_nn(out, a->a, P + blk->w2, n, m->mlp, d, 1);
    add_bias(out, P + blk->c2, n, d);
}

/* m->dx holds the gradient of the block's output; on return, of its input. */
static void block_backward(lab_model *m, int32_t l, int32_t batch, int32_t len) {
    const lab_block *blk = &m->blocks[l];
    const lab_acts *a = &m->acts[l];
    int32_t n = batch * len, d = m->d;
    const lab_real *P = m->params;
    lab_real *G = m->grads;
    if (m->mlp) {
        lab_mm_tn(G + blk->w2, a->a, m->dx, n, m->mlp, d);
        sum_rows(G + blk->c2, m->dx, n, d);
        lab_mm_nt_rows(m->da, m->dx, P + blk->w2, n, m->mlp, d, 0, m->wt);
        for (size_t i = 0; i < (size_t)n * m->mlp; i++)
            if (a->u[i] <= 0) m->da[i] = 0;
        lab_mm_tn(G + blk->w1, a->h2, m->da, n, d, m->mlp);
        sum_rows(G + blk->c1, m->da, n, m->mlp);
        lab_mm_nt_rows(m->dh, m->da, P + blk->w1, n, d, m->mlp, 0, m->wt);
        norm_backward(m->dx, G + blk->g2, G + blk->b2, m->dh, a->xhat2, a->rstd2, P + blk->g2, n, d);
    }
    lab_mm_tn(G + blk->wo, a->ctx, m->dx, n, d, d);
    lab_mm_nt_rows(m->dctx, m->dx, P + blk->wo, n, d, d, 0, m->wt);
    attention_backward(m, blk, a, batch, len);
    if (m->cfg[LAB_C_ENCODING] == PE_LAB_ROPE) {
        rope(m, m->dq, n, 1);
        rope(m, m->dk, n, 1);
    }
    lab_mm_tn(G + blk->wq, a->h1, m->dq, n, d, d);
    lab_mm_tn(G + blk->wk, a->h1, m->dk, n, d, d);
    lab_mm_tn(G + blk->wv, a->h1, m->dv, n, d, d);
    lab_mm_nt_rows(m->dh, m->dq, P + blk->wq, n, d, d, 0, m->wt);
    lab_mm_nt_rows(m->dh, m->dk, P + blk->wk, n, d, d, 1, m->wt);
    lab_mm_nt_rows(m->dh, m->dv, P + blk->wv, n, d, d, 1, m->wt);
    norm_backward(m->dx, G + blk->g1, G + blk->b1, m->dh, a->xhat1, a->rstd1, P + blk->g1, n, d);
}

/* Cross-entropy at the rows with a target; m->logits becomes d loss / d logits,
 * and m->dx the gradient at the final LayerNorm's output. */
static void head(lab_model *m, const int32_t *targets, int32_t n, double *loss, int32_t *correct,
                 int32_t *counted, int backward) {
    int32_t d = m->d, C = m->classes, count = 0, right = 0;
    double total = 0;
    for (int32_t r = 0; r < n; r++) count += targets[r] >= 0;
    if (backward) memset(m->dx, 0, sizeof(lab_real) * n * d);
    for (int32_t r = 0; r < n; r++) {
        if (targets[r] < 0) continue;
        lab_real *z = m->logits + (size_t)r * C;
        lab_mm_nn(z, m->hf + (size_t)r * d, m->params + m->wout, 1, d, C, 0);
        int32_t best = 0;
        double mx = -1e300, sum = 0;
        for (int32_t c = 0; c < C; c++) {
            z[c] += m->params[m->bout + c];
            if (z[c] > mx) {
                mx = z[c];
                best = c;
            }
        }
        for (int32_t c = 0; c < C; c++) sum += pe_exp(z[c] - mx);
        total += pe_log(sum) + mx - z[targets[r]];
        right += best == targets[r];
        if (!backward) continue;
        for (int32_t c = 0; c < C; c++)
            z[c] = (lab_real)((pe_exp(z[c] - mx) / sum - (c == targets[r])) / count);
        lab_mm_tn(m->grads + m->wout, m->hf + (size_t)r * d, z, 1, d, C);
        sum_rows(m->grads + m->bout, z, 1, C);
        lab_mm_nt(m->dh + (size_t)r * d, z, m->params + m->wout, 1, d, C, 0);
    }
    *loss = count ? total / count : 0;
    *correct = right;
    *counted = count;
}

int lab_forward(lab_model *m, const int32_t *tokens, const int32_t *targets, int32_t batch, int32_t len,
                double *loss, int32_t *correct, int32_t *counted, int backward, uint64_t *pos_rng) {
    if (batch < 1 || batch > m->batch || len < 1 || len > m->max_len) return PE_ERR_SIZE;
    int32_t n = batch * len, d = m->d;
    for (int32_t r = 0; r < n; r++)
        if (tokens[r] < 0 || tokens[r] >= m->vocab || targets[r] < -1 || targets[r] >= m->classes)
            return PE_ERR_VALUE;
    lab_positions(m, batch, len, pos_rng);
    embed(m, tokens, n, m->acts[0].x);
    for (int32_t l = 0; l < m->layers; l++)
        block_forward(m, l, batch, len, l + 1 < m->layers ? m->acts[l + 1].x : m->xf);
    norm_forward(m->hf, m->xhatf, m->rstdf, m->xf, m->params + m->gf, m->params + m->bf, n, d);
    if (backward) {
        memset(m->grads, 0, sizeof(lab_real) * m->nparams);
        memset(m->dh, 0, sizeof(lab_real) * n * d);
    }
    head(m, targets, n, loss, correct, counted, backward);
    if (!backward) return PE_OK;
    norm_backward(m->dx, m->grads + m->gf, m->grads + m->bf, m->dh, m->xhatf, m->rstdf, m->params + m->gf, n,
                  d);
    for (int32_t l = m->layers - 1; l >= 0; l--) block_backward(m, l, batch, len);
    int enc = m->cfg[LAB_C_ENCODING];
    for (int32_t r = 0; r < n; r++) {
        lab_real *gt = m->grads + m->tok + (size_t)tokens[r] * d;
        lab_real *gp = enc == PE_LAB_LEARNED ? m->grads + m->pos + (size_t)m->posn[r] * d : NULL;
        for (int32_t c = 0; c < d; c++) {
            gt[c] += m->dx[(size_t)r * d + c];
            if (gp) gp[c] += m->dx[(size_t)r * d + c];
        }
    }
    return PE_OK;
}
