/* Search kernel of hall/whist_build.py: simulated annealing for the base round of a whist
   tournament developed over an abelian group (see that module for the problem file).

   usage: whist_kernel PROBLEM_FILE MAX_STEPS TEMPERATURE SEED
   prints "FOUND steps code code ..." (the positions, four per table: N E S W) or "FAIL cost".

   The state is an arrangement of element codes in table positions, one member of each
   orbit; the cost is the distance of the partner and opponent counts of every class from
   their targets. A move swaps two positions of different tables, or replaces an element
   by another member of its orbit (when a multiplier makes orbits). Written in C because
   the search makes billions of moves; the same seed gives the same result. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <stdint.h>

static uint64_t st[2];
static inline uint64_t rnd(void) {          /* xorshift128+ */
    uint64_t s1 = st[0];
    const uint64_t s0 = st[1];
    st[0] = s0;
    s1 ^= s1 << 23;
    st[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    return st[1] + s0;
}

static int npos, ncode, ncls, *pos, *P, *O, *PT, *OT, *C, **orb, *orbn;
static const int PP[2][2] = {{0, 2}, {1, 3}};
static const int OP[4][2] = {{0, 1}, {0, 3}, {2, 1}, {2, 3}};
static inline int cls(int x, int y) { return C[x * ncode + y]; }
static inline int dev(int c, int *A, int *T) { return abs(A[c] - T[c]); }

static int readint(FILE *f) {
    int x;
    if (fscanf(f, "%d", &x) != 1) { fprintf(stderr, "bad problem file\n"); exit(2); }
    return x;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s PROBLEM MAX_STEPS T SEED\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 2; }
    long long maxsteps = atoll(argv[2]);
    double T = atof(argv[3]);
    unsigned long long seed = strtoull(argv[4], 0, 10);
    npos = readint(f); ncode = readint(f); ncls = readint(f);
    PT = calloc(ncls + 1, sizeof(int)); OT = calloc(ncls + 1, sizeof(int));
    P = calloc(ncls + 1, sizeof(int)); O = calloc(ncls + 1, sizeof(int));
    for (int c = 0; c <= ncls; c++) PT[c] = readint(f);
    for (int c = 0; c <= ncls; c++) OT[c] = readint(f);
    pos = malloc(sizeof(int) * npos);
    for (int i = 0; i < npos; i++) pos[i] = readint(f);
    orb = malloc(sizeof(int *) * ncode); orbn = malloc(sizeof(int) * ncode);
    for (int x = 0; x < ncode; x++) {
        orbn[x] = readint(f);
        orb[x] = malloc(sizeof(int) * (orbn[x] ? orbn[x] : 1));
        for (int j = 0; j < orbn[x]; j++) orb[x][j] = readint(f);
    }
    C = malloc(sizeof(int) * ncode * ncode);
    for (int i = 0; i < ncode * ncode; i++) C[i] = readint(f);
    fclose(f);

    st[0] = 0x9E3779B97F4A7C15ULL * (seed + 1);
    st[1] = 0xD1B54A32D192ED03ULL ^ (seed * 7919 + 13);
    for (int i = 0; i < 20; i++) rnd();
    for (int i = npos - 1; i > 0; i--) { int j = rnd() % (i + 1); int t = pos[i]; pos[i] = pos[j]; pos[j] = t; }
    for (int t = 0; t < npos / 4; t++) {
        int b = 4 * t;
        for (int z = 0; z < 2; z++) P[cls(pos[b + PP[z][0]], pos[b + PP[z][1]])]++;
        for (int z = 0; z < 4; z++) O[cls(pos[b + OP[z][0]], pos[b + OP[z][1]])]++;
    }
    int cur = 0;
    for (int c = 1; c <= ncls; c++) cur += dev(c, P, PT) + dev(c, O, OT);
    double ex[64];
    for (int d = 0; d < 64; d++) ex[d] = exp(-d / T);
    int ch[48], sg[48], kind[48];
    for (long long step = 0; step < maxsteps; step++) {
        if (cur == 0) {
            printf("FOUND %lld", step);
            for (int i = 0; i < npos; i++) printf(" %d", pos[i]);
            printf("\n");
            return 0;
        }
        /* prefer a position in a pair whose class is over its target */
        int a = rnd() % npos;
        for (int tries = 0; tries < 6; tries++) {
            int t4 = a & ~3, r = a & 3, bad = 0;
            int c0 = cls(pos[a], pos[t4 + ((r + 2) & 3)]);
            int c1 = cls(pos[a], pos[t4 + ((r + 1) & 3)]), c2 = cls(pos[a], pos[t4 + ((r + 3) & 3)]);
            if ((c0 && P[c0] > PT[c0]) || (c1 && O[c1] > OT[c1]) || (c2 && O[c2] > OT[c2])) bad = 1;
            if (bad) break;
            a = rnd() % npos;
        }
        int b, newa = -1;
        int ta = a >> 2, tb;
        if (orbn[pos[a]] > 1 && (rnd() & 3) == 0) {   /* another member of a's orbit */
            newa = orb[pos[a]][rnd() % orbn[pos[a]]];
            if (newa == pos[a]) continue;
            b = a; tb = ta;
        } else {
            b = rnd() % npos; tb = b >> 2;
            if (ta == tb) continue;
        }
        int n = 0, bs[2] = {4 * ta, 4 * tb}, nt = (ta == tb) ? 1 : 2, olda = pos[a];
        for (int r = 0; r < 2; r++) {
            for (int z = 0; z < nt; z++) {
                for (int w = 0; w < 2; w++) { ch[n] = cls(pos[bs[z] + PP[w][0]], pos[bs[z] + PP[w][1]]); sg[n] = r ? 1 : -1; kind[n] = 0; n++; }
                for (int w = 0; w < 4; w++) { ch[n] = cls(pos[bs[z] + OP[w][0]], pos[bs[z] + OP[w][1]]); sg[n] = r ? 1 : -1; kind[n] = 1; n++; }
            }
            if (!r) {
                if (newa >= 0) pos[a] = newa;
                else { int t = pos[a]; pos[a] = pos[b]; pos[b] = t; }
            }
        }
        int d = 0;
        for (int i = 0; i < n; i++) {
            int c = ch[i];
            if (!c) continue;
            if (kind[i] == 0) { d -= dev(c, P, PT); P[c] += sg[i]; d += dev(c, P, PT); }
            else { d -= dev(c, O, OT); O[c] += sg[i]; d += dev(c, O, OT); }
        }
        if (d <= 0 || (double)(rnd() >> 11) * (1.0 / 9007199254740992.0) < ex[d < 63 ? d : 63]) {
            cur += d;
        } else {
            for (int i = n - 1; i >= 0; i--) {
                int c = ch[i];
                if (!c) continue;
                if (kind[i] == 0) P[c] -= sg[i]; else O[c] -= sg[i];
            }
            if (newa >= 0) pos[a] = olda;
            else { int t = pos[a]; pos[a] = pos[b]; pos[b] = t; }
        }
    }
    printf("FAIL %d\n", cur);
    return 1;
}
