/* A minimal in-memory IFD handler (pcsc-lite IFDHandler API v3) for the pcsc-lite overhead
 * benchmark: one slot, a card that is always present, no I/O at all. Whatever SCardTransmit costs
 * through pcscd with this driver is pcsc-lite itself: the client library, the socket IPC to pcscd,
 * pcscd's dispatch and locking.
 *
 * The card answers like the simulator's ISO 7816 card does to the benchmark's APDU, so that both
 * sides move the same bytes: SELECT by DF name (00 A4 04 xx Lc NAME) → 6F (83 02 70 01) (84 NAME)
 * 90 00; anything else → 6D 00. The ATR is the simulator's, 3B 81 80 01 80 80 (T=1).
 *
 * Loaded by pcscd through a reader.conf file (see Benchmarks/pcsc/run.sh):
 *   FRIENDLYNAME "PCSC Memory IFD"
 *   DEVICENAME   memory
 *   LIBPATH      /path/to/libmemory-ifd.so
 * Build: gcc -O2 -shared -fPIC -o libmemory-ifd.so memory-ifd.c $(pkg-config --cflags libpcsclite) */
#include <ifdhandler.h>
#include <reader.h>
#include <string.h>

/* pcscd loads one instance of the driver per reader line unless TAG_IFD_SIMULTANEOUS_ACCESS says
 * otherwise; we say 1, so all state here belongs to the single reader (any Lun). */
static const UCHAR atr[] = {0x3B, 0x81, 0x80, 0x01, 0x80, 0x80};
static int powered = 0;

RESPONSECODE IFDHCreateChannelByName(DWORD Lun, LPSTR DeviceName) {
    (void)Lun; (void)DeviceName;
    powered = 0;
    return IFD_SUCCESS;
}

RESPONSECODE IFDHCreateChannel(DWORD Lun, DWORD Channel) {
    (void)Lun; (void)Channel;
    powered = 0;
    return IFD_SUCCESS;
}

RESPONSECODE IFDHCloseChannel(DWORD Lun) {
    (void)Lun;
    powered = 0;
    return IFD_SUCCESS;
}

static RESPONSECODE one_byte(PDWORD Length, PUCHAR Value, UCHAR v) {
    if (*Length < 1) return IFD_ERROR_INSUFFICIENT_BUFFER;
    *Length = 1;
    Value[0] = v;
    return IFD_SUCCESS;
}

RESPONSECODE IFDHGetCapabilities(DWORD Lun, DWORD Tag, PDWORD Length, PUCHAR Value) {
    (void)Lun;
    switch (Tag) {
    case TAG_IFD_ATR:
    case SCARD_ATTR_ATR_STRING:
        if (!powered) { *Length = 0; return IFD_SUCCESS; }
        if (*Length < sizeof atr) return IFD_ERROR_INSUFFICIENT_BUFFER;
        memcpy(Value, atr, sizeof atr);
        *Length = sizeof atr;
        return IFD_SUCCESS;
    case TAG_IFD_SIMULTANEOUS_ACCESS: return one_byte(Length, Value, 1);
    case TAG_IFD_SLOTS_NUMBER: return one_byte(Length, Value, 1);
    case TAG_IFD_THREAD_SAFE: return one_byte(Length, Value, 0);
    case TAG_IFD_SLOT_THREAD_SAFE: return one_byte(Length, Value, 0);
    default:
        /* Among others TAG_IFD_POLLING_THREAD_WITH_TIMEOUT: without it pcscd polls IFDHICCPresence. */
        *Length = 0;
        return IFD_ERROR_TAG;
    }
}

RESPONSECODE IFDHSetCapabilities(DWORD Lun, DWORD Tag, DWORD Length, PUCHAR Value) {
    (void)Lun; (void)Tag; (void)Length; (void)Value;
    return IFD_NOT_SUPPORTED;
}

RESPONSECODE IFDHSetProtocolParameters(DWORD Lun, DWORD Protocol, UCHAR Flags, UCHAR PTS1, UCHAR PTS2, UCHAR PTS3) {
    (void)Lun; (void)Flags; (void)PTS1; (void)PTS2; (void)PTS3;
    return Protocol == SCARD_PROTOCOL_T1 ? IFD_SUCCESS : IFD_PROTOCOL_NOT_SUPPORTED;
}

RESPONSECODE IFDHPowerICC(DWORD Lun, DWORD Action, PUCHAR Atr, PDWORD AtrLength) {
    (void)Lun;
    switch (Action) {
    case IFD_POWER_UP:
    case IFD_RESET:
        powered = 1;
        memcpy(Atr, atr, sizeof atr);
        *AtrLength = sizeof atr;
        return IFD_SUCCESS;
    case IFD_POWER_DOWN:
        powered = 0;
        *AtrLength = 0;
        return IFD_SUCCESS;
    default:
        *AtrLength = 0;
        return IFD_NOT_SUPPORTED;
    }
}

RESPONSECODE IFDHTransmitToICC(DWORD Lun, SCARD_IO_HEADER SendPci, PUCHAR TxBuffer, DWORD TxLength, PUCHAR RxBuffer,
                               PDWORD RxLength, PSCARD_IO_HEADER RecvPci) {
    (void)Lun;
    DWORD capacity = *RxLength;
    *RxLength = 0;
    if (!powered) return IFD_ICC_NOT_PRESENT;
    if (RecvPci) RecvPci->Protocol = SendPci.Protocol;
    UCHAR answer[2 + 4 + 2 + 255 + 2];
    DWORD n = 0;
    /* SELECT by DF name with a short Lc that covers the data: 6F L 83 02 70 01 84 Lc NAME 90 00. */
    if (TxLength >= 5 && TxBuffer[0] == 0x00 && TxBuffer[1] == 0xA4 && TxBuffer[2] == 0x04 && TxBuffer[4] > 0
        && TxBuffer[4] <= 16 && TxLength >= 5u + TxBuffer[4]) {
        DWORD lc = TxBuffer[4];
        answer[n++] = 0x6F;
        answer[n++] = (UCHAR)(4 + 2 + lc);
        answer[n++] = 0x83; answer[n++] = 0x02; answer[n++] = 0x70; answer[n++] = 0x01;
        answer[n++] = 0x84; answer[n++] = (UCHAR)lc;
        memcpy(answer + n, TxBuffer + 5, lc);
        n += lc;
        answer[n++] = 0x90; answer[n++] = 0x00;
    } else {
        answer[n++] = 0x6D; answer[n++] = 0x00;
    }
    if (capacity < n) return IFD_ERROR_INSUFFICIENT_BUFFER;
    memcpy(RxBuffer, answer, n);
    *RxLength = n;
    return IFD_SUCCESS;
}

RESPONSECODE IFDHControl(DWORD Lun, DWORD dwControlCode, PUCHAR TxBuffer, DWORD TxLength, PUCHAR RxBuffer,
                         DWORD RxLength, LPDWORD pdwBytesReturned) {
    (void)Lun; (void)dwControlCode; (void)TxBuffer; (void)TxLength; (void)RxBuffer; (void)RxLength;
    *pdwBytesReturned = 0;
    return IFD_ERROR_NOT_SUPPORTED;
}

RESPONSECODE IFDHICCPresence(DWORD Lun) {
    (void)Lun;
    return IFD_ICC_PRESENT;
}
