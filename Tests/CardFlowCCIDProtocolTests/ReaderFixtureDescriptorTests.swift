import CardFlowCCIDProtocol
import CardFlowSimulator
import Foundation
import Testing

/// The binary descriptor parser agrees with what the ~600 real reader dumps say about
/// themselves (pcsc-lite CCID project's `readers/*.txt`, in Tests/Fixtures/ccid-readers).
@Suite("CCID descriptors of real readers")
struct ReaderFixtureDescriptorTests {
    static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/ccid-readers")

    static func dumpFiles() throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "txt" && $0.lastPathComponent != "supported_readers.txt" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The words the dump uses for each exchange level.
    static func level(fromDumpText text: String) -> CCIDExchangeLevel? {
        if text.contains("Short and Extended APDU") { return .extendedAPDU }
        if text.contains("Short APDU") { return .shortAPDU }
        if text.contains("TPDU") { return .tpdu }
        if text.contains("Character") { return .character }
        return nil
    }

    @Test func everyDumpAgreesWithTheParsedDescriptor() throws {
        let files = try Self.dumpFiles()
        #expect(files.count > 600)
        var interfaces = 0
        var levels: [CCIDExchangeLevel: Int] = [:]
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            // One dump (ELYCTIS) describes two devices.
            let interfacesOfFile = try ReaderProfile.profiles(parsing: text).flatMap(\.interfaces)
            #expect(!interfacesOfFile.isEmpty, "\(file.lastPathComponent)")
            for interface in interfacesOfFile {
                let bytes = interface.classDescriptorBytes
                let descriptor = try CCIDClassDescriptor.locate(
                    interfaceClass: interface.interfaceClass,
                    interfaceExtra: bytes, endpointExtras: [])
                let name = "\(file.lastPathComponent) interface \(interface.interfaceNumber)"
                let declared = interface.declaredExchangeLevelText.flatMap(Self.level(fromDumpText:))
                #expect(declared != nil, "\(name): no exchange level text")
                #expect(descriptor.exchangeLevel == declared, "\(name)")
                #expect(descriptor.maxMessageLength == interface.dwMaxCCIDMessageLength, "\(name)")
                #expect(descriptor.slotCount == Int(interface.bMaxSlotIndex) + 1, "\(name)")
                #expect(descriptor.protocols.rawValue == interface.dwProtocols, "\(name)")
                #expect(descriptor.features.rawValue == interface.dwFeatures, "\(name)")
                #expect(descriptor.maxIFSD == interface.dwMaxIFSD, "\(name)")
                // Re-encoding reproduces every byte but a nonstandard type (0xFF), written as 0x21.
                #expect(descriptor.encoded().dropFirst(2) == bytes.dropFirst(2), "\(name)")
                interfaces += 1
                levels[descriptor.exchangeLevel, default: 0] += 1
            }
        }
        // The corpus covers every level, vendor-class interfaces and composite readers.
        #expect(interfaces > 680)
        #expect(levels.keys.count == 4)
    }

    @Test func protocolsAgreeWithTheDumpsTLines() throws {
        for file in try Self.dumpFiles() {
            let text = try String(contentsOf: file, encoding: .utf8)
            let interfaces = try ReaderProfile.profiles(parsing: text).flatMap(\.interfaces)
            let expectsT0 = text.contains("   T=0")
            let expectsT1 = text.contains("   T=1")
            let any0 = interfaces.contains { CCIDProtocols(rawValue: $0.dwProtocols).contains(.t0) }
            let any1 = interfaces.contains { CCIDProtocols(rawValue: $0.dwProtocols).contains(.t1) }
            #expect(expectsT0 == any0, "\(file.lastPathComponent)")
            #expect(expectsT1 == any1, "\(file.lastPathComponent)")
        }
    }

    @Test func simulatorMimicsAProfile() async throws {
        let path = Self.folder.appendingPathComponent("ACS_ACR1252_Dual_Reader.txt").path
        var specification = SimulatorSpecification(cardKind: .iso7816)
        specification.profilePath = path
        let setup = try await SimulatorSetup(specification: specification)
        #expect(setup.readers.count == 2)
        #expect(setup.readers[0].name.hasSuffix("PICC"))
        #expect(setup.readers[1].name.hasSuffix("SAM"))
        #expect(setup.readers[0].descriptor.exchangeLevel == .extendedAPDU)
        #expect(setup.readers[1].descriptor.exchangeLevel == .shortAPDU)
        #expect(setup.readers[0].configuration.vendorID == 0x072F && setup.readers[0].configuration.productID == 0x223B)
        let first = setup.readers[0]
        let driver = CCIDDriver(transport: InMemoryUSBTransport(reader: first.reader), descriptor: first.descriptor)
        _ = try await driver.powerOn()
        #expect(try await driver.transmit(selectApplication).suffix(2) == [0x90, 0x00])
    }
}
