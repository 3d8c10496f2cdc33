#!/usr/bin/env bash
# Independent clients against CardFlow's simulated cards (issue 35): programs nobody here wrote
# reach cards that `cardctl export` serves through pcscd + vsmartcard's vpcd, and must agree with
# CardFlow about them.
#   pcsc_scan   (pcsc-tools) names each exported card from its ATR (smartcard_list.txt);
#   libfreefare (Debian's DESFire tools, through libnfc's pcsc driver: Scripts/libnfc-pcsc.sh)
#               reads a DESFire EV1's version, formats it, makes it an NFC Forum Type 4 tag,
#               writes an NDEF message built by ndeflib and reads it back, and runs the EV1
#               SetConfiguration tools (ATS, default key, random UID); through its API
#               (Scripts/partners/libfreefare-desfire-aes.c) it makes an AES application and
#               writes an enciphered and a MACed file that cardctl reads with the AES key, and
#               reads back the enciphered data cardctl writes;
#   PyPI desfire (pure Python over pyscard) lists the card's applications right after connecting,
#               and reads the Type 4 application's files: the bytes libfreefare wrote;
#   CardFlow    reads the same message with `cardctl ndef read`, through PC/SC and, after the
#               exporter was stopped with SIGTERM, from the card's saved state;
#   pyscard     (over pcsc-lite) reads vsmartcard's vicc card beside `cardctl --json`: the same ATR,
#               data and status words; and each failure pcsc-lite reports (empty reader, unknown
#               reader, no pcscd) is the category of cardctl's exit code
#               (Scripts/partners/cardctl-pyscard.py);
#   libnfc      (Debian's, driver acr122_usb over libusb 0.1) lists cards on the simulated ACR122U
#               (`cardctl simulate`, umockdev) through its PN532: ATQA, SAK and UID, a FeliCa IDm,
#               and nfc-scan-device names the chip (PN532 v1.6) with no card on the reader;
#               nfc-mfclassic reads and writes a MIFARE Classic 1K through the PN532's Crypto1;
#               libfreefare's mifare-desfire-info and mifare-ultralight-info run on that route too
#               (an Ultralight EV1 must not be taken for an Ultralight C), and its MIFARE Classic
#               tools format a Classic 1K and write and read an NDEF message on it;
#   nfcpy       (PyPI) senses an NTAG215 (Type 2) and an NDEF Type 4 tag through the same reader,
#               reads and writes their NDEF messages, which `cardctl ndef read` then finds in the
#               cards' saved states (Scripts/partners/nfcpy-acr122u.py);
#   pyftdi      (PyPI, pure Python over pyusb) drives the emulated FTDI chip of the simulated USB
#               uFR Nano (`cardctl simulate-ufr --usb`, umockdev): reads it as an FT232R, sets
#               1 000 000 8N1 and the 2 ms latency timer (read back), and exchanges uFR COM
#               frames it builds itself (GET_READER_TYPE, GET_SERIAL_NUMBER) with the reader
#               (Scripts/partners/pyftdi-ufr.py); `cardctl --reader ufr:usb:…` then reads the same
#               reader's identity through libftdi1.
# At the end a table gives each partner's passed checks.
#
# Everything runs in private mount and network namespaces (unshare), like Scripts/vpcd-check.sh.
#
# Usage: Scripts/partners-check.sh [--cardctl PATH] [--log DIR]
# Needs what Scripts/setup.sh installs (pcscd, pcsc-tools, vsmartcard-vpcd, libfreefare-bin,
# libnfc-bin, umockdev, python3-pyscard, PyPI desfire, nfcpy, pyftdi and ndeflib) and Scripts/libnfc-pcsc.sh's library.
# Exit status: 0 every check passed, 1 a check failed, 2 setup problem.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/private-namespaces.sh
source "$root/Scripts/lib/private-namespaces.sh"
pydeps="${CARDFLOW_PYDEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/cardflow/pydeps}"
vicc_module=/usr/lib/python3/site-packages/virtualsmartcard

if [[ "${1:-}" == "--inner" ]]; then
    cardctl="$2"; libnfc="$3"; logs="$4"
    pids=()
    cleanup() {
        for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
        for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    }
    trap cleanup EXIT
    declare -A passed=() total=()
    partners=(pcsc_scan libfreefare "PyPI desfire" CardFlow pyscard "libnfc acr122_usb" nfcpy pyftdi)
    table() {
        echo "| partner | checks passed |"
        echo "|---|---|"
        for partner in "${partners[@]}"; do echo "| $partner | ${passed[$partner]:-0}/${total[$partner]:-0} |"; done
    }
    fail() {
        echo "partners-check: FAIL: $*" >&2
        for log in "$logs"/*.log; do
            [[ -s "$log" ]] && { echo "--- $(basename "$log") (last 20 lines)" >&2; tail -n 20 "$log" >&2; }
        done
        table >&2
        exit 1
    }
    check() {  # partner, what: counts one check of the partner as started
        total[$1]=$(( ${total[$1]:-0} + 1 ))
    }
    ok() {  # partner, what
        passed[$1]=$(( ${passed[$1]:-0} + 1 ))
        echo "ok: $1: $2"
    }
    export_card() {  # port, reader selector, log name: starts `cardctl export`, sets $exporter
        "$cardctl" --reader "$2" export --to "127.0.0.1:$1" >>"$logs/$3.log" 2>&1 &
        exporter=$!; pids+=("$exporter")
    }
    stop_export() {  # SIGTERM, as kill, timeout and systemd stop a process
        kill -TERM "$exporter" 2>/dev/null || true
        wait "$exporter" 2>/dev/null || true
    }
    wait_for_card() {  # reader name: until pcscd reports a card there
        for _ in $(seq 1 100); do
            printf 'reset\n' | timeout 10 scriptor -r "$1" >/dev/null 2>&1 && return 0
            sleep 0.2
        done
        fail "no card appeared on $1"
    }
    private_loopback_and_pcscd_socket || fail "cannot mount a private /run/pcscd"
    write_vpcd_reader_conf "$logs"
    start_pcscd() {  # log name
        pcscd --foreground --debug --apdu -c "$logs/reader.conf.d" >"$logs/$1.log" 2>&1 &
        pcscd_pid=$!; pids+=("$pcscd_pid")
    }
    stop_pcscd() {
        kill "$pcscd_pid" 2>/dev/null || true
        wait "$pcscd_pid" 2>/dev/null || true
    }
    slot0="Virtual PCD 00 00"
    slot1="Virtual PCD 00 01"

    # --- pcsc_scan names each exported card (smartcard_list.txt is pcsc-tools' own list). A
    # pcscd of its own for each card: vpcd takes a new card side only once it noticed that the
    # previous one left, which can take it longer than a check should wait.
    names=(
        "desfire|NXP DESFire"
        "classic1k|MIFARE Classic 1K"
        "classic4k|Mifare card with 4k EEPROM"
        "ntag215|Mifare Ultralight"
        "felica-lite-s|FeliCa"
    )
    for entry in "${names[@]}"; do
        card="${entry%%|*}"; name="${entry#*|}"
        check pcsc_scan
        start_pcscd "pcscd-$card"
        export_card 35964 "sim:$card" "export-$card"
        wait_for_card "$slot1"
        output=$(timeout 10 pcsc_scan -t 2 2>&1 | sed 's/\x1b\[[0-9;]*m//g' || true)
        stop_export
        stop_pcscd
        identified=$(echo "$output" | sed -n '/Possibly identified card/,/^ *Reader/p')
        echo "$identified" | grep -qi -- "$name" || fail "pcsc_scan did not name sim:$card \"$name\": $output"
        ok pcsc_scan "sim:$card is \"$(echo "$identified" | grep -i -m1 -- "$name" | sed 's/^[[:space:]]*//')\""
    done

    start_pcscd pcscd
    # --- libfreefare on a DESFire EV1 (state kept in a file, as a user's card would be).
    state="$logs/desfire.json"
    export_card 35964 "sim:desfire,state=$logs/configured.json" export-configured
    configured_exporter=$exporter
    export_card 35963 "sim:desfire,state=$state" export-desfire
    wait_for_card "$slot0"
    nfc() {  # libfreefare or libnfc tool and arguments, through libnfc's pcsc driver on $nfc_slot
        LD_LIBRARY_PATH="$libnfc" LIBNFC_AUTO_SCAN=false LIBNFC_DEVICE="pcsc:$nfc_slot" timeout 60 "$@"
    }
    nfc_slot="$slot0"
    check libfreefare
    output=$(nfc mifare-desfire-info 2>&1) || fail "mifare-desfire-info: $output"
    uid=$(echo "$output" | sed -n 's/^UID: *0x\([0-9a-f]*\).*/\1/p')
    echo "$output" | grep -q "Storage size: *0x1a (=8192 bytes)" && [[ ${#uid} == 14 ]] \
        || fail "mifare-desfire-info: expected an 8 KB EV1 with a 7-byte UID: $output"
    ok libfreefare "mifare-desfire-info: UID $uid, 8192 bytes, $(echo "$output" | grep -m1 'Free memory')"
    for tool in mifare-desfire-format mifare-desfire-create-ndef; do
        check libfreefare
        output=$(nfc "$tool" -y 2>&1) || fail "$tool -y: $output"
        ok libfreefare "$tool -y"
    done
    message=$(python3 -c 'import ndef; print(b"".join(ndef.message_encoder([ndef.UriRecord("https://cardflow.example/partners"), ndef.TextRecord("libfreefare wrote this", "en")])).hex().upper())')
    echo "$message" | xxd -r -p >"$logs/message.ndef"
    check libfreefare
    output=$(nfc mifare-desfire-write-ndef -y -i "$logs/message.ndef" 2>&1) || fail "mifare-desfire-write-ndef: $output"
    ok libfreefare "mifare-desfire-write-ndef: ${#message} hex digits built by ndeflib"
    check libfreefare
    rm -f "$logs/read.ndef"
    output=$(nfc mifare-desfire-read-ndef -y -o "$logs/read.ndef" 2>&1) || fail "mifare-desfire-read-ndef: $output"
    [[ "$(xxd -p "$logs/read.ndef" | tr -d '\n' | tr a-f A-F)" == "$message" ]] \
        || fail "mifare-desfire-read-ndef read $(xxd -p "$logs/read.ndef" | tr -d '\n'), not $message"
    ok libfreefare "mifare-desfire-read-ndef: the same message back"

    # --- PyPI desfire reads what libfreefare wrote. libnfc leaves the card as its last command
    # did (SCardDisconnect with LEAVE_CARD: inside the Type 4 application); the card is reset
    # first (scriptor's reset: SCardReconnect with RESET_CARD), as a new tap would activate it.
    printf 'reset\n' | timeout 10 scriptor -r "$slot0" >/dev/null 2>&1 || fail "scriptor could not reset the card"
    check "PyPI desfire"
    output=$(PYTHONPATH="$pydeps" timeout 60 /usr/bin/python3 "$root/Scripts/partners/desfire-pypi.py" "$slot0" "$message" 2>&1) \
        || fail "PyPI desfire: $output"
    echo "$output" | sed 's/^/  /'
    ok "PyPI desfire" "the Type 4 application's files hold libfreefare's message"

    # --- CardFlow reads it too: through PC/SC, then from the state saved at SIGTERM.
    ndef_text() { grep -c -e 'https://cardflow.example/partners' -e 'libfreefare wrote this'; }
    check CardFlow
    output=$("$cardctl" --reader "pcsc:$slot0" ndef read 2>&1) || fail "cardctl --reader pcsc ndef read: $output"
    [[ $(echo "$output" | ndef_text) == 2 ]] || fail "cardctl --reader pcsc ndef read: $output"
    ok CardFlow "cardctl --reader pcsc ndef read: both records libfreefare wrote"
    stop_export
    check CardFlow
    output=$("$cardctl" --reader "sim:desfire,state=$state" ndef read 2>&1) || fail "cardctl ndef read from the saved state: $output"
    [[ $(echo "$output" | ndef_text) == 2 ]] || fail "cardctl ndef read from the state saved at SIGTERM: $output"
    ok CardFlow "the card's state, saved when cardctl export got SIGTERM, holds the message"

    # --- libfreefare's EV1 SetConfiguration tools, on the second card (slot 1).
    exporter=$configured_exporter
    wait_for_card "$slot1"
    nfc_slot="$slot1"
    # mifare-desfire-access makes applications and formats the card at its end.
    check libfreefare
    output=$(nfc mifare-desfire-access 2>&1) || fail "mifare-desfire-access: $output"
    ok libfreefare "mifare-desfire-access"
    for tool in mifare-desfire-ev1-configure-ats mifare-desfire-ev1-configure-default-key mifare-desfire-ev1-configure-random-uid; do
        check libfreefare
        output=$(nfc "$tool" -y 2>&1) || fail "$tool -y: $output"
        ok libfreefare "$tool -y"
    done
    check libfreefare
    output=$(nfc mifare-desfire-info 2>&1) || fail "mifare-desfire-info after the configuration: $output"
    echo "$output" | grep -q "Use random UID: *yes" || fail "mifare-desfire-info does not report the random UID: $output"
    ok libfreefare "mifare-desfire-info: Use random UID: yes"
    stop_export

    # --- AES secure messaging (EV1 AuthenticateAES, CMAC chaining, CRC32, CBC encipherment)
    # between libfreefare and CardFlow, on a fresh card in slot 0: libfreefare makes an AES
    # application, changes its key (enciphered ChangeKey) and writes an enciphered and a MACed
    # file; cardctl reads both through PC/SC with that key and writes the enciphered file anew;
    # libfreefare reads what cardctl wrote (Scripts/partners/libfreefare-desfire-aes.c).
    cc -o "$logs/libfreefare-desfire-aes" "$root/Scripts/partners/libfreefare-desfire-aes.c" \
        $(pkg-config --cflags --libs libfreefare libnfc) || fail "building libfreefare-desfire-aes.c"
    aes_key=F0E1D2C3B4A5968778695A4B3C2D1E0F
    aes_hex() { python3 -c "import sys; print(bytes((i * int(sys.argv[1]) + int(sys.argv[2])) % 256 for i in range(int(sys.argv[3]))).hex().upper())" "$@"; }
    enc_data=$(aes_hex 37 5 48); mac_data=$(aes_hex 91 200 32); cardflow_data=$(aes_hex 13 77 64)
    zeros16=00000000000000000000000000000000
    export_card 35963 "sim:desfire,state=$logs/desfire-aes.json" export-desfire-aes
    wait_for_card "$slot0"
    nfc_slot="$slot0"
    check libfreefare
    output=$(nfc "$logs/libfreefare-desfire-aes" write "$aes_key" "$enc_data" "$mac_data" 2>&1) \
        || fail "libfreefare-desfire-aes write: $output"
    echo "$output" | grep -qx "wrote 1 $enc_data" && echo "$output" | grep -qx "wrote 2 $mac_data" \
        || fail "libfreefare-desfire-aes write: $output"
    ok libfreefare "AES application, enciphered ChangeKey, enciphered and MACed WriteData read back"
    printf 'reset\n' | timeout 10 scriptor -r "$slot0" >/dev/null 2>&1 || fail "scriptor could not reset the card"
    cardctl_aes() { "$cardctl" --reader "pcsc:$slot0" desfire "$1" --aid ABCDAB --key "$aes_key" "${@:2}"; }
    hex_of() { tr -d ' \n' | tr a-f A-F; }
    for entry in "1|$enc_data$zeros16|enciphered" "2|$mac_data|MACed"; do
        IFS='|' read -r file expected mode <<<"$entry"
        check CardFlow
        output=$(cardctl_aes read --file "$file" --hex 2>&1) || fail "cardctl desfire read --file $file: $output"
        [[ "$(echo "$output" | hex_of)" == "$expected" ]] \
            || fail "cardctl read file $file ($mode) as $(echo "$output" | hex_of), libfreefare wrote $expected"
        ok CardFlow "desfire read: the $mode file libfreefare wrote, with its AES key"
    done
    check CardFlow
    output=$(cardctl_aes write --file 1 --data "$cardflow_data" 2>&1) || fail "cardctl desfire write --file 1: $output"
    ok CardFlow "desfire write: 64 bytes into the enciphered file"
    check libfreefare
    output=$(nfc "$logs/libfreefare-desfire-aes" read "$aes_key" 2>&1) || fail "libfreefare-desfire-aes read (exit $?): $output"
    echo "$output" | grep -qx "read 1 $cardflow_data" && echo "$output" | grep -qx "read 2 $mac_data" \
        || fail "libfreefare read back $output; cardctl wrote $cardflow_data to file 1"
    ok libfreefare "enciphered and MACed ReadData: the bytes cardctl wrote"
    stop_export

    # --- cardctl's --json answers and exit codes against pyscard, on vsmartcard's vicc card in
    # slot 0: pyscard (over pcsc-lite) must read the ATR and answers cardctl prints, and each
    # failure pcsc-lite reports (empty reader, unknown reader, no pcscd) must be the category of
    # cardctl's exit code.
    pyscard_check() {  # mode, reader, APDUs...
        timeout 120 /usr/bin/python3 "$root/Scripts/partners/cardctl-pyscard.py" "$1" "$cardctl" "${@:2}" 2>&1
    }
    check pyscard
    output=$(pyscard_check absent "$slot0") || fail "cardctl against pyscard, no card: $output"
    echo "$output" | sed 's/^/  /'
    ok pyscard "an empty and an unknown reader: cardctl's exit code has pcsc-lite's category"
    PYTHONPATH="$vicc_module:$pydeps" vicc -t iso7816 -H 127.0.0.1 -P 35963 >>"$logs/vicc.log" 2>&1 &
    exporter=$!; pids+=("$exporter")
    wait_for_card "$slot0"
    check pyscard
    # SELECT MF, SELECT a DF vicc lacks, READ BINARY with no current EF, GET CHALLENGE.
    output=$(pyscard_check present "$slot0" 00A4000C023F00 00A4000C020123 00B0000004 0084000008) \
        || fail "cardctl against pyscard on vicc's card: $output"
    echo "$output" | sed 's/^/  /'
    ok pyscard "vicc's card: cardctl --json prints the ATR and answers pyscard read; --expect-sw exits 1"
    stop_export
    stop_pcscd
    check pyscard
    output=$(pyscard_check no-service "$slot0") || fail "cardctl against pyscard, no pcscd: $output"
    echo "$output" | sed 's/^/  /'
    ok pyscard "no pcscd: cardctl's exit code has pcsc-lite's category"

    # --- The simulated ACR122U over raw USB (`cardctl simulate`, umockdev): Debian's own libnfc
    # (its acr122_usb driver over libusb 0.1) and nfcpy (over libusb 1.0) drive the reader's PN532
    # themselves; libfreefare's tools ride on that libnfc. No pcscd in this path.
    acr122u="$root/Tests/Fixtures/ccid-readers/ACR122U_PICC.txt"
    on_acr122u() {  # card, command...: runs the command with the card on the simulated ACR122U
        local card="$1"; shift
        timeout 120 "$cardctl" simulate --reader-profile "$acr122u" --card "$card" -- "$@"
    }
    card_uid() {  # card: its UID as cardctl identifies it, lower-case hex pairs with two spaces
        "$cardctl" --reader "sim:$1" identify | sed -n 's/^UID: *//p' | sed 's/../&  /g; s/ *$//' | tr A-F a-f
    }
    for entry in "ntag213|00  44|00" "desfire|03  44|20" "classic1k|00  04|08"; do
        IFS='|' read -r card atqa sak <<<"$entry"
        check "libnfc acr122_usb"
        uid=$(card_uid "$card")
        output=$(on_acr122u "$card" nfc-list 2>&1) || fail "nfc-list with sim:$card on the ACR122U: $output"
        echo "$output" | grep -q "NFC device: ACS / ACR122U PICC Interface opened" \
            && echo "$output" | grep -q "ATQA (SENS_RES): $atqa" && echo "$output" | grep -q "UID (NFCID1): $uid" \
            && echo "$output" | grep -q "SAK (SEL_RES): $sak" \
            || fail "nfc-list with sim:$card: expected ATQA $atqa, UID $uid, SAK $sak: $output"
        ok "libnfc acr122_usb" "nfc-list: sim:$card is ATQA $atqa, SAK $sak, UID $uid"
    done
    check "libnfc acr122_usb"
    output=$(on_acr122u felica-lite-s nfc-list 2>&1) || fail "nfc-list with sim:felica-lite-s: $output"
    idm=$(card_uid felica-lite-s)
    echo "$output" | grep -q "ID (NFCID2): $idm" || fail "nfc-list with sim:felica-lite-s: expected IDm $idm: $output"
    ok "libnfc acr122_usb" "nfc-list: the FeliCa Lite-S at 212/424 kbps, IDm $idm"
    check "libnfc acr122_usb"
    output=$(on_acr122u none nfc-scan-device -v 2>&1) || fail "nfc-scan-device -v on the empty ACR122U: $output"
    echo "$output" | grep -q "chip: PN532 v1.6" || fail "nfc-scan-device -v does not report a PN532 v1.6: $output"
    ok "libnfc acr122_usb" "nfc-scan-device -v on the empty reader: chip: PN532 v1.6"
    check libfreefare
    output=$(on_acr122u desfire mifare-desfire-info 2>&1) || fail "mifare-desfire-info through acr122_usb: $output"
    echo "$output" | grep -q "Storage size: *0x1a (=8192 bytes)" || fail "mifare-desfire-info through acr122_usb: $output"
    ok libfreefare "mifare-desfire-info through libnfc's acr122_usb driver: 8192 bytes"
    check libfreefare
    uid=$(card_uid ultralight-ev1 | tr -d ' ')
    output=$(on_acr122u ultralight-ev1 mifare-ultralight-info 2>&1) || fail "mifare-ultralight-info: $output"
    echo "$output" | grep -q "Tag with UID $uid is a Mifare UltraLight" || fail "mifare-ultralight-info: expected UID $uid: $output"
    # libfreefare tells an Ultralight C by its answer to AUTHENTICATE 1A 00 through InCommunicateThru:
    # an EV1 NAKs it, and a PN532 checking CRCs reports that 4-bit NAK as a CRC error.
    echo "$output" | grep -q "UltraLightC" && fail "mifare-ultralight-info takes the Ultralight EV1 for an Ultralight C: $output"
    ok libfreefare "mifare-ultralight-info through acr122_usb: $(echo "$output" | grep -m1 'Tag with UID') (not a C)"

    # --- libnfc's nfc-mfclassic on a MIFARE Classic 1K: the PN532 runs Crypto1 itself
    # (InDataExchange 60/61 with the key and the UID, then READ 30 and WRITE A0); nfc-mfclassic
    # finds the transport key among its default keys. It reads the card into a dump, block 4 of
    # the dump is changed and written back, and CardFlow reads the change: from the card's saved
    # state, and with its own `cardctl classic` through the same simulated ACR122U. Debian's
    # nfc-mfclassic 1.8.0 writes only the first block of sectors 1-15 (its write_card loop writes
    # inside `is_first_block`) and counts 60 of 64 blocks: the same on a real card.
    classic_state="$logs/classic1k.json"
    check "libnfc acr122_usb"
    output=$(on_acr122u "classic1k,state=$classic_state" nfc-mfclassic r a u "$logs/classic.mfd" 2>&1) \
        || fail "nfc-mfclassic r a u: $output"
    echo "$output" | grep -q "Done, 64 of 64 blocks read" || fail "nfc-mfclassic did not read 64 blocks: $output"
    ok "libnfc acr122_usb" "nfc-mfclassic r: $(echo "$output" | grep -m1 'Done,')"
    pattern=4E46432D4D4643204C4942204E46432E
    echo "$pattern" | xxd -r -p | dd of="$logs/classic.mfd" bs=16 seek=4 conv=notrunc status=none
    check "libnfc acr122_usb"
    output=$(on_acr122u "classic1k,state=$classic_state" nfc-mfclassic w a u "$logs/classic.mfd" 2>&1) \
        || fail "nfc-mfclassic w a u: $output"
    echo "$output" | grep -q "Done, 60 of 64 blocks written" || fail "nfc-mfclassic did not write 60 blocks: $output"
    ok "libnfc acr122_usb" "nfc-mfclassic w: $(echo "$output" | grep -m1 'Done,')"
    check CardFlow
    output=$("$cardctl" --reader "sim:classic1k,state=$classic_state" classic read --block 4 2>&1) \
        || fail "cardctl classic read of nfc-mfclassic's block: $output"
    echo "$output" | tr -d ' ' | tr a-f A-F | grep -q "$pattern" || fail "cardctl classic read --block 4: $output"
    ok CardFlow "cardctl classic read: block 4 as nfc-mfclassic wrote it, from the saved state"
    check CardFlow
    output=$(on_acr122u "classic1k,state=$classic_state" "$cardctl" --reader usb classic read --block 4 --count 3 2>&1) \
        || fail "cardctl --reader usb classic read on the simulated ACR122U: $output"
    echo "$output" | tr -d ' ' | tr a-f A-F | grep -q "$pattern" || fail "cardctl --reader usb classic read: $output"
    ok CardFlow "cardctl --reader usb classic read through the simulated ACR122U: the same block"

    # --- libfreefare's MIFARE Classic tools on the same route: format a Classic 1K, make it an
    # NFC Forum MIFARE Classic tag (MAD, NFC keys) with an NDEF message built by ndeflib, read it
    # back; CardFlow's `cardctl classic ndef read` reads the same message from the saved card.
    classic_state="$logs/classic-ndef.json"
    check libfreefare
    output=$(on_acr122u "classic1k,state=$classic_state" mifare-classic-format -y 2>&1) || fail "mifare-classic-format -y: $output"
    echo "$output" | grep -q "Formatting 16 sectors .* done" || fail "mifare-classic-format -y: $output"
    ok libfreefare "mifare-classic-format -y through acr122_usb: 16 sectors"
    python3 -c 'import ndef, sys; sys.stdout.buffer.write(b"".join(ndef.message_encoder([ndef.TextRecord("libfreefare wrote this on a Classic", "en")])))' \
        >"$logs/classic.ndef"
    check libfreefare
    output=$(on_acr122u "classic1k,state=$classic_state" mifare-classic-write-ndef -y -i "$logs/classic.ndef" 2>&1) \
        || fail "mifare-classic-write-ndef: $output"
    ok libfreefare "mifare-classic-write-ndef: $(stat -c %s "$logs/classic.ndef") bytes built by ndeflib"
    check libfreefare
    rm -f "$logs/classic-read.ndef"
    output=$(on_acr122u "classic1k,state=$classic_state" mifare-classic-read-ndef -y -o "$logs/classic-read.ndef" 2>&1) \
        || fail "mifare-classic-read-ndef: $output"
    cmp -s "$logs/classic.ndef" "$logs/classic-read.ndef" || fail "mifare-classic-read-ndef did not read the message back: $output"
    ok libfreefare "mifare-classic-read-ndef: the same message back"
    check CardFlow
    output=$("$cardctl" --reader "sim:classic1k,state=$classic_state" classic ndef read 2>&1) \
        || fail "cardctl classic ndef read of libfreefare's message: $output"
    echo "$output" | grep -q 'text "libfreefare wrote this on a Classic"' || fail "cardctl classic ndef read: $output"
    ok CardFlow "cardctl classic ndef read: the message libfreefare's MIFARE Classic tools wrote"

    # --- libfreefare's value-block API (INCREMENT/DECREMENT/RESTORE and TRANSFER through the
    # PN532's InDataExchange) on a Classic 1K; CardFlow's `cardctl classic value` reads the
    # values from the saved card.
    check libfreefare
    value_state="$logs/classic-value.json"
    cc -o "$logs/libfreefare-classic-value" "$root/Scripts/partners/libfreefare-classic-value.c" \
        $(pkg-config --cflags --libs libfreefare libnfc) || fail "building libfreefare-classic-value.c"
    output=$(on_acr122u "classic1k,state=$value_state" "$logs/libfreefare-classic-value" 2>&1) \
        || fail "libfreefare value blocks: $output"
    for line in "init 5 100" "increment 5 250 -> 350" "decrement 5 50 -> 300" "restore 5 -> 6 300"; do
        echo "$output" | grep -qx "$line" || fail "libfreefare value blocks: expected '$line': $output"
    done
    ok libfreefare "mifare_classic_init_value/increment/decrement/restore/transfer through acr122_usb: 100 → 350 → 300, copied"
    check CardFlow
    output=$("$cardctl" --reader "sim:classic1k,state=$value_state" classic value --block 6 2>&1) \
        || fail "cardctl classic value of libfreefare's block: $output"
    echo "$output" | grep -q "block 6: value 300" || fail "cardctl classic value --block 6: $output"
    ok CardFlow "cardctl classic value reads the value libfreefare's RESTORE and TRANSFER left (300)"

    nfcpy() {  # card, arguments of Scripts/partners/nfcpy-acr122u.py
        local card="$1"; shift
        PYTHONPATH="$pydeps" on_acr122u "$card" /usr/bin/python3 "$root/Scripts/partners/nfcpy-acr122u.py" "$@" 2>&1
    }
    for entry in "ntag215|Type2Tag" "ndef4|Type4Tag"; do
        card="${entry%%|*}"; kind="${entry#*|}"
        state="$logs/nfcpy-$card.json"
        check nfcpy
        output=$(nfcpy "$card,state=$state" read "$kind") || fail "nfcpy reading sim:$card: $output"
        echo "$output" | grep -q "PN532v1.6" || fail "nfcpy did not see a PN532 v1.6: $output"
        ok nfcpy "reads sim:$card as a $kind ($(echo "$output" | grep -m1 '^tag:'))"
        check nfcpy
        text="nfcpy wrote this on a $kind"
        output=$(nfcpy "$card,state=$state" write "$kind" "$text") || fail "nfcpy writing sim:$card: $output"
        ok nfcpy "writes a text record on sim:$card and reads it back"
        check CardFlow
        output=$("$cardctl" --reader "sim:$card,state=$state" ndef read 2>&1) || fail "cardctl ndef read of nfcpy's message: $output"
        echo "$output" | grep -q "text \"$text\"" || fail "cardctl ndef read does not show nfcpy's record: $output"
        ok CardFlow "cardctl ndef read: the record nfcpy wrote on sim:$card"
    done

    # pyftdi on the simulated USB uFR Nano's FTDI chip, then CardFlow's ufr:usb on the same reader.
    check pyftdi
    output=$(PYTHONPATH="$pydeps" timeout 120 "$cardctl" simulate-ufr --usb --usb-serial UN246810 --card desfire \
        -- /usr/bin/python3 "$root/Scripts/partners/pyftdi-ufr.py" UN246810 2>&1) \
        || fail "pyftdi on the simulated USB uFR Nano: $output"
    echo "$output" | grep -q "^ok: GET_SERIAL_NUMBER UN246810" || fail "pyftdi did not read the reader's serial: $output"
    ok pyftdi "FT232R descriptors, 1000000 8N1, latency 2 ms, GET_READER_TYPE and GET_SERIAL_NUMBER ($(echo "$output" | grep -c '^ok:') checks)"
    check CardFlow
    output=$(timeout 120 "$cardctl" simulate-ufr --usb --usb-serial UN246810 --card desfire \
        -- sh -c '"$0" --reader "$CARDCTL_UFR_USB" list' "$cardctl" 2>&1) || fail "cardctl over ufr:usb: $output"
    echo "$output" | grep -q "UN246810" || fail "cardctl over ufr:usb does not name the reader: $output"
    ok CardFlow "cardctl --reader ufr:usb:UN246810 list (libftdi1) names the reader pyftdi talked to"

    echo
    table
    echo "partners-check: OK"
    exit 0
fi

cardctl="$root/.build/debug/cardctl"
logs=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --cardctl) cardctl="$2"; shift 2 ;;
        --log) logs="$2"; shift 2 ;;
        -h|--help) sed -n '2,35p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "partners-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for tool in pcscd pcsc_scan scriptor mifare-desfire-info mifare-ultralight-info nfc-list vicc unshare ip xxd python3; do
    command -v "$tool" >/dev/null || { echo "partners-check: $tool not found (Scripts/setup.sh installs what is needed)" >&2; exit 2; }
done
[[ -f /usr/lib/pcsc/drivers/serial/libifdvpcd.so ]] || { echo "partners-check: vpcd driver missing (apt-get install vsmartcard-vpcd)" >&2; exit 2; }
PYTHONPATH="$pydeps" /usr/bin/python3 -c 'import smartcard, desfire.protocol, nfc, pyftdi.ftdi' 2>/dev/null \
    || { echo "partners-check: pyscard, PyPI desfire, nfcpy or pyftdi missing for /usr/bin/python3 (Scripts/setup.sh installs them)" >&2; exit 2; }
python3 -c 'import ndef' 2>/dev/null || { echo "partners-check: ndeflib missing (Scripts/setup.sh installs it)" >&2; exit 2; }
libnfc=$(bash "$root/Scripts/libnfc-pcsc.sh") || exit 2
if [[ ! -x "$cardctl" ]]; then
    echo "partners-check: building cardctl" >&2
    (cd "$root" && swift build --product cardctl >&2) || exit 2
fi
run_in_private_namespaces partners-check "$logs" "$0" --inner "$cardctl" "$libnfc"
