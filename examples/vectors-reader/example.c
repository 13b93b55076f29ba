/*
 * example.c - how an emulator's test runner consumes gpuisa's conformance vectors.
 *
 *     cc -std=c99 -O2 -o pica-vectors-example example.c
 *     ./pica-vectors-example suite/cases.bin [f24|f32] [ID-TO-CORRUPT]
 *
 * It reads every case and compares "results" with the expected outputs.  A real runner
 * would run case.code from case.entry on its emulator here (see run_case); this example
 * echoes the expected values, so it reports no mismatch, unless it is told to corrupt one
 * case's first output to show what a divergence looks like.
 */
#define PICA_VECTORS_IMPLEMENTATION
#include "pica_vectors.h"

#include <stdio.h>
#include <string.h>

/* Stand-in for the emulator: the expected outputs, one bit flipped for ``corrupt``. */
static void run_case(const pv_case *c, int mode, int corrupt, uint32_t out[64]) {
    const pv_expected *e = &c->expected[mode];
    memset(out, 0, 64 * sizeof out[0]);
    for (unsigned k = 0; k < e->noutputs; k++) {
        uint32_t value[4];
        uint8_t reg = pv_output(e, k, value);
        if (reg < 16) memcpy(&out[4 * reg], value, sizeof value);
    }
    if (corrupt && e->noutputs) {
        uint32_t value[4];
        uint8_t reg = pv_output(e, 0, value);
        if (reg < 16) out[4 * reg] ^= 1u;  /* the lowest bit of its x component */
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s cases.bin [f24|f32] [ID-TO-CORRUPT]\n", argv[0]);
        return 2;
    }
    int mode = argc > 2 && strcmp(argv[2], "f32") == 0 ? PV_F32 : PV_F24;
    const char *corrupt = argc > 3 ? argv[3] : NULL;
    pv_suite suite;
    int status = pv_open(&suite, argv[1]);
    if (status != PV_OK) {
        fprintf(stderr, "%s: cannot read the suite (error %d)\n", argv[1], status);
        return 1;
    }
    unsigned long provenance[4] = {0}, statuses[3] = {0}, words = 0, mismatches = 0;
    pv_case c;
    while ((status = pv_next(&suite, &c)) == PV_OK) {
        if (c.provenance < 4) provenance[c.provenance]++;
        words += c.ncode;
        const pv_expected *want = &c.expected[mode];
        if (want->status < 3) statuses[want->status]++;
        if (want->status != PV_STATUS_OK) continue;  /* a hang or fault: compare its pc */
        uint32_t got[64];
        int flip = corrupt && strlen(corrupt) == c.id.length &&
                   memcmp(corrupt, c.id.data, c.id.length) == 0;
        run_case(&c, mode, flip, got);
        if (!pv_outputs_match(want, got, mode)) {
            mismatches++;
            printf("mismatch %.*s\n", (int)c.id.length, c.id.data);
        }
    }
    if (status != PV_END) {
        fprintf(stderr, "%s: malformed at case %lu\n", argv[1], (unsigned long)suite.read);
        pv_close(&suite);
        return 1;
    }
    printf("cases %lu hardware %lu seed %lu documented-choice %lu model %lu "
           "ok %lu hang %lu fault %lu code-words %lu mismatches %lu\n",
           (unsigned long)suite.read, provenance[PV_HARDWARE], provenance[PV_SEED],
           provenance[PV_DOCUMENTED_CHOICE], provenance[PV_MODEL], statuses[0], statuses[1],
           statuses[2], words, mismatches);
    pv_close(&suite);
    return mismatches ? 1 : 0;
}
