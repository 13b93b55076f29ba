/*
 * a2xx_vectors.h - read gpuisa's A2XX / Xenos conformance vectors (cases.bin) from C.
 *
 * One header, C99, no dependencies beyond the standard library, so that a shader
 * translator's test runner (Xenia's, XenosRecomp's, an emulator's) can load the suite
 * `a2xx vectors -o DIR` writes and compare its own exports with the expected ones.  The
 * layout is docs/a2xx-vectors-format.md ("Binary form"); numbers are little-endian and
 * read byte by byte, so the header works on any host and needs no aligned data.
 *
 * Use:
 *     #define A2XX_VECTORS_IMPLEMENTATION   (in exactly one .c file)
 *     #include "a2xx_vectors.h"
 *
 *     av_suite suite;
 *     if (av_open(&suite, "suite/cases.bin") != AV_OK) ...
 *     av_case c;
 *     while (av_next(&suite, &c) == AV_OK) {
 *         const av_result *want = &c.expected[AV_XENOS];     (or AV_ADRENO)
 *         ... translate c.words (c.nwords dwords), run c.invocations invocations with
 *             the registers, constants, vertex buffers and textures of c ...
 *         if (!av_exports_match(want, c.invocations, my_exports)) ...
 *     }
 *     av_close(&suite);
 *
 * Pointers into the file (strings, words, register rows) stay valid until av_close; read
 * a word of any array with av_word(pointer, index).
 */
#ifndef A2XX_VECTORS_H
#define A2XX_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { AV_ADRENO = 0, AV_XENOS = 1 };                      /* expected[] index: targets */
enum { AV_OK = 0, AV_END = 1, AV_EIO = -1, AV_EFORMAT = -2, AV_ENOMEM = -3 };
enum { AV_DOCUMENT = 0, AV_EMULATOR = 1, AV_EVIDENCE = 2, AV_DOCUMENTED_CHOICE = 3,
       AV_MODEL = 4 };
enum { AV_VERTEX = 0, AV_PIXEL = 1 };
/* av_exports(): export register r, invocation i, component k at [(r * invocations + i) * 4 + k]. */
#define AV_EXPORTS 64

typedef struct { const char *data; uint16_t length; } av_str;    /* not NUL-terminated */

typedef struct {
    uint8_t nexports;
    const uint8_t *exports;    /* nexports x (u8 register, invocations x u32 value[4]) */
    const uint8_t *killed;     /* invocations x u8 (1 = killed) */
} av_result;

typedef struct {
    av_str id, tags, source, choice, differences;
    uint8_t provenance;        /* AV_DOCUMENT, ... */
    uint8_t shader;            /* AV_VERTEX or AV_PIXEL */
    uint16_t nwords;
    const uint8_t *words;      /* nwords u32 dwords (values; Xenos memory holds them big-endian) */
    uint16_t invocations;
    uint8_t nregisters;
    const uint8_t *registers;  /* nregisters x (u8 register, invocations x u32 value[4]) */
    uint16_t nfloat;
    const uint8_t *floats;     /* nfloat x (u16 index, u32 value[4]) */
    uint8_t nbool;
    const uint8_t *bools;      /* nbool x u8: the bool constants that are true */
    uint8_t nloop;
    const uint8_t *loops;      /* nloop x (u8 index, u32 register value) */
    uint8_t nbuffers;
    const uint8_t *buffers;    /* nbuffers x (u8 slot, u8 endian, u32 size, u8 data[size]) */
    uint8_t ntextures;
    const uint8_t *textures;   /* ntextures x (u8 index, u16 w, h, u8 filter, address, w*h x u32[4]) */
    av_result expected[2];     /* [AV_ADRENO], [AV_XENOS] */
    uint8_t nalternatives;
    const uint8_t *alternatives; /* nalternatives x (str label, result) */
} av_case;

typedef struct {
    uint8_t *data;
    size_t size, at;
    uint32_t version, count, read;
} av_suite;

int av_open(av_suite *suite, const char *path);
int av_next(av_suite *suite, av_case *out);
void av_close(av_suite *suite);

/* Word ``index`` of a little-endian u32 array at ``at``. */
uint32_t av_word(const uint8_t *at, size_t index);
/* Export record k of a result: its register number; its rows start at *rows. */
uint8_t av_export(const av_result *r, uint16_t invocations, unsigned k, const uint8_t **rows);
/* Whether ``got`` (AV_EXPORTS x invocations x 4 patterns, see AV_EXPORTS) and ``killed``
 * hold every expected export and kill flag; an expected NaN matches any NaN. */
int av_exports_match(const av_result *r, uint16_t invocations, const uint32_t *got,
                     const uint8_t *killed);
int av_is_nan(uint32_t pattern);

#ifdef __cplusplus
}
#endif

#ifdef A2XX_VECTORS_IMPLEMENTATION
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t av_word(const uint8_t *at, size_t index) {
    const uint8_t *p = at + 4 * index;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct { const uint8_t *p, *end; int bad; } av_cursor;

static const uint8_t *av_take(av_cursor *c, size_t n) {
    const uint8_t *at = c->p;
    if (c->bad || (size_t)(c->end - c->p) < n) { c->bad = 1; return NULL; }
    c->p += n;
    return at;
}
static uint8_t av_u8(av_cursor *c) { const uint8_t *p = av_take(c, 1); return p ? p[0] : 0; }
static uint16_t av_u16(av_cursor *c) {
    const uint8_t *p = av_take(c, 2);
    return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}
static uint32_t av_u32(av_cursor *c) { const uint8_t *p = av_take(c, 4); return p ? av_word(p, 0) : 0; }
static av_str av_text(av_cursor *c) {
    av_str s;
    s.length = av_u16(c);
    s.data = (const char *)av_take(c, s.length);
    return s;
}

/* Skip ``count`` records of (u8 register, invocations x 16 bytes); return where they start. */
static const uint8_t *av_rows(av_cursor *c, unsigned count, uint16_t invocations) {
    const uint8_t *start = c->p;
    for (unsigned k = 0; k < count; k++) {
        av_u8(c);
        av_take(c, (size_t)invocations * 16);
    }
    return start;
}

static void av_read_result(av_cursor *c, av_result *r, uint16_t invocations) {
    r->nexports = av_u8(c);
    r->exports = av_rows(c, r->nexports, invocations);
    r->killed = av_take(c, invocations);
}

static void av_read_inputs(av_cursor *c, av_case *out) {
    out->nfloat = av_u16(c);
    out->floats = av_take(c, (size_t)out->nfloat * 18);
    out->nbool = av_u8(c);
    out->bools = av_take(c, out->nbool);
    out->nloop = av_u8(c);
    out->loops = av_take(c, (size_t)out->nloop * 5);
    out->nbuffers = av_u8(c);
    out->buffers = c->p;
    for (unsigned k = 0; k < out->nbuffers; k++) {
        av_take(c, 2);
        av_take(c, av_u32(c));
    }
    out->ntextures = av_u8(c);
    out->textures = c->p;
    for (unsigned k = 0; k < out->ntextures; k++) {
        av_u8(c);
        uint16_t w = av_u16(c), h = av_u16(c);
        av_take(c, 2);
        av_take(c, (size_t)w * h * 16);
    }
}

int av_open(av_suite *suite, const char *path) {
    memset(suite, 0, sizeof *suite);
    FILE *file = fopen(path, "rb");
    if (!file) return AV_EIO;
    if (fseek(file, 0, SEEK_END) != 0) { fclose(file); return AV_EIO; }
    long size = ftell(file);
    if (size < 16 || fseek(file, 0, SEEK_SET) != 0) { fclose(file); return AV_EFORMAT; }
    suite->data = (uint8_t *)malloc((size_t)size);
    if (!suite->data) { fclose(file); return AV_ENOMEM; }
    size_t got = fread(suite->data, 1, (size_t)size, file);
    fclose(file);
    suite->size = (size_t)size;
    if (got != suite->size || memcmp(suite->data, "A2XXVEC1", 8) != 0) {
        av_close(suite);
        return got != (size_t)size ? AV_EIO : AV_EFORMAT;
    }
    suite->version = av_word(suite->data, 2);
    suite->count = av_word(suite->data, 3);
    suite->at = 16;
    return AV_OK;
}

int av_next(av_suite *suite, av_case *out) {
    if (suite->read == suite->count) return suite->at == suite->size ? AV_END : AV_EFORMAT;
    av_cursor c = { suite->data + suite->at, suite->data + suite->size, 0 };
    uint32_t length = av_u32(&c);
    if (c.bad || (size_t)(c.end - c.p) < length) return AV_EFORMAT;
    c.end = c.p + length;
    memset(out, 0, sizeof *out);
    out->id = av_text(&c);
    out->tags = av_text(&c);
    out->provenance = av_u8(&c);
    out->source = av_text(&c);
    out->choice = av_text(&c);
    out->shader = av_u8(&c);
    out->nwords = av_u16(&c);
    out->words = av_take(&c, (size_t)out->nwords * 4);
    out->invocations = av_u16(&c);
    out->nregisters = av_u8(&c);
    out->registers = av_rows(&c, out->nregisters, out->invocations);
    av_read_inputs(&c, out);
    out->differences = av_text(&c);
    av_read_result(&c, &out->expected[AV_ADRENO], out->invocations);
    av_read_result(&c, &out->expected[AV_XENOS], out->invocations);
    out->nalternatives = av_u8(&c);
    out->alternatives = c.p;
    for (unsigned k = 0; k < out->nalternatives; k++) {
        av_result skipped;
        av_text(&c);
        av_read_result(&c, &skipped, out->invocations);
    }
    if (c.bad || c.p != c.end) return AV_EFORMAT;
    suite->at = (size_t)(c.end - suite->data);
    suite->read++;
    return AV_OK;
}

void av_close(av_suite *suite) {
    free(suite->data);
    memset(suite, 0, sizeof *suite);
}

uint8_t av_export(const av_result *r, uint16_t invocations, unsigned k, const uint8_t **rows) {
    const uint8_t *record = r->exports + (1 + (size_t)invocations * 16) * k;
    *rows = record + 1;
    return record[0];
}

int av_is_nan(uint32_t pattern) {
    return ((pattern >> 23) & 0xFF) == 0xFF && (pattern & 0x7FFFFF) != 0;
}

int av_exports_match(const av_result *r, uint16_t invocations, const uint32_t *got,
                     const uint8_t *killed) {
    for (unsigned k = 0; k < r->nexports; k++) {
        const uint8_t *rows;
        uint8_t reg = av_export(r, invocations, k, &rows);
        if (reg >= AV_EXPORTS) return 0;
        for (size_t i = 0; i < (size_t)invocations * 4; i++) {
            uint32_t want = av_word(rows, i);
            uint32_t have = got[(size_t)reg * invocations * 4 + i];
            if (have != want && !(av_is_nan(want) && av_is_nan(have))) return 0;
        }
    }
    for (size_t i = 0; i < invocations; i++)
        if ((r->killed[i] != 0) != (killed[i] != 0)) return 0;
    return 1;
}
#endif /* A2XX_VECTORS_IMPLEMENTATION */
#endif /* A2XX_VECTORS_H */
