/*
 * example.c - how a shader translator's test runner consumes gpuisa's A2XX / Xenos
 * conformance vectors.
 *
 *     cc -std=c99 -O2 -o a2xx-vectors-example example.c
 *     ./a2xx-vectors-example suite/cases.bin [adreno|xenos] [ID-TO-CORRUPT]
 *
 * It reads every case and compares "results" with the expected exports of the target.
 * A real runner would translate c.words and run them here (see run_case); this example
 * echoes the expected values, so it reports no mismatch, unless it is told to corrupt
 * one case's first export to show what a divergence looks like.
 */
#define A2XX_VECTORS_IMPLEMENTATION
#include "a2xx_vectors.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stand-in for the translated shader: the expected exports, one bit flipped for ``corrupt``. */
static void run_case(const av_case *c, int target, int corrupt, uint32_t *exports,
                     uint8_t *killed) {
    const av_result *e = &c->expected[target];
    memset(exports, 0, (size_t)AV_EXPORTS * c->invocations * 16);
    for (unsigned k = 0; k < e->nexports; k++) {
        const uint8_t *rows;
        uint8_t reg = av_export(e, c->invocations, k, &rows);
        if (reg >= AV_EXPORTS) continue;
        for (size_t i = 0; i < (size_t)c->invocations * 4; i++)
            exports[(size_t)reg * c->invocations * 4 + i] = av_word(rows, i);
        if (corrupt && k == 0) exports[(size_t)reg * c->invocations * 4] ^= 0x00400000u;
    }
    memcpy(killed, e->killed, c->invocations);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s cases.bin [adreno|xenos] [ID-TO-CORRUPT]\n", argv[0]);
        return 2;
    }
    int target = argc > 2 && strcmp(argv[2], "xenos") == 0 ? AV_XENOS : AV_ADRENO;
    const char *corrupt = argc > 3 ? argv[3] : NULL;
    av_suite suite;
    int status = av_open(&suite, argv[1]);
    if (status != AV_OK) {
        fprintf(stderr, "%s: cannot read the suite (error %d)\n", argv[1], status);
        return 1;
    }
    unsigned long provenance[5] = {0}, pixel = 0, differ = 0, words = 0, mismatches = 0;
    av_case c;
    while ((status = av_next(&suite, &c)) == AV_OK) {
        if (c.provenance < 5) provenance[c.provenance]++;
        pixel += c.shader == AV_PIXEL;
        differ += c.differences.length > 0;
        words += c.nwords;
        uint32_t *exports = malloc((size_t)AV_EXPORTS * c.invocations * 16);
        uint8_t *killed = malloc(c.invocations ? c.invocations : 1);
        if (!exports || !killed) { free(exports); free(killed); av_close(&suite); return 1; }
        int flip = corrupt && strlen(corrupt) == c.id.length &&
                   memcmp(corrupt, c.id.data, c.id.length) == 0;
        run_case(&c, target, flip, exports, killed);
        if (!av_exports_match(&c.expected[target], c.invocations, exports, killed)) {
            mismatches++;
            printf("mismatch %.*s\n", (int)c.id.length, c.id.data);
        }
        free(exports);
        free(killed);
    }
    if (status != AV_END) {
        fprintf(stderr, "%s: malformed at case %lu\n", argv[1], (unsigned long)suite.read);
        av_close(&suite);
        return 1;
    }
    printf("cases %lu document %lu emulator %lu evidence %lu documented-choice %lu model %lu "
           "pixel %lu differ %lu words %lu mismatches %lu\n",
           (unsigned long)suite.read, provenance[AV_DOCUMENT], provenance[AV_EMULATOR],
           provenance[AV_EVIDENCE], provenance[AV_DOCUMENTED_CHOICE], provenance[AV_MODEL],
           pixel, differ, words, mismatches);
    av_close(&suite);
    return mismatches ? 1 : 0;
}
