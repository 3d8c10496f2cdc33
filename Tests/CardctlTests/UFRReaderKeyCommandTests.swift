import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import Foundation
import Testing

/// `cardctl --reader ufr:… desfire … --reader-key N` (issue 37): the seed app's DESFire workflow in
/// its "reader key" mode, where the simulated uFR Nano Online runs each operation itself with an
/// AES key from its key slots, and `cardctl ufr key-write` fills the slots. The data the reader
/// wrote are read back over CardFlow's own APDU path with the same key given in hex, so the
/// reader's secure messaging is checked by the card (written from the DESFire spec), not by the
/// reader's own read.
@Suite("cardctl over uFR: reader keys")
struct UFRReaderKeyCommandTests {
    static let applicationKey = "00112233445566778899AABBCCDDEEFF"
    static let piccKey = "F0E1D2C3B4A5968778695A4B3C2D1E0F"

    @Test(
        "the seed workflow with reader keys: key-write, DES to AES, format, app, key change, file, write, read",
        arguments: ["tcp", "udp"])
    func workflow(_ transport: String) async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 23)))
        defer { Task { await online.stop() } }
        let port = transport == "tcp" ? online.tcpPort : online.udpPort
        let reader = "ufr:\(transport):127.0.0.1:\(port)"
        func run(_ arguments: [String], input: String? = nil) async throws -> [String: Any] {
            let result = try await CardctlProcess.run(["--reader", reader] + arguments + ["--json"], input: input)
            #expect(result.status == 0, "\(arguments): \(result)")
            return try DESFireCommandTests.json(result.stdout)
        }
        _ = try await run(["ufr", "key-write", "3", "-"], input: Self.piccKey)
        _ = try await run(["ufr", "key-write", "4", "-"], input: Self.applicationKey)
        _ = try await run(["desfire", "des-to-aes", "--new-reader-key", "3"])
        _ = try await run(["desfire", "format", "--reader-key", "3"])
        _ = try await run(["desfire", "create-app", "--aid", "F00001", "--key-count", "2", "--reader-key", "3"])
        // The new application's master key is AES 16 x 00: reader slot 0 still holds the factory 16 x 00.
        _ = try await run(["desfire", "change-key", "--aid", "F00001", "--reader-key", "0", "--new-reader-key", "4"])
        _ = try await run([
            "desfire", "create-file", "--aid", "F00001", "--file", "1", "--size", "200", "--comm", "enc",
            "--access", "0000", "--reader-key", "4",
        ])
        // 180 bytes: two DESFIRE_WRITE_TO_STD_FILE commands (160 + 20).
        let data = (0..<180).map { String(format: "%02X", $0) }.joined()
        _ = try await run([
            "desfire", "write", "--aid", "F00001", "--file", "1", "--data", data, "--comm", "enc", "--reader-key", "4",
        ])
        let read = try await run([
            "desfire", "read", "--aid", "F00001", "--file", "1", "--length", "180", "--comm", "enc", "--reader-key",
            "4", "--hex",
        ])
        #expect(read["data"] as? String == data)
        // The same bytes over CardFlow's own secure messaging, with the key in hex.
        let apdu = try await run([
            "desfire", "read", "--aid", "F00001", "--file", "1", "--length", "180", "--key", Self.applicationKey,
            "--hex",
        ])
        #expect(apdu["data"] as? String == data)
        // And the PICC master key is now the AES key of slot 3.
        _ = try await run(["desfire", "format", "--key", Self.piccKey])
        #expect(await online.reader.isSessionOpen == false)
    }

    @Test("a wrong reader key is a card error naming KEY_AUTH_ERROR; a key on the command line is refused")
    func refusals() async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 24)))
        defer { Task { await online.stop() } }
        let reader = "ufr:tcp:127.0.0.1:\(online.tcpPort)"
        _ = try await CardctlProcess.run(["--reader", reader, "ufr", "key-write", "5", "-"], input: Self.piccKey)
        // The PICC master key is still DES 8 x 00: authenticating as AES with slot 5 fails on the card.
        let wrong = try await CardctlProcess.run(["--reader", reader, "desfire", "format", "--reader-key", "5"])
        #expect(wrong.status == 1, "\(wrong)")
        #expect(wrong.stderr.contains("KEY_AUTH_ERROR"), "\(wrong)")
        let onCommandLine = try await CardctlProcess.run([
            "--reader", reader, "ufr", "key-write", "5", Self.piccKey,
        ])
        #expect(
            onCommandLine.status == 2 && onCommandLine.stderr.contains("never taken from the command line"),
            "\(onCommandLine)")
        let badSlot = try await CardctlProcess.run(
            ["--reader", reader, "ufr", "key-write", "16", "-"], input: Self.piccKey)
        #expect(badSlot.status == 2, "\(badSlot)")
        let notUFR = try await CardctlProcess.run(["--reader", "sim:desfire", "desfire", "format", "--reader-key", "1"])
        #expect(notUFR.status == 2 && notUFR.stderr.contains("uFR"), "\(notUFR)")
    }

    @Test("ufr key-write takes the key from the key store")
    func keyFromStore() async throws {
        let online = try await SimulatedUFROnline.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 25)))
        defer { Task { await online.stop() } }
        let reader = "ufr:tcp:127.0.0.1:\(online.tcpPort)"
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("ufr-keys-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: store) }
        let set = try await CardctlProcess.run(
            ["key", "set", "7", "aes128", "-", "--key-store", store.path], input: Self.piccKey)
        #expect(set.status == 0, "\(set)")
        let write = try await CardctlProcess.run([
            "--reader", reader, "ufr", "key-write", "7", "--key-slot", "7", "--key-store", store.path,
        ])
        #expect(write.status == 0, "\(write)")
        // The slot holds the stored key: DES to AES with it, then format with the key in hex.
        let change = try await CardctlProcess.run([
            "--reader", reader, "desfire", "des-to-aes", "--new-reader-key", "7",
        ])
        #expect(change.status == 0, "\(change)")
        let format = try await CardctlProcess.run(["--reader", reader, "desfire", "format", "--key", Self.piccKey])
        #expect(format.status == 0, "\(format)")
    }
}
