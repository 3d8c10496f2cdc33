#!/usr/bin/env python3
"""pyftdi (PyPI, pure Python over pyusb and libusb-1.0) against the simulated USB uFR Nano.

Run by Scripts/partners-check.sh under `cardctl simulate-ufr --usb`, as the partner of the
emulated FTDI chip and of the simulated reader behind it: nothing of CardFlow's client is in
this path. It opens the device by its serial, reads what pyftdi makes of its descriptors (FT232R),
sets the line as Digital Logic's serial example does (1 000 000 bps, 8N1, no flow control,
latency timer 2 ms, RTS clear), reads the latency timer and the modem status back, and exchanges
uFR COM frames built here from the protocol document (ufr.md §2): GET_READER_TYPE and
GET_SERIAL_NUMBER, checking each answer's header, trailer, lengths and checksums.

    pyftdi-ufr.py SERIAL       prints one "ok: ..." line per check; exit 1 on the first failure
"""
import sys
import time

from pyftdi.ftdi import Ftdi


def checksum(data):
    value = 0
    for byte in data:
        value ^= byte
    return (value + 7) & 0xFF


def command(code):
    packet = [0x55, code, 0xAA, 0x00, 0x00, 0x00]
    return bytes(packet + [checksum(packet)])


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def exchange(ftdi, code, deadline=2.0):
    """Sends a command and reads the RSP packet and its RSP_EXT (pyftdi's read_data returns what
    has come, without the status bytes; loop to a deadline)."""
    ftdi.write_data(command(code))
    answer = b""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        answer += ftdi.read_data(256)
        if len(answer) >= 7 and len(answer) >= 7 + answer[3]:
            break
        time.sleep(0.002)
    if len(answer) < 7:
        fail(f"command {code:02X}: {len(answer)} bytes in {deadline} s: {answer.hex()}")
    packet, ext = answer[:7], answer[7:7 + answer[3]]
    if packet[0] != 0xDE or packet[1] != code or packet[2] != 0xED:
        fail(f"command {code:02X}: not an RSP for it: {answer.hex()}")
    if packet[6] != checksum(packet[:6]):
        fail(f"command {code:02X}: RSP checksum: {answer.hex()}")
    if len(ext) != packet[3] or (ext and ext[-1] != checksum(ext[:-1])):
        fail(f"command {code:02X}: RSP_EXT length or checksum: {answer.hex()}")
    return ext[:-1]


def main():
    serial = sys.argv[1]
    ftdi = Ftdi()
    ftdi.open(0x0403, 0x6001, serial=serial)
    print(f"ok: opened 0403:6001 serial {serial}")
    if ftdi.ic_name != "ft232r":
        fail(f"pyftdi reads the chip as {ftdi.ic_name}, not an FT232R")
    print(f"ok: pyftdi reads the descriptors as an {ftdi.ic_name} with {ftdi.fifo_sizes} FIFOs")
    ftdi.reset()
    ftdi.purge_buffers()
    ftdi.set_baudrate(1_000_000)
    ftdi.set_line_property(8, 1, "N")
    ftdi.set_flowctrl("")
    ftdi.set_latency_timer(2)
    ftdi.set_rts(False)
    if ftdi.get_latency_timer() != 2:
        fail(f"latency timer reads back {ftdi.get_latency_timer()}")
    status = ftdi.poll_modem_status()
    print(f"ok: line set (1000000 8N1, latency 2 ms read back, modem status {status:04x})")
    reader_type = exchange(ftdi, 0x10)
    value = int.from_bytes(reader_type, "little")
    if value != 0xD1180022:
        fail(f"GET_READER_TYPE {value:08X}, not D1180022 (uFR Nano Classic)")
    print(f"ok: GET_READER_TYPE {value:08X}")
    number = exchange(ftdi, 0x40).decode("ascii")
    if number != serial:
        fail(f"GET_SERIAL_NUMBER {number!r}, not the USB serial {serial!r}")
    print(f"ok: GET_SERIAL_NUMBER {number}")
    ftdi.close()


if __name__ == "__main__":
    main()
