import CardFlow
import CardFlowCCIDProtocol
import CardFlowDaemon
import CardFlowNDEF
import Foundation

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// Writes the seed corpus (Fuzz/Corpus/<target>/): small valid inputs, made with the package's
/// own encoders and from the reader dumps in Tests/Fixtures, so every target starts from inputs
/// that reach deep into its decoder. Run by Scripts/fuzz.sh --seeds.
enum SeedWriter {
    static func write(to corpus: URL, repository: URL) throws {
        var seeds: [String: [[UInt8]]] = [:]
        let atrs: [[UInt8]] = [
            atr([
                0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03, 0x00, 0x00,
                0x00, 0x00,
            ]),
            atr([
                0x3B, 0xDA, 0x18, 0xFF, 0x81, 0xB1, 0xFE, 0x75, 0x1F, 0x03, 0x00, 0x31, 0xC5, 0x73, 0xC0, 0x01, 0x40,
                0x00, 0x90, 0x00,
            ]),
            atr([0x3B, 0x81, 0x80, 0x01, 0x80]),
            [0x3B, 0x02, 0x14, 0x50],
            atr([0x3B, 0xF8, 0x13, 0x00, 0x00, 0x81, 0x31, 0xFE, 0x15, 0x59, 0x75, 0x62, 0x69, 0x6B, 0x65, 0x79, 0x34]),
        ]
        seeds["atr"] = atrs

        seeds["ccid-response"] = [
            CCIDResponse(
                slot: 0, sequence: 1, state: CCIDSlotState(rawValue: 0),
                kind: .dataBlock(chainParameter: 0, data: atrs[1])),
            CCIDResponse(
                slot: 0, sequence: 2, state: CCIDSlotState(rawValue: 0),
                kind: .dataBlock(chainParameter: 0, data: [0x90, 0x00])),
            CCIDResponse(
                slot: 0, sequence: 3, state: CCIDSlotState(rawValue: 0x80), errorCode: 2,
                kind: .dataBlock(chainParameter: 0, data: [])),
            CCIDResponse(slot: 0, sequence: 4, state: CCIDSlotState(rawValue: 1), kind: .slotStatus(clockStatus: 0)),
            CCIDResponse(slot: 0, sequence: 5, state: CCIDSlotState(rawValue: 0), kind: .parameters(.defaultT1)),
            CCIDResponse(slot: 0, sequence: 6, state: CCIDSlotState(rawValue: 0), kind: .escape([0x01, 0x02])),
            CCIDResponse(
                slot: 0, sequence: 7, state: CCIDSlotState(rawValue: 0),
                kind: .dataRateAndClockFrequency(clockFrequency: 4000, dataRate: 10752)),
        ].map { $0.encoded() }

        seeds["ccid-command"] = [
            CCIDCommand(slot: 0, sequence: 0, kind: .iccPowerOn(.automatic)),
            CCIDCommand(
                slot: 0, sequence: 1,
                kind: .xfrBlock(
                    blockWaitingTimeMultiplier: 0, levelParameter: 0,
                    data: [0x00, 0xA4, 0x04, 0x00, 0x02, 0x3F, 0x00, 0x00])),
            CCIDCommand(slot: 0, sequence: 2, kind: .setParameters(.defaultT1)),
            CCIDCommand(slot: 0, sequence: 3, kind: .getSlotStatus),
            CCIDCommand(slot: 0, sequence: 4, kind: .escape([0xFF, 0x00, 0x48, 0x00, 0x00])),
            CCIDCommand(slot: 0, sequence: 5, kind: .abort),
            CCIDCommand(slot: 0, sequence: 6, kind: .iccPowerOff),
        ].map { $0.encoded() }

        seeds["ccid-interrupt"] = [
            [0x00] + CCIDInterruptMessage.slotChange([.init(slot: 0, cardPresent: true, changed: true)]).encoded(),
            [0x03]
                + CCIDInterruptMessage.slotChange(
                    (0..<4).map { .init(slot: $0, cardPresent: $0 % 2 == 0, changed: true) }
                ).encoded(),
            [0x00] + CCIDInterruptMessage.hardwareError(slot: 0, sequence: 1, code: 1).encoded(),
        ]

        let fixtures = repository.appendingPathComponent("Tests/Fixtures/ccid-readers")
        let dumps = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted()
        var descriptors: Set<[UInt8]> = []
        var profiles: [[UInt8]] = []
        for (index, name) in dumps.enumerated() {
            let text = try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
            if index % 60 == 0 { profiles.append(Array(text.utf8)) }
            guard let profile = try? ReaderProfile(parsing: text) else { continue }
            for interface in profile.interfaces { descriptors.insert(descriptor(of: interface)) }
        }
        seeds["ccid-descriptor"] = descriptors.sorted { $0.lexicographicallyPrecedes($1) }
        seeds["reader-profile"] = profiles

        let command: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00]
        var blocks: [[UInt8]] = []
        for (index, checksum) in T1Checksum.allCases.enumerated() {
            for block in [
                T1Block(kind: .information(sendSequence: 0, more: false), information: command),
                T1Block(kind: .receiveReady(sequence: 1, error: .none)),
                T1Block(kind: .supervisory(.waitingTimeExtension, isResponse: false), information: [2]),
                T1Block(kind: .supervisory(.ifs, isResponse: true), information: [0xFE]),
            ] {
                blocks.append([UInt8(index)] + (try block.encoded(checksum: checksum)))
            }
        }
        seeds["t1-block"] = blocks
        // Host seeds: LRC, IFSC 32, IFSD 32, limits, then a command and the card's framed answers.
        let answer: [UInt8] = [0x6F, 0x00, 0x90, 0x00]
        seeds["t1-host"] = [
            [0x00, 32, 32, 3, 2, 0xFF, 0x00, 4] + command.prefix(9) + [2, 0x00] + answer,
            [0x00, 4, 32, 3, 2, 0xFF, 0x00, 8] + command + command.prefix(4) + [0, 0x90, 0, 0x00, 2, 0x00] + answer,
            [0x00, 32, 32, 3, 2, 0xFF, 0x00, 4] + command.prefix(9) + [1, 0xC3, 0x02, 0, 0xFF, 0xFF, 2, 0x00] + answer,
            [0x01, 32, 32, 3, 2, 0xFF, 0x01, 0xFE, 1, 0xE1, 0xFE, 0, 0xFF],
            [0x00, 32, 32, 3, 2, 0xFF, 0x02, 0, 0xE0],
        ]

        seeds["command-apdu"] = [
            command, [0x00, 0xB0, 0x00, 0x00, 0x0F], [0x00, 0x84, 0x00, 0x00], [0x90, 0x60, 0x00, 0x00, 0x00],
            [0x00, 0xD6, 0x00, 0x00, 0x00, 0x01, 0x00] + [UInt8](repeating: 0xAB, count: 256) + [0x00, 0x00],
            Array("00A40400 07 D2760000850101 00".utf8),
        ]
        seeds["response-apdu"] = [
            [0x90, 0x00], [0x6F, 0x10, 0x84, 0x08, 0x90, 0x00], [0x61, 0x10], [0x6C, 0x08],
            [0x91, 0xAF], Array("6F 00 90 00".utf8),
        ]

        let uri = URIRecord("https://example.com/welcome")
        let text = try TextRecord("hello", language: "en")
        let poster = SmartPosterRecord(uri: uri, titles: [text])
        let mime = try MIMERecord(mediaType: "text/plain", data: Array("data".utf8))
        let messages = [
            try NDEFMessage([uri.record]).encoded(),
            try NDEFMessage([text.record, mime.record]).encoded(),
            try NDEFMessage([poster.record]).encoded(),
            try NDEFMessage([mime.record]).encoded(chunkSize: 2),
            try NDEFMessage([NDEFRecord(tnf: .external, type: Array("example.com:t".utf8), payload: [1, 2])]).encoded(),
        ]
        seeds["ndef-message"] = messages
        seeds["ndef-tlv"] = [
            [0x03, UInt8(messages[0].count)] + messages[0] + [0xFE],
            [0x01, 0x03, 0xA0, 0x10, 0x44, 0x00, 0x03, UInt8(messages[1].count)] + messages[1] + [0xFE],
            [0x03, 0xFF, 0x00, UInt8(messages[2].count)] + messages[2] + [0xFE, 0x00],
            [0x03, 0x00, 0xFE],
        ]
        seeds["type4-cc"] = [
            [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x04, 0x00, 0x00, 0x00],
            [0x00, 0x0F, 0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0x04, 0x06, 0xE1, 0x04, 0x00, 0x32, 0x00, 0xFF],
        ]
        let uid: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0xE0]
        seeds["iso15693-system-info"] = [
            [0x0F] + uid + [0x00, 0x00, 0x1B, 0x03, 0x01],
            [0x04] + uid + [0xFF, 0x1F],
            [0x0C] + uid + [0x3F, 0x07, 0x02],
        ]
        seeds["relay-message"] = [
            #"{"v":1,"type":"apdu","id":1,"apdu":"00A4040007D276000085010100"}"#,
            #"{"v":1,"type":"progress","fraction":0.5}"#,
            #"{"v":1,"type":"done","message":"synced"}"#,
            #"{"v":1,"type":"failed","reason":"no"}"#,
        ].map { Array($0.utf8) }

        // AN12196 §3.4: enciphered PICCData with an empty and a text MAC input and file data, and
        // a plain mirror (mode byte, file data blocks, fields; NTAG424Fuzzing.sunMessage's layout).
        seeds["sun-message"] = [
            [0, 0] + hex("EF963FF7828658A599F3041510671E88") + hex("94EED9EE65337086"),
            [0, 1] + hex("FD91EC264309878BE6345CBE53BADF40") + hex("CEE9A53E3E463EF1F459635736738962")
                + hex("ECC1E7F6C6C73BF6") + Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8),
            [1, 0] + hex("041E3C8A2D6B80") + hex("000006") + hex("4B00064004B0B3D3"),
        ]
        // AN12196 Table 7's answer, a file without SDM, and a plain mirror with a read limit.
        seeds["ntag424-file-settings"] = [
            hex("0040EEEE000100D1FE001F00004400004400002000006A0000"),
            hex("00033030800000"),
            hex("0040E0EE000100E1FEEF100000300000A08601"),
        ]

        // uFR COM replies from ufr.md (chunk-size byte first): reader type with EXT, APDU ACK +
        // RSP, NO_CARD, the HTTP example's card ID behind the bootloader's bytes, FREE_MEM.
        seeds["ufr-frames"] = [
            [0] + hex("DE10ED05 00002D 2100 15D1EC"),
            [3] + hex("AC94CA0E00CC37 DE94ED030000AB 900097"),
            [6] + hex("EC08CE00000031"),
            [1] + hex("035555BB DE7CED0B08044F 52DAD995000000000000CB"),
            [15] + hex("DE8DED090000BE B90B0A00E8030000 5A"),
        ]
        // Discovery answers (ufr.md §1.3): the vendor's example, with pyuFR's serial tail, cut short.
        seeds["ufr-discovery"] = [
            hex("C0A80105 B122 54 00C20100 B222 55 90D00300"),
            hex("C0A80105 B122 54 00C20100 B222 55 90D00300 0B 4F4E313233343536 00"),
            hex("C0A80105 B122 54 00C20100 B222 55 90D003"),
        ]

        let configuration = try String(
            contentsOf: repository.appendingPathComponent("Examples/cardd/cardd.example.json"), encoding: .utf8)
        seeds["daemon-config"] = [Array(configuration.utf8), Array(#"{"readers":["sim:desfire"],"rules":[]}"#.utf8)]
        let requests = [
            #"{"op":"readers","id":1}"#,
            #"{"op":"submit","id":2,"reader":"sim0","flow":{"kind":"apdu","apdus":["00A4040000"],"expect":"9000"}}"#,
            #"{"op":"submit","id":"x","reader":"sim0","follow":true,"flow":{"kind":"ndef-write","uri":"https://example.com"}}"#,
            #"{"op":"job","job":3}"#,
        ]
        seeds["control-line"] = [
            [0xFF]
                + requests.flatMap { line -> [UInt8] in
                    let bytes = Array((line + "\n").utf8); return [UInt8(min(bytes.count, 255))] + bytes.prefix(255)
                },
            [0x10, 0x05] + Array("{}\r\n\n".utf8) + [0x20] + Array(String(repeating: "x", count: 31).utf8 + [0x0A]),
        ]
        seeds["key-store"] = [
            #"{"format":1,"keys":[{"algorithm":"aes128","key":"00112233445566778899AABBCCDDEEFF","slot":0,"version":2}],"secrets":[{"name":"ton.hmac.04A1B2C3","value":"0011"}]}"#,
            #"{"format":1,"keys":[],"secrets":[]}"#,
        ].map { Array($0.utf8) }

        let commands: [[UInt8]] = [
            command, [0x00, 0xB0, 0x00, 0x00, 0x0F], [0x30, 0x04], [0x90, 0x60, 0x00, 0x00, 0x00],
        ]
        let tail: [UInt8] = [0] + commands.flatMap { [UInt8($0.count)] + $0 }
        seeds["card-state"] = try [
            [0] + state(NDEFType2Tag(message: messages[0])), [1] + state(NDEFType4Tag(message: messages[1])),
            [2] + state(SimulatedISO15693Tag()), [3] + state(ISO7816Card()), [4] + state(DESFireCard(seed: 1)),
            [5] + state(SimulatedTONCard(seed: 1)),
        ].map { $0 + tail }

        for (target, inputs) in seeds {
            let folder = corpus.appendingPathComponent(target)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (index, input) in inputs.enumerated() {
                try Data(input).write(to: folder.appendingPathComponent(String(format: "seed-%03d", index)))
            }
            print("\(target): \(inputs.count) seeds")
        }
    }

    /// Appends the right TCK to an ATR that needs one.
    private static func atr(_ bytes: [UInt8]) -> [UInt8] {
        bytes + [bytes.dropFirst().reduce(0, ^)]
    }

    private static func state<Card: PersistentVirtualCard>(_ card: Card) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(
            try encoder.encode(
                CardStateEnvelope(format: CardStateStore.formatVersion, kind: Card.persistentKind, card: card)))
    }

    private static func descriptor(of interface: ReaderInterfaceProfile) -> [UInt8] {
        CCIDClassDescriptor(
            bcdCCID: interface.bcdCCID, maxSlotIndex: interface.bMaxSlotIndex,
            voltageSupport: interface.bVoltageSupport,
            protocols: CCIDProtocols(rawValue: interface.dwProtocols), defaultClock: interface.dwDefaultClock,
            maximumClock: interface.dwMaximumClock, numClockSupported: interface.bNumClockSupported,
            dataRate: interface.dwDataRate, maxDataRate: interface.dwMaxDataRate,
            numDataRatesSupported: interface.bNumDataRatesSupported, maxIFSD: interface.dwMaxIFSD,
            synchProtocols: interface.dwSynchProtocols, mechanical: interface.dwMechanical,
            features: CCIDFeatures(rawValue: interface.dwFeatures), maxMessageLength: interface.dwMaxCCIDMessageLength,
            classGetResponse: interface.bClassGetResponse, classEnvelope: interface.bClassEnvelope,
            lcdLayout: interface.wLcdLayout, pinSupport: interface.bPINSupport,
            maxBusySlots: interface.bMaxCCIDBusySlots
        ).encoded()
    }
}

/// Seed bytes from hex text written in this file (a typo traps while writing seeds, never in a fuzz run).
private func hex(_ text: String) -> [UInt8] { try! [UInt8](hex: text) }
