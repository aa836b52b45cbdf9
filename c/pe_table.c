/* The sinusoidal table and its Gram matrix. */
#include <string.h>
#include "oscillator.h"
#include "simd.h"
#include "work.h"

/*
 * Rows are formed in blocks of BLOCK_ROWS. For each run of four frequencies
 * the sines and cosines stay in four f64x2 registers while they are rotated
 * down the block's rows, each row's values stored as they come (converted to
 * float32 by round-to-nearest demotion where asked), and the state goes back
 * to memory once per block, not once per row. Frequencies left over (fewer
 * than four, a lone sine of an odd width) take the same arithmetic in scalar
 * code, so every value is bit-identical to the plain row-by-row recurrence.
 *
 * 8 rows, not more: a 1024-wide float32 table has rows exactly 4 KiB apart,
 * so a block's stores all land in one L1 set; 16 rows ran 2.5x slower.
 */
#define BLOCK_ROWS 8 /* divides PE_ANCHOR, so anchors fall on block starts */

enum { INTERLEAVED_F32, INTERLEAVED_F64, BLOCKS_F32, BLOCKS_F64 };

/* Scratch of a d-wide table: its frequencies (d/2 + 1 doubles) and their
 * oscillator (4 arrays as long, even-padded), checked before either exists. */
#define OSC_SCRATCH(d) (5.0 * 8 * ((d) / 2 + 2))

typedef struct {
    char *out;     /* first row of the block */
    size_t stride; /* bytes per row */
    int kind;
    int32_t cos0; /* first cosine column of the block layouts */
} block_dst;

#if PE_SIMD
/*
 * Frequencies i..i+3 (two f64x2 each of sines s0, s1 and cosines c0, c1)
 * rotated down the block's rows: two independent dependency chains, and one
 * loop per output kind so that nothing but the stores sits in each.
 */
static void quad_rows(const block_dst *b, int32_t rows, int32_t i, pe_osc *o) {
    v128_t s0 = wasm_v128_load(o->s + i), s1 = wasm_v128_load(o->s + i + 2);
    v128_t c0 = wasm_v128_load(o->c + i), c1 = wasm_v128_load(o->c + i + 2);
    v128_t sw0 = wasm_v128_load(o->sw + i), sw1 = wasm_v128_load(o->sw + i + 2);
    v128_t cw0 = wasm_v128_load(o->cw + i), cw1 = wasm_v128_load(o->cw + i + 2);
    size_t st = b->stride, n = (size_t)rows * st,
           c32 = (size_t)b->cos0 * 4; /* sine to cosine block, float32 */
    char *row;
    switch (b->kind) {
    case INTERLEAVED_F32:
        for (row = b->out + (size_t)i * 8; row < b->out + n; row += st) {
            wasm_v128_store(row, F32_ZIP(s0, c0));
            wasm_v128_store(row + 16, F32_ZIP(s1, c1));
            ROTATE(s0, c0, sw0, cw0);
            ROTATE(s1, c1, sw1, cw1);
        }
        break;
    case INTERLEAVED_F64:
        for (row = b->out + (size_t)i * 16; row < b->out + n; row += st) {
            wasm_v128_store(row, wasm_i64x2_shuffle(s0, c0, 0, 2));
            wasm_v128_store(row + 16, wasm_i64x2_shuffle(s0, c0, 1, 3));
            wasm_v128_store(row + 32, wasm_i64x2_shuffle(s1, c1, 0, 2));
            wasm_v128_store(row + 48, wasm_i64x2_shuffle(s1, c1, 1, 3));
            ROTATE(s0, c0, sw0, cw0);
            ROTATE(s1, c1, sw1, cw1);
        }
        break;
    case BLOCKS_F32:
        for (row = b->out + (size_t)i * 4; row < b->out + n; row += st) {
            wasm_v128_store(row, F32_CAT(s0, s1));
            wasm_v128_store(row + c32, F32_CAT(c0, c1));
            ROTATE(s0, c0, sw0, cw0);
            ROTATE(s1, c1, sw1, cw1);
        }
        break;
    default:
        for (row = b->out + (size_t)i * 8; row < b->out + n; row += st) {
            wasm_v128_store(row, s0);
            wasm_v128_store(row + 16, s1);
            wasm_v128_store(row + 2 * c32, c0);
            wasm_v128_store(row + 2 * c32 + 16, c1);
            ROTATE(s0, c0, sw0, cw0);
            ROTATE(s1, c1, sw1, cw1);
        }
    }
    PE_WORK(PE_WORK_TABLE_ELEMS, 8 * rows);
    PE_WORK(PE_WORK_ROTATIONS, 4 * rows);
    wasm_v128_store(o->s + i, s0);
    wasm_v128_store(o->s + i + 2, s1);
    wasm_v128_store(o->c + i, c0);
    wasm_v128_store(o->c + i + 2, c1);
}
#endif

static void put(const block_dst *b, char *row, int32_t col, double v) {
    if (b->kind == INTERLEAVED_F32 || b->kind == BLOCKS_F32) ((float *)(void *)row)[col] = (float)v;
    else ((double *)(void *)row)[col] = v;
}

/* Writes `rows` rows from the oscillator's state and leaves it `rows` steps on. */
static void fill_block(const block_dst *b, int32_t rows, const pe_spec *sp, pe_osc *o) {
    int32_t i = 0;
#if PE_SIMD
    for (; i + 4 <= sp->h; i += 4) quad_rows(b, rows, i, o);
#endif
    for (; i < sp->nf; i++) {
        int32_t sc = pe_sin_col(sp, i), cc = pe_cos_col(sp, i);
        double s = o->s[i], c = o->c[i], sw = o->sw[i], cw = o->cw[i];
        char *row = b->out;
        for (int32_t r = 0; r < rows; r++, row += b->stride) {
            put(b, row, sc, s);
            if (cc >= 0) put(b, row, cc, c);
            double next = s * cw + c * sw;
            c = c * cw - s * sw;
            s = next;
        }
        o->s[i] = s;
        o->c[i] = c;
        PE_WORK(PE_WORK_TABLE_ELEMS, (cc >= 0 ? 2 : 1) * rows);
        PE_WORK(PE_WORK_ROTATIONS, rows);
    }
    if (sp->layout == PE_LAYOUT_CONCAT && sp->d % 2) { /* the zero column */
        char *row = b->out;
        for (int32_t r = 0; r < rows; r++, row += b->stride) put(b, row, sp->d - 1, 0.0);
        PE_WORK(PE_WORK_TABLE_ELEMS, rows);
    }
    pe_osc_advance(o, rows);
}

static int check_table_args(const void *out, int dtype, int32_t max_len, int32_t d_model, double offset) {
    if (!out) return PE_ERR_NULL;
    PE_TRY(pe_check_dtype(dtype));
    PE_TRY(pe_check_dim(max_len));
    PE_TRY(pe_check_dim(d_model));
    PE_TRY(pe_check_position(offset));
    return pe_check_position(offset + (max_len - 1));
}

/* Fills `rows` rows from the oscillator's position on; each element is
 * written once (row zero_row, if any, twice: formed, then zeroed). */
static void fill_rows(char *out, int dtype, int32_t rows, const pe_spec *sp, pe_osc *o, int32_t zero_row) {
    int f32 = dtype == PE_F32, inter = sp->layout == PE_LAYOUT_INTERLEAVED;
    block_dst b;
    b.stride = (size_t)sp->d * (f32 ? sizeof(float) : sizeof(double));
    b.kind = inter ? (f32 ? INTERLEAVED_F32 : INTERLEAVED_F64) : (f32 ? BLOCKS_F32 : BLOCKS_F64);
    b.cos0 = sp->h ? pe_cos_col(sp, 0) : 0;
    for (int32_t r = 0; r < rows;) {
        int32_t n = rows - r < BLOCK_ROWS ? rows - r : BLOCK_ROWS;
        if (n > pe_osc_room(o)) n = pe_osc_room(o);
        b.out = out + (size_t)r * b.stride;
        fill_block(&b, n, sp, o);
        r += n;
    }
    if (zero_row >= 0 && zero_row < rows) {
        memset(out + (size_t)zero_row * b.stride, 0, b.stride);
        PE_WORK(PE_WORK_TABLE_ELEMS, sp->d);
    }
}

static int fill_table(void *out, int dtype, int32_t max_len, const pe_spec *sp, double offset,
                      int32_t zero_row) {
    pe_osc o;
    PE_TRY(pe_osc_init(&o, sp->w, sp->nf, offset));
    fill_rows(out, dtype, max_len, sp, &o, zero_row);
    pe_osc_free(&o);
    return PE_OK;
}

int pe_table(void *out, int dtype, int32_t max_len, int32_t d_model, int layout, int freq, double base,
             double offset, int32_t zero_row) {
    PE_TRY(check_table_args(out, dtype, max_len, d_model, offset));
    PE_TRY(pe_check_bytes((double)max_len * d_model, dtype == PE_F32 ? 4 : 8));
    PE_TRY(pe_check_scratch(OSC_SCRATCH(d_model)));
    pe_spec sp;
    PE_TRY(pe_spec_init(&sp, d_model, layout, freq, base));
    int status = fill_table(out, dtype, max_len, &sp, offset, zero_row);
    pe_spec_free(&sp);
    return status;
}

/*
 * Rows at the given positions, a run of consecutive positions at a time: the
 * frequencies are formed once for the call, and the oscillator is moved to
 * each run's start (one sine-cosine pair a frequency, PE_ANCHOR's exact
 * anchor), so a run costs what a table from its first position costs and
 * its rows are bit-identical to that table's. Scattered positions (0, 2,
 * 4, ...) cost a pair a frequency and a row; a call per run cost 10 to 27
 * times that (issue 22's eleventh pass).
 */
int pe_table_at(void *out, int dtype, int32_t rows, int32_t d_model, int layout, int freq, double base,
                const double *positions, int32_t zero_pos) {
    if (!positions) return PE_ERR_NULL;
    PE_TRY(check_table_args(out, dtype, rows, d_model, 0.0));
    for (int32_t r = 0; r < rows; r++) PE_TRY(pe_check_position(positions[r]));
    PE_TRY(pe_check_bytes((double)rows * d_model, dtype == PE_F32 ? 4 : 8));
    PE_TRY(pe_check_scratch(OSC_SCRATCH(d_model)));
    pe_spec sp;
    PE_TRY(pe_spec_init(&sp, d_model, layout, freq, base));
    pe_osc o;
    int status = pe_osc_init(&o, sp.w, sp.nf, positions[0]);
    size_t stride = (size_t)d_model * (dtype == PE_F32 ? sizeof(float) : sizeof(double));
    for (int32_t r = 0, n; status == PE_OK && r < rows; r += n) {
        double p = positions[r];
        for (n = 1; r + n < rows && positions[r + n] == p + n; n++) continue;
        if (r) pe_osc_seek(&o, p);
        /* the run's row at position zero_pos, if it has one (positions need not be whole) */
        double z = zero_pos - p;
        fill_rows((char *)out + r * stride, dtype, n, &sp, &o,
                  zero_pos >= 0 && z >= 0 && z < n && z == (int32_t)z ? (int32_t)z : -1);
    }
    pe_osc_free(&o);
    pe_spec_free(&sp);
    return status;
}

/*
 * When every frequency has both a sine and a cosine, PE_i . PE_j is
 * sum_f cos((i - j) w_f): one profile g[k], k = |i - j|, gives the whole matrix.
 * Laid out symmetrically as sym[n - 1 + k] = g[|k|], row i of the Gram matrix is
 * the contiguous slice sym[n - 1 - i .. 2n - 2 - i], so each row is one copy.
 */
static int toeplitz_gram(void *out, int dtype, int32_t n, const pe_spec *sp, int cosine) {
    size_t elem = dtype == PE_F32 ? sizeof(float) : sizeof(double);
    PE_TRY(pe_check_scratch((2.0 * n - 1) * elem));
    void *sym = pe_malloc((2 * (size_t)n - 1) * elem);
    if (!sym) return PE_ERR_NOMEM;
    pe_osc o;
    int status = pe_osc_init(&o, sp->w, sp->h, 0.0);
    if (status != PE_OK) {
        pe_free(sym);
        return status;
    }
    /* Every row has norm sqrt(h), so cosine similarity is g / h. */
    double scale = cosine ? (sp->h ? 1.0 / sp->h : 0.0) : 1.0;
    for (int32_t k = 0; k < n; k++) {
        double g = 0.0;
        for (int32_t f = 0; f < sp->h; f++) g += o.c[f];
        pe_store(sym, dtype, (size_t)(n - 1 + k), g * scale);
        pe_store(sym, dtype, (size_t)(n - 1 - k), g * scale);
        pe_osc_step(&o);
    }
    pe_osc_free(&o);
    for (int32_t i = 0; i < n; i++)
        memcpy((char *)out + (size_t)i * n * elem, (char *)sym + (size_t)(n - 1 - i) * elem,
               (size_t)n * elem);
    pe_free(sym);
    return PE_OK;
}

/* A lone sine column or a zeroed row breaks the i - j symmetry: form the table. */
static int direct_gram(void *out, int dtype, int32_t n, const pe_spec *sp, double offset, int32_t zero_row,
                       int cosine) {
    PE_TRY(pe_check_bytes((double)n * sp->d, 8));
    PE_TRY(pe_check_scratch((double)n * sp->d * sizeof(double)));
    double *table = pe_malloc((size_t)n * sp->d * sizeof(double));
    if (!table) return PE_ERR_NOMEM;
    int status = fill_table(table, PE_F64, n, sp, offset, zero_row);
    if (status == PE_OK) status = pe_gram(out, dtype, table, n, sp->d, cosine);
    pe_free(table);
    return status;
}

int pe_table_gram(void *out, int dtype, int32_t max_len, int32_t d_model, int layout, int freq, double base,
                  double offset, int32_t zero_row, int cosine) {
    PE_TRY(check_table_args(out, dtype, max_len, d_model, offset));
    PE_TRY(pe_check_bytes((double)max_len * max_len, dtype == PE_F32 ? 4 : 8));
    PE_TRY(pe_check_scratch(OSC_SCRATCH(d_model)));
    pe_spec sp;
    PE_TRY(pe_spec_init(&sp, d_model, layout, freq, base));
    int toeplitz = sp.nf == sp.h && (zero_row < 0 || zero_row >= max_len);
    int status = toeplitz ? toeplitz_gram(out, dtype, max_len, &sp, cosine)
                          : direct_gram(out, dtype, max_len, &sp, offset, zero_row, cosine);
    pe_spec_free(&sp);
    return status;
}
