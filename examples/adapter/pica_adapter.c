/*
 * pica_adapter.c - the reference adapter of gpuisa's engine adapter protocol
 * (docs/adapter-protocol.md), in C99 on top of the conformance-vector reader.
 *
 *     cc -std=c99 -O2 -I ../vectors-reader -o pica-adapter pica_adapter.c -lm
 *     pica vectors --adapter ./pica-adapter --mode f32
 *
 * gpuisa starts it as `pica-adapter MODE BATCH_DIR`; it reads BATCH_DIR/cases.bin and
 * writes one result line per case, in order, to standard output.  run_case() is where an
 * emulator plugs in: here it is a small float32 PICA200 vertex-shader interpreter (the
 * arithmetic of pica-emulation.md in f32 mode and the stack machine of its "Control flow"
 * section), so the adapter answers "unsupported" for f24 mode and geometry shaders.
 *
 * Deliberately wrong builds, used by gpuisa's tests of `pica fuzz`:
 *   -DMUTANT_RCP_NEG_ZERO   RCP(-0) = -inf (IEEE) instead of +inf
 *   -DMUTANT_IF_NO_POP      the IF stack is never popped
 *   -DMUTANT_LOOP_AL_EARLY  aL is restored when a LOOP's last iteration starts, not at its end
 *   -DCRASH_ON_OPCODE=N     SIGSEGV when opcode N runs;  -DHANG_ON_OPCODE=N  never returns
 */
#define PICA_VECTORS_IMPLEMENTATION
#include "pica_vectors.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#define MAX_STEPS 20000
#define NO_JUMP (-1)
enum { IF_DEPTH = 8, CALL_DEPTH = 4, LOOP_DEPTH = 4, CALL_POPS_EFFECTIVE = 3 };
enum { RESULT_OK, RESULT_HANG, RESULT_FAULT, RESULT_UNSUPPORTED };

typedef struct { float v[16][4], r[16][4], o[16][4], c[128][4]; uint8_t i[4][4]; } regs;
typedef struct { int trigger, dest; } if_entry;
typedef struct { int trigger, ret; } call_entry;
typedef struct { int trigger, body, count, step, saved_al; } loop_entry;
typedef struct {
    regs g;
    int a[3], cmp[2];
    uint16_t bools;
    if_entry ifs[IF_DEPTH]; int n_if;
    call_entry calls[CALL_DEPTH]; int n_call;
    loop_entry loops[LOOP_DEPTH]; int n_loop;
} machine;

/* -- float32 arithmetic with the PICA rules ------------------------------------------ */

static uint32_t bits(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float from_bits(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static float quiet(float x) { return from_bits(bits(x) | 0x400000u); }

static float mul(float a, float b) {     /* 0 * inf = +0 (pica-emulation.md#mul) */
    float p = a * b;
    if (p != p) return a != a ? quiet(a) : b != b ? quiet(b) : 0.0f;
    return p;
}
static float add(float a, float b) {
    float s = a + b;
    if (s != s) return a != a ? quiet(a) : b != b ? quiet(b) : s;
    return s;
}
static float pmax(float a, float b) { return a > b ? a : b; }   /* pica-emulation.md#min-max */
static float pmin(float a, float b) { return a < b ? a : b; }
static float rcp(float x) {
    if (x != x) return quiet(x);
#ifdef MUTANT_RCP_NEG_ZERO
    if (x == 0.0f) return signbit(x) ? -INFINITY : INFINITY;
#else
    if (x == 0.0f) return INFINITY;    /* -0 reads as +0 */
#endif
    return 1.0f / x;
}
static float rsq(float x) {
    if (x != x) return quiet(x);
    if (x == 0.0f) return INFINITY;
    if (x < 0.0f) return from_bits(0xFFC00000u);
    return 1.0f / sqrtf(x);
}
static float ex2(float x) { return (float)exp2((double)x); }
static float lg2(float x) { return (float)log2((double)(x == 0.0f ? 0.0f : x)); }
static float flr(float x) { return x != x ? quiet(x) : floorf(x); }
static int compare(int op, float a, float b) {
    switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    case 5: return a >= b;
    default: return 1;
    }
}
static int32_t address(float x) {     /* truncation, saturating, NaN -> 0 */
    if (x != x) return 0;
    if (x <= -2147483648.0f) return INT32_MIN;
    if (x >= 2147483648.0f) return INT32_MAX;
    return (int32_t)x;
}

/* -- operands ------------------------------------------------------------------------- */

static const float *source(machine *m, int field, int relative) {
    if (field < 0x10) return m->g.v[field];
    if (field < 0x20) return m->g.r[field - 0x10];
    int row = field - 0x20;
    if (relative) {
        int offset = m->a[relative - 1];
        if (offset < -128 || offset > 127) offset = 0;
        row = (row + offset) & 0x7F;
    }
    return m->g.c[row];
}

static void operand(machine *m, uint32_t desc, int n, int field, int relative, float out[4]) {
    const float *reg = source(m, field, relative);
    static const int neg_bit[3] = {4, 13, 22}, sel_bit[3] = {5, 14, 23};
    uint32_t sel = (desc >> sel_bit[n]) & 0xFF;
    for (int k = 0; k < 4; k++) {
        float value = reg[(sel >> (6 - 2 * k)) & 3];
        out[k] = (desc >> neg_bit[n]) & 1 ? -value : value;
    }
}

static void write(machine *m, int dst, uint32_t desc, const float value[4]) {
    float *reg = dst < 0x10 ? m->g.o[dst] : m->g.r[dst - 0x10];
    for (int k = 0; k < 4; k++)
        if (desc & (8u >> k)) reg[k] = value[k];
}

static float dot(const float a[4], const float b[4], int n) {
    float total = add(0.0f, mul(a[0], b[0]));
    for (int k = 1; k < n; k++) total = add(total, mul(a[k], b[k]));
    return total;
}

/* One ALU instruction; returns 0, or -1 for an opcode with no function (a fault). */
static int alu(machine *m, uint32_t word, const pv_case *c) {
    int op = (int)(word >> 26), d, s1, s2, s3 = 0, idx, rel1 = 0, rel2 = 0, rel3 = 0;
    float a[4], b[4], x[4], r[4];
    if (op >= 0x30) {                                     /* MAD (0x38-0x3F), MADI */
        int madi = op < 0x38;
        uint32_t di = word & 0x1F;
        if (di >= c->nopdesc) return -1;
        uint32_t desc = pv_word(c->opdescs, di);
        d = (word >> 24) & 0x1F; idx = (word >> 22) & 3;
        s1 = (word >> 17) & 0x1F;
        if (madi) { s2 = (word >> 12) & 0x1F; s3 = (word >> 5) & 0x7F; rel3 = idx; }
        else { s2 = (word >> 10) & 0x7F; s3 = (word >> 5) & 0x1F; rel2 = idx; }
        operand(m, desc, 0, s1, 0, a); operand(m, desc, 1, s2, rel2, b);
        operand(m, desc, 2, s3, rel3, x);
        for (int k = 0; k < 4; k++) r[k] = add(mul(a[k], b[k]), x[k]);
        write(m, d, desc, r);
        return 0;
    }
    uint32_t di = word & 0x7F;
    if (di >= c->nopdesc) return -1;
    uint32_t desc = pv_word(c->opdescs, di);
    idx = (word >> 19) & 3; d = (word >> 21) & 0x1F;
    if (op >= 0x18 && op <= 0x1B) { s1 = (word >> 14) & 0x1F; s2 = (word >> 7) & 0x7F; rel2 = idx; }
    else { s1 = (word >> 12) & 0x7F; s2 = (word >> 7) & 0x1F; rel1 = idx; }
    operand(m, desc, 0, s1, rel1, a); operand(m, desc, 1, s2, rel2, b);
    switch (op >= 0x2E ? 0x2E : op) {
    case 0x00: for (int k = 0; k < 4; k++) r[k] = add(a[k], b[k]); break;
    case 0x01: r[0] = r[1] = r[2] = r[3] = dot(a, b, 3); break;
    case 0x02: r[0] = r[1] = r[2] = r[3] = dot(a, b, 4); break;
    case 0x03: case 0x18: a[3] = 1.0f; r[0] = r[1] = r[2] = r[3] = dot(a, b, 4); break;
    case 0x04: case 0x19: r[0] = 1.0f; r[1] = mul(a[1], b[1]); r[2] = a[2]; r[3] = b[3]; break;
    case 0x05: r[0] = r[1] = r[2] = r[3] = ex2(a[0]); break;
    case 0x06: r[0] = r[1] = r[2] = r[3] = lg2(a[0]); break;
    case 0x07: {
        const float limit = 0x7FFF / 256.0f;
        r[0] = pmax(a[0], 0.0f); r[1] = pmax(pmin(a[1], limit), -limit);
        r[2] = 0.0f; r[3] = pmax(a[3], 0.0f);
        m->cmp[0] = a[0] >= 0.0f; m->cmp[1] = a[3] >= 0.0f;
        break;
    }
    case 0x08: for (int k = 0; k < 4; k++) r[k] = mul(a[k], b[k]); break;
    case 0x09: case 0x1A: for (int k = 0; k < 4; k++) r[k] = a[k] >= b[k] ? 1.0f : 0.0f; break;
    case 0x0A: case 0x1B: for (int k = 0; k < 4; k++) r[k] = a[k] < b[k] ? 1.0f : 0.0f; break;
    case 0x0B: for (int k = 0; k < 4; k++) r[k] = flr(a[k]); break;
    case 0x0C: for (int k = 0; k < 4; k++) r[k] = pmax(a[k], b[k]); break;
    case 0x0D: for (int k = 0; k < 4; k++) r[k] = pmin(a[k], b[k]); break;
    case 0x0E: r[0] = r[1] = r[2] = r[3] = rcp(a[0]); break;
    case 0x0F: r[0] = r[1] = r[2] = r[3] = rsq(a[0]); break;
    case 0x12:
        if (desc & 8) m->a[0] = address(a[0]);
        if (desc & 4) m->a[1] = address(a[1]);
        return 0;
    case 0x13: memcpy(r, a, sizeof r); break;
    case 0x2E:
        m->cmp[0] = compare((int)(word >> 24) & 7, a[0], b[0]);
        m->cmp[1] = compare((int)(word >> 21) & 7, a[1], b[1]);
        return 0;
    default: return -1;
    }
    write(m, d, desc, r);
    return 0;
}

/* -- control flow: the stack machine (pica-emulation.md#flow-check) --------------------- */

static int room(int count, int depth, void *stack, size_t size) {
    if (count < depth) return count;
    memmove(stack, (char *)stack + size, size * (size_t)(depth - 1));  /* drop the oldest */
    return depth - 1;
}

static int condition(const machine *m, uint32_t word) {
    int x = m->cmp[0] == (int)((word >> 25) & 1), y = m->cmp[1] == (int)((word >> 24) & 1);
    switch ((word >> 22) & 3) {
    case 0: return x || y;
    case 1: return x && y;
    case 2: return x;
    default: return y;
    }
}

/* A flow instruction: sets the pending jump and break. */
static void flow(machine *m, int op, uint32_t word, int pc, int *jump, int *breaking) {
    int dst = (int)(word >> 10) & 0xFFF, num = (int)(word & 0xFF), id = (int)(word >> 22) & 0xF;
    int flag = (m->bools >> id) & 1, row;
    switch (op) {
    case 0x20: *breaking = 1; break;                           /* BREAK */
    case 0x23: *breaking = condition(m, word); break;          /* BREAKC */
    case 0x24: case 0x25: case 0x26:                           /* CALL, CALLC, CALLU */
        if (op == 0x24 || (op == 0x25 ? condition(m, word) : flag)) {
            row = room(m->n_call, CALL_DEPTH, m->calls, sizeof m->calls[0]);
            m->calls[row].trigger = dst + num; m->calls[row].ret = pc + 1;
            m->n_call = row + 1;
            *jump = dst;
        }
        break;
    case 0x27: case 0x28:                                      /* IFU, IFC */
        if (op == 0x28 ? condition(m, word) : flag) {
            row = room(m->n_if, IF_DEPTH, m->ifs, sizeof m->ifs[0]);
            m->ifs[row].trigger = dst; m->ifs[row].dest = dst + num;
            m->n_if = row + 1;
        } else {
            *jump = dst;
        }
        break;
    case 0x29: {                                               /* LOOP */
        const uint8_t *i = m->g.i[id & 3];
        row = room(m->n_loop, LOOP_DEPTH, m->loops, sizeof m->loops[0]);
        loop_entry e = { dst + 1, pc + 1, i[0], i[2], m->a[2] };
        m->loops[row] = e;
        m->n_loop = row + 1;
        m->a[2] = i[1];
        break;
    }
    case 0x2C: if (condition(m, word)) *jump = dst; break;    /* JMPC */
    case 0x2D: if (flag == !(num & 1)) *jump = dst; break;    /* JMPU */
    }
}

/* The check after every instruction: returns the next PC, or -2 for a hang. */
static int next_pc(machine *m, int pc, int jump, int breaking) {
    int following = pc + 1, call_pc = NO_JUMP, if_pc = NO_JUMP, loop_pc = NO_JUMP;
    int copy = following;
    for (int pops = 1; pops <= CALL_DEPTH; pops++) {
        if (m->n_call == 0 || m->calls[m->n_call - 1].trigger != copy) break;
        m->n_call--;
        copy = m->calls[m->n_call].ret;
        if (pops <= CALL_POPS_EFFECTIVE) call_pc = copy;
    }
#ifndef MUTANT_IF_NO_POP
    if (m->n_if > 0 && m->ifs[m->n_if - 1].trigger == following) {
        m->n_if--;
        if_pc = m->ifs[m->n_if].dest;
    }
#endif
    if (breaking && m->n_loop == 0) return -2;
    if (m->n_loop > 0) {
        loop_entry *top = &m->loops[m->n_loop - 1];
        if (breaking || top->trigger == following) {
            m->a[2] += top->step;
            if (breaking || top->count == 0) {
                loop_pc = top->trigger;
                m->n_loop--;
                if (m->n_loop > 0) m->a[2] = top->saved_al;
            } else {
                top->count--;
                loop_pc = top->body;
#ifdef MUTANT_LOOP_AL_EARLY
                if (top->count == 0) m->a[2] = top->saved_al;
#endif
            }
        }
    }
    if (loop_pc != NO_JUMP) return loop_pc;
    if (if_pc != NO_JUMP) return if_pc;
    if (call_pc != NO_JUMP) return call_pc;
    return jump != NO_JUMP ? jump : following;
}

/* -- running a case ------------------------------------------------------------------- */

static void load(machine *m, const pv_case *c) {
    memset(m, 0, sizeof *m);
    for (int row = 96; row < 128; row++)
        for (int k = 0; k < 4; k++) m->g.c[row][k] = 1.0f;    /* pica-emulation.md#relative */
    for (unsigned n = 0; n < c->nfloat; n++) {
        const uint8_t *rec = c->floats + 33 * (size_t)n;
        for (int k = 0; k < 4; k++) m->g.c[rec[0]][k] = from_bits(pv_word(rec + 1, (size_t)k));
    }
    for (unsigned n = 0; n < c->nint; n++)
        memcpy(m->g.i[c->ints[5 * n] & 3], c->ints + 5 * n + 1, 4);
    for (unsigned n = 0; n < c->ninputs; n++) {
        const uint8_t *rec = c->inputs + (size_t)n * (1 + (size_t)c->invocations * 32);
        for (int k = 0; k < 4; k++) m->g.v[rec[0] & 15][k] = from_bits(pv_word(rec + 1, (size_t)k));
    }
    m->bools = c->bool_uniforms;
    m->cmp[0] = c->cmp & 1; m->cmp[1] = (c->cmp >> 1) & 1;
    memcpy(m->a, c->address, sizeof m->a);
}

/* The emulator: runs case ``c`` in f32 mode; *pc is where it stopped. */
static int run_case(const pv_case *c, machine *m, int *pc) {
    if (c->geometry || c->pipeline) return RESULT_UNSUPPORTED;
    load(m, c);
    *pc = c->entry;
    for (int steps = 0;; steps++) {
        if (*pc < 0 || *pc >= c->ncode || steps >= MAX_STEPS) return RESULT_HANG;
        uint32_t word = pv_word(c->code, (size_t)*pc);
        int op = (int)(word >> 26), jump = NO_JUMP, breaking = 0;
#ifdef CRASH_ON_OPCODE
        if (op == CRASH_ON_OPCODE) raise(SIGSEGV);
#endif
#ifdef HANG_ON_OPCODE
        if (op == HANG_ON_OPCODE) for (;;) {}
#endif
        if (op == 0x22) return RESULT_OK;                         /* END */
        if (op == 0x21) { /* NOP */ }
        else if (op >= 0x20 && op < 0x2E && op != 0x2A && op != 0x2B) flow(m, op, word, *pc, &jump, &breaking);
        else if (op == 0x2A || op == 0x2B) return RESULT_FAULT;  /* EMIT, SETEMIT */
        else if (alu(m, word, c) != 0) return RESULT_FAULT;
        int next = next_pc(m, *pc, jump, breaking);
        if (next == -2) return RESULT_HANG;
        *pc = next;
    }
}

static void print_result(const pv_case *c, int mode) {
    static machine m;
    int pc = 0, status = mode == PV_F32 ? run_case(c, &m, &pc) : RESULT_UNSUPPORTED;
    static const char *names[] = {"ok", "hang", "fault", "unsupported"};
    printf("{\"id\": \"");
    for (unsigned k = 0; k < c->id.length; k++) {
        char ch = c->id.data[k];
        if (ch == '"' || ch == '\\') putchar('\\');
        putchar(ch);
    }
    printf("\", \"status\": \"%s\"", names[status]);
    if (status == RESULT_HANG || status == RESULT_FAULT) printf(", \"pc\": %d", pc);
    if (status == RESULT_OK) {
        const pv_expected *e = &c->expected[mode];
        printf(", \"outputs\": {");
        for (unsigned k = 0; k < e->noutputs; k++) {
            uint32_t unused[4];
            uint8_t reg = pv_output(e, k, unused) & 15;
            const float *o = m.g.o[reg];
            printf("%s\"o%u\": [%u, %u, %u, %u]", k ? ", " : "", reg, bits(o[0]), bits(o[1]),
                   bits(o[2]), bits(o[3]));
        }
        printf("}, \"cmp\": [%d, %d], \"address\": [%d, %d, %d]", m.cmp[0], m.cmp[1],
               (int)m.a[0], (int)m.a[1], (int)m.a[2]);
    }
    printf("}\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s f24|f32 BATCH_DIR\n", argv[0]);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.bin", argv[2]);
    pv_suite suite;
    if (pv_open(&suite, path) != PV_OK) {
        fprintf(stderr, "%s: cannot read the batch\n", path);
        return 1;
    }
    int mode = strcmp(argv[1], "f32") == 0 ? PV_F32 : PV_F24, status;
    pv_case c;
    while ((status = pv_next(&suite, &c)) == PV_OK) print_result(&c, mode);
    pv_close(&suite);
    return status == PV_END ? 0 : 1;
}
