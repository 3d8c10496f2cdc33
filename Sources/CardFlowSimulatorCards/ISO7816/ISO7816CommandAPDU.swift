/// A command APDU as an ISO/IEC 7816-4 (§5.1) card parses it (internal to the card models;
/// deliberately independent of the client's APDU types).
struct ISO7816CommandAPDU: Sendable, Hashable {
    let cla: UInt8
    let ins: UInt8
    let p1: UInt8
    let p2: UInt8
    /// Command data (empty when Lc is absent).
    let data: [UInt8]
    /// Ne, the maximum number of response bytes expected (`nil` when Le is absent;
    /// 256 for a short `Le = 00`, 65 536 for an extended `Le = 00 00`).
    let ne: Int?
    /// Whether Le was coded as zero ("as many as available, up to 256 / 65 536").
    let leIsMaximum: Bool
    /// Whether the APDU uses the extended length fields.
    let isExtended: Bool

    /// Parses the four ISO 7816-4 cases, short and extended; `nil` if the length fields are
    /// inconsistent with the number of bytes (wrong length, `67 00`).
    init?(parsing bytes: [UInt8]) {
        guard bytes.count >= 4 else { return nil }
        cla = bytes[0]; ins = bytes[1]; p1 = bytes[2]; p2 = bytes[3]
        let n = bytes.count
        if n == 4 { // case 1
            data = []; ne = nil; leIsMaximum = false; isExtended = false
            return
        }
        let b5 = Int(bytes[4])
        if n == 5 { // case 2 short
            data = []; ne = b5 == 0 ? 256 : b5; leIsMaximum = b5 == 0; isExtended = false
            return
        }
        if b5 != 0 { // short Lc
            let lc = b5
            if n == 5 + lc { // case 3 short
                data = Array(bytes[5..<n]); ne = nil; leIsMaximum = false; isExtended = false
                return
            }
            if n == 6 + lc { // case 4 short
                let le = Int(bytes[n - 1])
                data = Array(bytes[5..<(n - 1)]); ne = le == 0 ? 256 : le; leIsMaximum = le == 0
                isExtended = false
                return
            }
            return nil
        }
        // b5 == 00: extended length fields.
        guard n >= 7 else { return nil }
        let first = Int(bytes[5]) << 8 | Int(bytes[6])
        if n == 7 { // case 2 extended
            data = []; ne = first == 0 ? 65_536 : first; leIsMaximum = first == 0; isExtended = true
            return
        }
        let lc = first
        guard lc != 0 else { return nil }
        if n == 7 + lc { // case 3 extended
            data = Array(bytes[7..<n]); ne = nil; leIsMaximum = false; isExtended = true
            return
        }
        if n == 9 + lc { // case 4 extended
            let le = Int(bytes[n - 2]) << 8 | Int(bytes[n - 1])
            data = Array(bytes[7..<(n - 2)]); ne = le == 0 ? 65_536 : le; leIsMaximum = le == 0
            isExtended = true
            return
        }
        return nil
    }
}
