/* The smallest PC/SC client we could write for a throughput figure: connect to the first reader
 * whose name contains a substring, then send the same APDU N times with SCardTransmit and check
 * every answer's status word. It is the pcsc-lite side of Benchmarks/pcsc/run.sh.
 *
 * Usage: transmit-loop [-n N] [-w WARMUP] [-a APDU_HEX] [-s SW_HEX] [-t WAIT_S] LABEL READER_SUBSTRING
 *   -n  measured APDUs (default 500)       -w  warm-up APDUs, not measured (default 20)
 *   -a  the command APDU (default 00A4040007A0000002471001, SELECT by name, no Le)
 *   -s  expected status word (default 9000) -t  seconds to wait for pcscd, the reader and the card (default 20)
 * Prints one line on success:
 *   pcsc LABEL N APDUs SECONDS s RATE APDU/s (reader "NAME", T=1, answer LEN bytes)
 * Exit status: 0 ok, 1 a bad answer or a PC/SC error mid-run, 2 usage or setup (no pcscd, no reader, no card). */
#include <winscard.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int parse_hex(const char *hex, unsigned char *out, size_t max) {
    size_t n = 0;
    int high = -1;
    for (const char *p = hex; *p; p++) {
        if (isspace((unsigned char)*p)) continue;
        if (!isxdigit((unsigned char)*p)) return -1;
        int v = isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10;
        if (high < 0) { high = v; continue; }
        if (n == max) return -1;
        out[n++] = (unsigned char)(high << 4 | v);
        high = -1;
    }
    return high >= 0 ? -1 : (int)n;
}

static void usage(void) {
    fprintf(stderr, "usage: transmit-loop [-n N] [-w WARMUP] [-a APDU_HEX] [-s SW_HEX] [-t WAIT_S] LABEL READER_SUBSTRING\n");
    exit(2);
}

/* Finds the first reader whose name contains `want`, waiting until the deadline: pcscd may still be
 * starting (no service) or still loading the driver (no readers). */
static LONG find_reader(SCARDCONTEXT ctx, const char *want, char *name, size_t max, double deadline) {
    LONG rv;
    do {
        char *list = NULL;
        DWORD len = SCARD_AUTOALLOCATE;
        rv = SCardListReaders(ctx, NULL, (LPSTR)&list, &len);
        if (rv == SCARD_S_SUCCESS) {
            for (char *r = list; *r; r += strlen(r) + 1) {
                if (strstr(r, want) && strlen(r) < max) {
                    strcpy(name, r);
                    SCardFreeMemory(ctx, list);
                    return SCARD_S_SUCCESS;
                }
            }
            SCardFreeMemory(ctx, list);
            rv = SCARD_E_UNKNOWN_READER;
        }
        pause_ms(100);
    } while (now() < deadline);
    return rv;
}

int main(int argc, char **argv) {
    long count = 500, warmup = 20, wait_s = 20;
    const char *apdu_hex = "00A4040007A0000002471001";
    unsigned int expected_sw = 0x9000;
    int opt;
    while ((opt = getopt(argc, argv, "n:w:a:s:t:")) != -1) {
        switch (opt) {
        case 'n': count = strtol(optarg, NULL, 10); break;
        case 'w': warmup = strtol(optarg, NULL, 10); break;
        case 'a': apdu_hex = optarg; break;
        case 's': expected_sw = (unsigned int)strtoul(optarg, NULL, 16); break;
        case 't': wait_s = strtol(optarg, NULL, 10); break;
        default: usage();
        }
    }
    if (argc - optind != 2 || count <= 0 || warmup < 0 || wait_s <= 0 || expected_sw > 0xFFFF) usage();
    const char *label = argv[optind], *want = argv[optind + 1];
    unsigned char apdu[261 + 3];
    int apdu_len = parse_hex(apdu_hex, apdu, sizeof apdu);
    if (apdu_len < 4) { fprintf(stderr, "transmit-loop: bad APDU hex: %s\n", apdu_hex); return 2; }

    double deadline = now() + wait_s;
    SCARDCONTEXT ctx;
    LONG rv;
    /* pcscd may not have created its socket yet. */
    while ((rv = SCardEstablishContext(SCARD_SCOPE_SYSTEM, NULL, NULL, &ctx)) != SCARD_S_SUCCESS && now() < deadline)
        pause_ms(100);
    if (rv != SCARD_S_SUCCESS) {
        fprintf(stderr, "transmit-loop: SCardEstablishContext: %s (is pcscd running?)\n", pcsc_stringify_error(rv));
        return 2;
    }
    char reader[MAX_READERNAME + 1];
    rv = find_reader(ctx, want, reader, sizeof reader, deadline);
    if (rv != SCARD_S_SUCCESS) {
        fprintf(stderr, "transmit-loop: no reader containing \"%s\" within %ld s: %s\n", want, wait_s, pcsc_stringify_error(rv));
        SCardReleaseContext(ctx);
        return 2;
    }
    SCARDHANDLE card;
    DWORD protocol = 0;
    /* The card may not be seen as present until pcscd's first presence poll. */
    while ((rv = SCardConnect(ctx, reader, SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1, &card, &protocol))
               != SCARD_S_SUCCESS && now() < deadline)
        pause_ms(100);
    if (rv != SCARD_S_SUCCESS) {
        fprintf(stderr, "transmit-loop: SCardConnect(\"%s\"): %s\n", reader, pcsc_stringify_error(rv));
        SCardReleaseContext(ctx);
        return 2;
    }
    const SCARD_IO_REQUEST *pci = protocol == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : SCARD_PCI_T1;
    unsigned char answer[258 + 2];
    DWORD answer_len = 0;
    int status = 0;
    double start = 0;
    for (long i = -warmup; i < count; i++) {
        if (i == 0) start = now();
        answer_len = sizeof answer;
        rv = SCardTransmit(card, pci, apdu, (DWORD)apdu_len, NULL, answer, &answer_len);
        if (rv != SCARD_S_SUCCESS) {
            fprintf(stderr, "transmit-loop: SCardTransmit, %s APDU %ld: %s\n", i < 0 ? "warm-up" : "measured",
                    i < 0 ? i + warmup + 1 : i + 1, pcsc_stringify_error(rv));
            status = 1;
            break;
        }
        unsigned int sw = answer_len >= 2 ? (unsigned int)answer[answer_len - 2] << 8 | answer[answer_len - 1] : 0x10000;
        if (sw != expected_sw) {
            fprintf(stderr, "transmit-loop: %s APDU %ld: answer of %lu bytes with SW %04X, expected %04X\n",
                    i < 0 ? "warm-up" : "measured", i < 0 ? i + warmup + 1 : i + 1, (unsigned long)answer_len, sw, expected_sw);
            status = 1;
            break;
        }
    }
    double elapsed = now() - start;
    if (status == 0)
        printf("pcsc %s %ld APDUs %.3f s %.1f APDU/s (reader \"%s\", T=%d, answer %lu bytes)\n", label, count, elapsed,
               count / elapsed, reader, protocol == SCARD_PROTOCOL_T0 ? 0 : 1, (unsigned long)answer_len);
    SCardDisconnect(card, SCARD_LEAVE_CARD);
    SCardReleaseContext(ctx);
    return status;
}
