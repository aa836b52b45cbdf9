/* Adam with decoupled weight decay (Loshchilov and Hutter's AdamW) on the
 * matrices, after clipping the gradient's global norm. */
#include "lab.h"

#ifdef PE_LAB_F64
#define LAB_SQRT __builtin_sqrt
#else
#define LAB_SQRT __builtin_sqrtf
#endif

void lab_adam_step(lab_model *m) {
    double norm2 = 0;
    for (int32_t i = 0; i < m->nparams; i++) norm2 += (double)m->grads[i] * m->grads[i];
    double clip = m->fcfg[LAB_F_CLIP], norm = __builtin_sqrt(norm2);
    lab_real g_scale = (lab_real)(clip > 0 && norm > clip ? clip / norm : 1);
    double b1 = m->fcfg[LAB_F_BETA1], b2 = m->fcfg[LAB_F_BETA2];
    m->adam_b1t *= b1;
    m->adam_b2t *= b2;
    m->steps++;
    /* lr / (1 - b1^t) and 1 / (1 - b2^t), the bias corrections, once per step */
    lab_real lr = (lab_real)m->fcfg[LAB_F_LR], c1 = (lab_real)(m->fcfg[LAB_F_LR] / (1 - m->adam_b1t));
    lab_real c2 = (lab_real)(1 / (1 - m->adam_b2t)), eps = (lab_real)m->fcfg[LAB_F_EPS];
    lab_real fb1 = (lab_real)b1, fb2 = (lab_real)b2, decay = (lab_real)m->fcfg[LAB_F_DECAY];
    for (int32_t t = 0; t < m->ntensors; t++) {
        const lab_tensor *tn = &m->tensors[t];
        lab_real wd = tn->decay ? lr * decay : 0;
        lab_real *p = m->params + tn->offset, *g = m->grads + tn->offset;
        lab_real *m1 = m->m1 + tn->offset, *m2 = m->m2 + tn->offset;
        for (int32_t i = 0, n = tn->rows * tn->cols; i < n; i++) {
            lab_real gi = g[i] * g_scale;
            m1[i] = fb1 * m1[i] + (1 - fb1) * gi;
            m2[i] = fb2 * m2[i] + (1 - fb2) * gi * gi;
            p[i] -= c1 * m1[i] / (LAB_SQRT(c2 * m2[i]) + eps) + wd * p[i];
        }
    }
}
