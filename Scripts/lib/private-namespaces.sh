# Sourced by the checks that run pcscd beside the system's (Scripts/vpcd-check.sh,
# Scripts/partners-check.sh): private mount and network namespaces, so their pcscd gets its own
# /run/pcscd and vpcd's ports exist only on the namespace's loopback.

# run_in_private_namespaces NAME LOGS COMMAND...: runs COMMAND in fresh mount and network
# namespaces (mapped to root for an unprivileged user) with LOGS (a new temporary folder named
# after NAME when empty, removed afterwards) as its last argument, and exits with its status.
run_in_private_namespaces() {
    local name="$1" logs="$2" keep=1 status=0
    shift 2
    if [[ -z "$logs" ]]; then
        logs=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
        keep=0
    fi
    mkdir -p "$logs"
    local namespaces=(--mount --net --propagation private)
    [[ "$(id -u)" -ne 0 ]] && namespaces+=(--map-root-user)
    unshare "${namespaces[@]}" "$@" "$logs" || status=$?
    if [[ $keep == 0 ]]; then rm -rf "$logs"; else echo "logs: $logs"; fi
    exit "$status"
}

# private_loopback_and_pcscd_socket: inside the namespaces, brings the loopback up and mounts a
# tmpfs over /run/pcscd; returns non-zero when the mount fails.
private_loopback_and_pcscd_socket() {
    ip link set lo up
    mkdir -p /run/pcscd 2>/dev/null || true
    mount -t tmpfs -o mode=0755 tmpfs /run/pcscd
}

# write_vpcd_reader_conf FOLDER: a reader.conf.d in FOLDER with vsmartcard's vpcd driver
# (slots "Virtual PCD 00 00" on port 35963 and "Virtual PCD 00 01" on 35964).
write_vpcd_reader_conf() {
    mkdir -p "$1/reader.conf.d"
    cat >"$1/reader.conf.d/vpcd" <<'CONF'
FRIENDLYNAME "Virtual PCD"
DEVICENAME   /dev/null:0x8C7B
LIBPATH      /usr/lib/pcsc/drivers/serial/libifdvpcd.so
CHANNELID    0x8C7B
CONF
}
