/* The C side of Benchmarks/pcsc-backend/run.sh: connect (shared, T=0|T=1) to the first reader
 * whose name contains a substring, then SCardTransmit the same APDU N times, checking each SW.
 * Its Swift twin is TransmitLoop/main.swift (PCSCCardConnection); both print one line:
 *   c N APDUs SECONDS s RATE APDU/s
 * Usage: transmit-loop [-n N] [-w WARMUP] READER_SUBSTRING     Exit: 0 ok, 1 bad answer, 2 setup. */
#include <winscard.h>
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

int main(int argc, char **argv) {
    long count = 2000, warmup = 50;
    int opt;
    while ((opt = getopt(argc, argv, "n:w:")) != -1) {
        if (opt == 'n') count = strtol(optarg, NULL, 10);
        else if (opt == 'w') warmup = strtol(optarg, NULL, 10);
        else return 2;
    }
    if (argc - optind != 1 || count <= 0 || warmup < 0) {
        fprintf(stderr, "usage: transmit-loop [-n N] [-w WARMUP] READER_SUBSTRING\n");
        return 2;
    }
    /* SELECT A0000002471001 with Le: the simulated ISO 7816 card answers its FCI + 90 00. */
    static const unsigned char apdu[] = {0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01, 0x00};
    SCARDCONTEXT ctx;
    LONG rv = SCardEstablishContext(SCARD_SCOPE_SYSTEM, NULL, NULL, &ctx);
    if (rv != SCARD_S_SUCCESS) { fprintf(stderr, "transmit-loop: SCardEstablishContext: %s\n", pcsc_stringify_error(rv)); return 2; }
    char readers[4096], *reader = NULL;
    DWORD length = sizeof readers;
    rv = SCardListReaders(ctx, NULL, readers, &length);
    for (char *r = readers; rv == SCARD_S_SUCCESS && *r; r += strlen(r) + 1)
        if (strstr(r, argv[optind])) { reader = r; break; }
    if (!reader) { fprintf(stderr, "transmit-loop: no reader containing \"%s\"\n", argv[optind]); return 2; }
    SCARDHANDLE card;
    DWORD protocol;
    rv = SCardConnect(ctx, reader, SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1, &card, &protocol);
    if (rv != SCARD_S_SUCCESS) { fprintf(stderr, "transmit-loop: SCardConnect: %s\n", pcsc_stringify_error(rv)); return 2; }
    const SCARD_IO_REQUEST *pci = protocol == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : SCARD_PCI_T1;
    unsigned char answer[MAX_BUFFER_SIZE_EXTENDED];
    double start = 0;
    for (long i = -warmup; i < count; i++) {
        if (i == 0) start = now();
        DWORD answer_length = sizeof answer;
        rv = SCardTransmit(card, pci, apdu, sizeof apdu, NULL, answer, &answer_length);
        if (rv != SCARD_S_SUCCESS || answer_length < 2 || answer[answer_length - 2] != 0x90 || answer[answer_length - 1] != 0x00) {
            fprintf(stderr, "transmit-loop: APDU %ld: %s, %lu bytes\n", i, pcsc_stringify_error(rv), (unsigned long)answer_length);
            return 1;
        }
    }
    double elapsed = now() - start;
    printf("c %ld APDUs %.3f s %.1f APDU/s\n", count, elapsed, count / elapsed);
    SCardDisconnect(card, SCARD_LEAVE_CARD);
    SCardReleaseContext(ctx);
    return 0;
}
