import CardFlowCrypto

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Shared helpers of the NTAG 424 DNA card tests.
enum NTAG424Test {
    static let selectApplication = bytes("00A4040C07D276000085010100")
    static let zeroKey = [UInt8](repeating: 0, count: 16)

    /// Sends `command` (hex) and returns the answer as compact uppercase hex.
    static func send(_ card: inout SimulatedNTAG424Card, _ command: String) -> String {
        compact(card.process(bytes(command)))
    }

    static func compact(_ data: [UInt8]) -> String {
        hexString(data).replacingOccurrences(of: " ", with: "")
    }

    /// Expected answer as compact hex.
    static func hex(_ text: String) -> String { text.filter { !$0.isWhitespace }.uppercased() }

    /// An NDEF file holding one URI record (prefix 04, "https://") of `text`, NLEN first.
    static func uriFile(_ text: String) -> [UInt8] {
        let payload = [0x04] + Array(text.utf8)
        let record: [UInt8] = [0xD1, 0x01, UInt8(payload.count), 0x55] + payload
        return [0x00, UInt8(record.count)] + record
    }

    /// Byte offset in `file` where `marker` ends (the start of the value after it).
    static func offset(after marker: String, in file: [UInt8]) -> Int {
        let needle = Array(marker.utf8)
        for start in 0...(file.count - needle.count) where Array(file[start..<start + needle.count]) == needle {
            return start + needle.count
        }
        preconditionFailure("marker \(marker) not in file")
    }

    /// The ASCII text of `file` (zeros dropped) for readable comparisons.
    static func text(_ file: [UInt8]) -> String {
        String(decoding: file.filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
    }

    /// A test-side EV2 channel (the tests' own, from NT4H2421Gx §9.1) to build commands the
    /// application note does not print.
    struct Channel {
        var enc: [UInt8]
        var mac: [UInt8]
        var ti: [UInt8]
        var counter: UInt16

        private func iv(_ label: [UInt8], _ ctr: UInt16) -> [UInt8] {
            try! AES128Cipher(key: enc).encryptBlock(
                label + ti + [UInt8(ctr & 0xFF), UInt8(ctr >> 8)] + [UInt8](repeating: 0, count: 8))
        }

        private func macT(_ message: [UInt8]) -> [UInt8] {
            MACTruncation.ev2OddBytes(try! AESCMAC.mac(message, key: mac))
        }

        /// `90 ins 00 00 Lc header ‖ [E(data)] ‖ MACt 00`.
        func command(_ ins: UInt8, header: [UInt8], data: [UInt8] = [], full: Bool = true) -> [UInt8] {
            var body = header
            if full && !data.isEmpty {
                body += try! AES128Cipher(key: enc).encryptCBC(
                    BlockPadding.iso9797Method2(data, blockSize: 16), iv: iv([0xA5, 0x5A], counter))
            } else {
                body += data
            }
            let field = body + macT([ins, UInt8(counter & 0xFF), UInt8(counter >> 8)] + ti + body)
            return [0x90, ins, 0x00, 0x00, UInt8(field.count)] + field + [0x00]
        }

        /// The MAC an answer of the next counter value carries.
        func responseMAC(_ data: [UInt8] = []) -> [UInt8] {
            let next = counter + 1
            return macT([0x00, UInt8(next & 0xFF), UInt8(next >> 8)] + ti + data)
        }

        /// Deciphers an answer's data at the next counter value.
        func decipherResponse(_ cryptogram: [UInt8]) -> [UInt8] {
            let plain = try! AES128Cipher(key: enc).decryptCBC(cryptogram, iv: iv([0x5A, 0xA5], counter + 1))
            return BlockPadding.removingISO9797Method2(plain) ?? plain
        }
    }

    /// The session of AN12196 Table 14 (key 0, TI 9D00C4DF).
    static let table14 = Channel(
        enc: bytes("1309C877509E5A215007FF0ED19CA564"), mac: bytes("4C6626F5E72EA694202139295C7A7FC7"),
        ti: bytes("9D00C4DF"), counter: 0)

    /// A card authenticated as in AN12196 Table 14 (RndB and TI scripted), CmdCtr 0.
    static func cardAfterTable14(configuration: SimulatedNTAG424Card.Configuration = .init()) throws
        -> SimulatedNTAG424Card
    {
        var card = try SimulatedNTAG424Card(seed: 14, configuration: configuration)
        card.scriptedRandom = bytes("B9E2FC789B64BF237CCCAA20EC7E6E48 9D00C4DF")
        card.powerOn()
        _ = card.process(selectApplication)
        _ = card.process(bytes("9071000002000000"))
        _ = card.process(bytes("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00"))
        return card
    }
}
