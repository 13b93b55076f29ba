/*
 * pica_vectors.h - read gpuisa's PICA200 conformance vectors (cases.bin) from C.
 *
 * A single header with no dependencies beyond the C99 standard library, so that an
 * emulator's test runner can load the suite `pica vectors -o DIR` writes and compare its
 * own results with the expected ones.  The binary layout is docs/vectors-format.md
 * ("Binary form"); every number is little-endian and read byte by byte, so the header
 * works on any host byte order and needs no aligned data.
 *
 * Use:
 *     #define PICA_VECTORS_IMPLEMENTATION   (in exactly one .c file)
 *     #include "pica_vectors.h"
 *
 *     pv_suite suite;
 *     if (pv_open(&suite, "suite/cases.bin") != PV_OK) ...
 *     pv_case c;
 *     while (pv_next(&suite, &c) == PV_OK) {
 *         const pv_expected *want = &c.expected[PV_F24];   (or PV_F32)
 *         ... run c.code / c.opdescs from c.entry with c's inputs and uniforms ...
 *         if (!pv_outputs_match(want, my_outputs, PV_F24)) ...
 *     }
 *     pv_close(&suite);
 *
 * Values that point into the file (strings, code words, register rows) stay valid until
 * pv_close; read arrays of words with pv_word(pointer, index).
 */
#ifndef PICA_VECTORS_H
#define PICA_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { PV_F24 = 0, PV_F32 = 1 };                   /* expected[] index: the modes */
enum { PV_OK = 0, PV_END = 1, PV_EIO = -1, PV_EFORMAT = -2, PV_ENOMEM = -3 };
enum { PV_STATUS_OK = 0, PV_STATUS_HANG = 1, PV_STATUS_FAULT = 2 };
enum { PV_HARDWARE = 0, PV_SEED = 1, PV_DOCUMENTED_CHOICE = 2, PV_MODEL = 3 };

typedef struct { const char *data; uint16_t length; } pv_str;    /* not NUL-terminated */

typedef struct {
    uint8_t status;            /* PV_STATUS_* */
    int32_t pc;                /* where a hang or fault happened */
    uint8_t cmp;               /* bit 0 cmp.x, bit 1 cmp.y */
    int32_t address[3];        /* a0.x, a0.y, aL */
    uint8_t noutputs;
    const uint8_t *outputs;    /* noutputs records: u8 register, u32 value[4] */
    uint16_t nvertices;        /* geometry: emitted vertices, noutputs x u32[4] each */
    const uint8_t *vertices;
    uint16_t nprimitives;      /* geometry: u16 i, j, k; u8 winding */
    const uint8_t *primitives;
    uint8_t nsemantics;        /* attributes after the output map (format version 2): */
    const uint8_t *semantics;  /* nsemantics x (u16 length, name, u8 k, u32 value[k]) */
} pv_expected;

typedef struct {
    pv_str id, tags, source, unknowns;
    uint8_t provenance;        /* PV_HARDWARE, PV_SEED, ... */
    uint8_t geometry, pipeline, dvle;
    uint16_t entry, ncode, nopdesc;
    const uint8_t *code;       /* ncode u32 words */
    const uint8_t *opdescs;    /* nopdesc u32 words */
    uint32_t shbin_size;
    const uint8_t *shbin;
    uint8_t cmp;               /* initial flags */
    int32_t address[3];        /* initial a0.x, a0.y, aL */
    uint16_t bool_uniforms;    /* bit n = bn */
    uint8_t nint;
    const uint8_t *ints;       /* nint records: u8 register, u8 x, y, z, w */
    uint8_t nfloat;
    const uint8_t *floats;     /* nfloat records: u8 register, u32 f32[4], u32 f24[4] */
    uint8_t ninputs;
    uint16_t invocations;
    const uint8_t *inputs;     /* ninputs x (u8 register, invocations x (f32[4], f24[4])) */
    pv_expected expected[2];   /* [PV_F24], [PV_F32] */
} pv_case;

typedef struct {
    uint8_t *data;
    size_t size, at;
    uint32_t version, count, read;
} pv_suite;

int pv_open(pv_suite *suite, const char *path);
int pv_next(pv_suite *suite, pv_case *out);
void pv_close(pv_suite *suite);

/* Word ``index`` of a little-endian u32 array at ``at``. */
uint32_t pv_word(const uint8_t *at, size_t index);
/* Expected output record k: its register number and value[4]. */
uint8_t pv_output(const pv_expected *e, unsigned k, uint32_t value[4]);
/* Whether ``got`` (64 patterns: output register r, component i at got[4 * r + i]) holds
 * every expected output; an expected NaN matches any NaN (payloads are unknown on
 * hardware). */
int pv_outputs_match(const pv_expected *e, const uint32_t *got, int mode);
/* Whether a register pattern is NaN in ``mode`` (float24: exponent 0x7F, mantissa != 0). */
int pv_is_nan(uint32_t pattern, int mode);

#ifdef __cplusplus
}
#endif

#ifdef PICA_VECTORS_IMPLEMENTATION
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t pv_word(const uint8_t *at, size_t index) {
    const uint8_t *p = at + 4 * index;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct { const uint8_t *p, *end; int bad; } pv_cursor;

static const uint8_t *pv_take(pv_cursor *c, size_t n) {
    const uint8_t *at = c->p;
    if (c->bad || (size_t)(c->end - c->p) < n) { c->bad = 1; return NULL; }
    c->p += n;
    return at;
}
static uint8_t pv_u8(pv_cursor *c) { const uint8_t *p = pv_take(c, 1); return p ? p[0] : 0; }
static uint16_t pv_u16(pv_cursor *c) {
    const uint8_t *p = pv_take(c, 2);
    return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}
static uint32_t pv_u32(pv_cursor *c) { const uint8_t *p = pv_take(c, 4); return p ? pv_word(p, 0) : 0; }
static int32_t pv_i32(pv_cursor *c) { return (int32_t)pv_u32(c); }
static pv_str pv_text(pv_cursor *c) {
    pv_str s;
    s.length = pv_u16(c);
    s.data = (const char *)pv_take(c, s.length);
    return s;
}

static void pv_read_expected(pv_cursor *c, pv_expected *e) {
    e->status = pv_u8(c);
    e->pc = pv_i32(c);
    e->cmp = pv_u8(c);
    for (int k = 0; k < 3; k++) e->address[k] = pv_i32(c);
    e->noutputs = pv_u8(c);
    e->outputs = pv_take(c, (size_t)e->noutputs * 17);
    e->nvertices = pv_u16(c);
    e->vertices = pv_take(c, (size_t)e->nvertices * e->noutputs * 16);
    e->nprimitives = pv_u16(c);
    e->primitives = pv_take(c, (size_t)e->nprimitives * 7);
    e->nsemantics = pv_u8(c);
    e->semantics = c->p;
    for (unsigned k = 0; k < e->nsemantics; k++) {
        pv_text(c);
        pv_take(c, 4 * (size_t)pv_u8(c));
    }
}

int pv_open(pv_suite *suite, const char *path) {
    memset(suite, 0, sizeof *suite);
    FILE *file = fopen(path, "rb");
    if (!file) return PV_EIO;
    if (fseek(file, 0, SEEK_END) != 0) { fclose(file); return PV_EIO; }
    long size = ftell(file);
    if (size < 16 || fseek(file, 0, SEEK_SET) != 0) { fclose(file); return PV_EFORMAT; }
    suite->data = (uint8_t *)malloc((size_t)size);
    if (!suite->data) { fclose(file); return PV_ENOMEM; }
    size_t got = fread(suite->data, 1, (size_t)size, file);
    fclose(file);
    suite->size = (size_t)size;
    if (got != suite->size || memcmp(suite->data, "PICAVEC1", 8) != 0) {
        pv_close(suite);
        return got != (size_t)size ? PV_EIO : PV_EFORMAT;
    }
    suite->version = pv_word(suite->data, 2);
    suite->count = pv_word(suite->data, 3);
    suite->at = 16;
    return PV_OK;
}

int pv_next(pv_suite *suite, pv_case *out) {
    if (suite->read == suite->count) return suite->at == suite->size ? PV_END : PV_EFORMAT;
    pv_cursor c = { suite->data + suite->at, suite->data + suite->size, 0 };
    uint32_t length = pv_u32(&c);
    if (c.bad || (size_t)(c.end - c.p) < length) return PV_EFORMAT;
    c.end = c.p + length;
    memset(out, 0, sizeof *out);
    out->id = pv_text(&c);
    out->tags = pv_text(&c);
    out->provenance = pv_u8(&c);
    out->source = pv_text(&c);
    out->unknowns = pv_text(&c);
    uint8_t flags = pv_u8(&c);
    out->geometry = flags & 1;
    out->pipeline = (flags >> 1) & 1;
    out->dvle = pv_u8(&c);
    out->entry = pv_u16(&c);
    out->ncode = pv_u16(&c);
    out->nopdesc = pv_u16(&c);
    out->code = pv_take(&c, (size_t)out->ncode * 4);
    out->opdescs = pv_take(&c, (size_t)out->nopdesc * 4);
    out->shbin_size = pv_u32(&c);
    out->shbin = pv_take(&c, out->shbin_size);
    out->cmp = pv_u8(&c);
    for (int k = 0; k < 3; k++) out->address[k] = pv_i32(&c);
    out->bool_uniforms = pv_u16(&c);
    out->nint = pv_u8(&c);
    out->ints = pv_take(&c, (size_t)out->nint * 5);
    out->nfloat = pv_u8(&c);
    out->floats = pv_take(&c, (size_t)out->nfloat * 33);
    out->ninputs = pv_u8(&c);
    out->invocations = pv_u16(&c);
    out->inputs = pv_take(&c, (size_t)out->ninputs * (1 + (size_t)out->invocations * 32));
    pv_read_expected(&c, &out->expected[PV_F24]);
    pv_read_expected(&c, &out->expected[PV_F32]);
    if (c.bad || c.p != c.end) return PV_EFORMAT;
    suite->at = (size_t)(c.end - suite->data);
    suite->read++;
    return PV_OK;
}

void pv_close(pv_suite *suite) {
    free(suite->data);
    memset(suite, 0, sizeof *suite);
}

uint8_t pv_output(const pv_expected *e, unsigned k, uint32_t value[4]) {
    const uint8_t *record = e->outputs + 17 * (size_t)k;
    for (int i = 0; i < 4; i++) value[i] = pv_word(record + 1, (size_t)i);
    return record[0];
}

int pv_is_nan(uint32_t pattern, int mode) {
    if (mode == PV_F24) return ((pattern >> 16) & 0x7F) == 0x7F && (pattern & 0xFFFF) != 0;
    return ((pattern >> 23) & 0xFF) == 0xFF && (pattern & 0x7FFFFF) != 0;
}

int pv_outputs_match(const pv_expected *e, const uint32_t *got, int mode) {
    for (unsigned k = 0; k < e->noutputs; k++) {
        uint32_t want[4];
        uint8_t reg = pv_output(e, k, want);
        if (reg >= 16) return 0;
        for (int i = 0; i < 4; i++) {
            uint32_t have = got[4 * reg + i];
            if (have != want[i] && !(pv_is_nan(want[i], mode) && pv_is_nan(have, mode)))
                return 0;
        }
    }
    return 1;
}
#endif /* PICA_VECTORS_IMPLEMENTATION */
#endif /* PICA_VECTORS_H */
