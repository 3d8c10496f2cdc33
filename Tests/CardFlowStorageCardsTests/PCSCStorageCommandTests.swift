import CardFlow
import Testing

@testable import CardFlowStorageCards

/// Byte-exact frames, per reader family (sources in StorageReaderVariant's documentation).
@Suite("PC/SC part 3 storage commands")
struct PCSCStorageCommandTests {
    func encoded(_ command: CommandAPDU) -> [UInt8] { command.encoded() }

    @Test("the common part 3 frames")
    func commonFrames() throws {
        #expect(encoded(try PCSCStorageCommand.getUID()) == bytes("FFCA000000"))
        #expect(encoded(try PCSCStorageCommand.getATSHistoricalBytes()) == bytes("FFCA010000"))
        #expect(encoded(try PCSCStorageCommand.readBinary(block: 4)) == bytes("FFB0000410"))
        #expect(encoded(try PCSCStorageCommand.readBinary(block: 0x0104, length: 48)) == bytes("FFB0010430"))
        let data = (0..<16).map { UInt8($0) }
        #expect(
            encoded(try PCSCStorageCommand.updateBinary(block: 1, data: data))
                == bytes("FFD6000110 000102030405060708090A0B0C0D0E0F"))
        #expect(
            encoded(try PCSCStorageCommand.generalAuthenticate(block: 6, keyType: .a, keyNumber: 0x01))
                == bytes("FF860000050100066001"))
        #expect(
            try PCSCStorageCommand.obsoleteAuthenticate(block: 4, keyType: .b, keyNumber: 0x00)
                == bytes("FF880004 6100"))
    }

    @Test("ACS: LOAD KEYS P2 is a slot, authentication names the slot, value commands")
    func acsFrames() throws {
        let acs = StorageReaderVariant.lookup(vendorID: 0x072F, productID: 0x2200)
        #expect(acs == .acr122u && acs.family == .acs)
        #expect(
            encoded(try acs.loadKeys(.transport, keyType: .a, slot: 0x01, nonVolatile: false))
                == bytes("FF82000106FFFFFFFFFFFF"))
        #expect(encoded(try acs.authenticate(block: 4, keyType: .b, slot: 0x01)) == bytes("FF860000050100046101"))
        #expect(throws: StorageCardError.self) {
            try acs.loadKeys(.transport, keyType: .a, slot: 2, nonVolatile: false)
        }
        #expect(throws: StorageCardError.self) { try acs.loadKeys(.transport, keyType: .a, slot: 0, nonVolatile: true) }
        // ACR122U API §5.4 / AET62 manual: value MSB first.
        #expect(
            encoded(try PCSCStorageCommand.valueOperation(.store, block: 5, value: 100))
                == bytes("FFD7000505 0000000064"))
        #expect(
            encoded(try PCSCStorageCommand.valueOperation(.increment, block: 5, value: 1))
                == bytes("FFD7000505 0100000001"))
        #expect(
            encoded(try PCSCStorageCommand.valueOperation(.decrement, block: 5, value: -4))
                == bytes("FFD7000505 02FFFFFFFC"))
        #expect(encoded(try PCSCStorageCommand.restoreValue(from: 5, to: 6)) == bytes("FFD7000502 0306"))
        #expect(encoded(try PCSCStorageCommand.readValue(block: 5)) == bytes("FFB1000504"))
        #expect(acs.valueBlockCommands)
    }

    @Test("Identiv/SCM: LOAD KEYS P2 is the key type, authentication key number 01")
    func identivFrames() throws {
        for productID: UInt16 in [0x5591, 0x5790, 0x5612] {
            #expect(StorageReaderVariant.lookup(vendorID: 0x04E6, productID: productID) == .identiv)
        }
        let identiv = StorageReaderVariant.identiv
        // uTrust 3720F manual §6.2.3–6.2.4 example: load key A, authenticate block 6.
        #expect(
            encoded(try identiv.loadKeys(.transport, keyType: .a, slot: 0, nonVolatile: false))
                == bytes("FF82006006FFFFFFFFFFFF"))
        #expect(
            encoded(try identiv.loadKeys(.transport, keyType: .b, slot: 7, nonVolatile: false))
                == bytes("FF82006106FFFFFFFFFFFF"))
        #expect(encoded(try identiv.authenticate(block: 6, keyType: .a, slot: 0)) == bytes("FF860000050100066001"))
        #expect(encoded(try identiv.authenticate(block: 6, keyType: .b, slot: 9)) == bytes("FF860000050100066101"))
        #expect(!identiv.valueBlockCommands)
        #expect(throws: StorageCardError.self) {
            try identiv.loadKeys(.transport, keyType: .a, slot: 0, nonVolatile: true)
        }
    }

    @Test("HID OMNIKEY: non-volatile slot 00 with P1 20, as HID's sample")
    func omnikeyFrames() throws {
        let omnikey = StorageReaderVariant.lookup(vendorID: 0x076B, productID: 0x5422)
        #expect(omnikey == .omnikey)
        #expect(
            encoded(try omnikey.loadKeys(.transport, keyType: .a, slot: 0, nonVolatile: true))
                == bytes("FF82200006FFFFFFFFFFFF"))
        #expect(encoded(try omnikey.authenticate(block: 1, keyType: .a, slot: 0)) == bytes("FF860000050100016000"))
        #expect(throws: StorageCardError.self) {
            try omnikey.loadKeys(.transport, keyType: .a, slot: 0, nonVolatile: false)
        }
    }

    @Test("unknown readers get the generic part 3 dialect")
    func generic() throws {
        #expect(StorageReaderVariant.lookup(vendorID: 0x1234, productID: 0x5678) == .genericPart3)
        #expect(StorageReaderVariant.lookup(vendorID: nil, productID: nil) == .genericPart3)
        #expect(
            encoded(try StorageReaderVariant.genericPart3.loadKeys(.madKeyA, keyType: .a, slot: 0, nonVolatile: false))
                == bytes("FF82000006A0A1A2A3A4A5"))
    }

    @Test("bad arguments are typed errors")
    func badArguments() {
        #expect(throws: StorageCardError.self) { try PCSCStorageCommand.updateBinary(block: 1, data: []) }
        #expect(throws: StorageCardError.self) { try PCSCStorageCommand.readBinary(block: 0x10000) }
        #expect(throws: StorageCardError.self) { try PCSCStorageCommand.readValue(block: 256) }
        #expect(throws: StorageCardError.self) { try ClassicKey([1, 2, 3]) }
        #expect(!ClassicKey.transport.description.contains("FF"))
    }
}
