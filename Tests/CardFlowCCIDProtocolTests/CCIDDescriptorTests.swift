import Testing

@testable import CardFlowCCIDProtocol

@Suite("CCID class descriptor")
struct CCIDDescriptorTests {
    /// ACR122U PICC (ACR122U_PICC.txt): written out by hand from the dump.
    static let acr122u: [UInt8] = [
        0x36, 0x21, 0x00, 0x01, 0x00, 0x07, 0x02, 0x00, 0x00, 0x00,
        0xA0, 0x0F, 0x00, 0x00, 0xA0, 0x0F, 0x00, 0x00, 0x00,
        0x00, 0x2A, 0x00, 0x00, 0x90, 0xD0, 0x03, 0x00, 0x00,
        0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x40, 0x00, 0x02, 0x00, 0x0F, 0x01, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
    ]

    @Test func parsesTheACR122U() throws {
        let descriptor = try CCIDClassDescriptor(bytes: Self.acr122u)
        #expect(descriptor.bcdCCID == 0x0100)
        #expect(descriptor.exchangeLevel == .shortAPDU)
        #expect(descriptor.maxMessageLength == 271)
        #expect(descriptor.maxPayloadPerMessage == 261)
        #expect(descriptor.slotCount == 1)
        #expect(descriptor.protocols == .t1)
        #expect(descriptor.defaultClock == 4000)
        #expect(descriptor.dataRate == 10752)
        #expect(descriptor.maxDataRate == 250_000)
        #expect(descriptor.maxIFSD == 256)
        #expect(descriptor.features.contains(.automaticParameterNegotiation))
        #expect(descriptor.maxBusySlots == 1)
        #expect(descriptor.encoded() == Self.acr122u)
    }

    @Test func exchangeLevelFromFeatures() {
        #expect(CCIDExchangeLevel(features: CCIDFeatures(rawValue: 0x0001_0030)) == .tpdu)
        #expect(CCIDExchangeLevel(features: CCIDFeatures(rawValue: 0x0002_0040)) == .shortAPDU)
        #expect(CCIDExchangeLevel(features: CCIDFeatures(rawValue: 0x0004_04BA)) == .extendedAPDU)
        #expect(CCIDExchangeLevel(features: CCIDFeatures(rawValue: 0x0000_0000)) == .character)
    }

    @Test func locatesTheDescriptor() throws {
        // Normal: in the interface's extra bytes.
        #expect(
            try CCIDClassDescriptor.locate(
                interfaceClass: 0x0B, interfaceExtra: Self.acr122u, endpointExtras: [[], [], []]
            ).maxMessageLength == 271)
        // O2Micro/Reiner SCT quirk: in the last endpoint's extra bytes.
        #expect(
            try CCIDClassDescriptor.locate(
                interfaceClass: 0x0B, interfaceExtra: [], endpointExtras: [[], [], Self.acr122u]
            ).maxMessageLength == 271)
        // Vendor class 0xFF only with exactly 54 bytes.
        #expect(
            try CCIDClassDescriptor.locate(interfaceClass: 0xFF, interfaceExtra: Self.acr122u, endpointExtras: [])
                .exchangeLevel == .shortAPDU)
        #expect(throws: CCIDDescriptorError.notCCIDInterface(0xFF)) {
            try CCIDClassDescriptor.locate(
                interfaceClass: 0xFF, interfaceExtra: Self.acr122u + [0x09, 0x21], endpointExtras: [])
        }
        #expect(throws: CCIDDescriptorError.notCCIDInterface(0x03)) {
            try CCIDClassDescriptor.locate(interfaceClass: 0x03, interfaceExtra: Self.acr122u, endpointExtras: [])
        }
        #expect(throws: CCIDDescriptorError.missing) {
            try CCIDClassDescriptor.locate(interfaceClass: 0x0B, interfaceExtra: [], endpointExtras: [[], []])
        }
    }

    @Test func rejectsBadDescriptors() {
        #expect(throws: CCIDDescriptorError.tooShort(53)) {
            try CCIDClassDescriptor(bytes: Array(Self.acr122u.prefix(53)))
        }
        var wrongType = Self.acr122u
        wrongType[1] = 0x22
        #expect(throws: CCIDDescriptorError.wrongType(0x22)) { try CCIDClassDescriptor(bytes: wrongType) }
        var wrongLength = Self.acr122u
        wrongLength[0] = 0x34
        #expect(throws: CCIDDescriptorError.wrongLength(0x34)) { try CCIDClassDescriptor(bytes: wrongLength) }
        var tiny = Self.acr122u
        tiny[44] = 10; tiny[45] = 0
        #expect(throws: CCIDDescriptorError.messageLengthTooSmall(10)) { try CCIDClassDescriptor(bytes: tiny) }
    }
}
