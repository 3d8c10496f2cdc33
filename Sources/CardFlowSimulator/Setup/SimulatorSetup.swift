import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import Logging

/// The simulated readers and card a ``SimulatorSpecification`` describes, built and ready for
/// the driver: one ``VirtualCCIDReader`` per CCID interface of the mimicked reader, the card on
/// the first. When that interface has several slots (`slots=N`, or a profile with
/// bMaxSlotIndex > 0), every slot holds a card of the kind, each with its own seed; the first
/// slot's card is the one `state=PATH`, `lift-after` and `swap` apply to.
///
/// ```swift
/// let setup = try SimulatorSetup(specification: try SimulatorSpecification(parsing: "sim:iso7816"))
/// let reader = setup.readers[0]
/// let driver = CCIDDriver(transport: InMemoryUSBTransport(reader: reader.reader), descriptor: reader.descriptor)
/// ...
/// try await setup.saveCardState()   // when state=PATH was given
/// ```
public struct SimulatorSetup: Sendable {
    /// One simulated CCID interface.
    public struct Reader: Sendable {
        public let reader: VirtualCCIDReader
        public let interfaceNumber: UInt8
        /// Readable name, e.g. "ACR1252 Dual Reader PICC".
        public let name: String
        public var descriptor: CCIDClassDescriptor { reader.configuration.descriptor }
        public var configuration: VirtualReaderConfiguration { reader.configuration }
    }

    public let specification: SimulatorSpecification
    public let readers: [Reader]
    private let stateStore: CardStateStore?

    public init(
        specification requested: SimulatorSpecification, clock: any ElapsedClock = RealClock(),
        logger: Logger = Logger(label: "cardflow.simulator")
    ) async throws {
        var specification = requested
        var configurations: [(VirtualReaderConfiguration, UInt8, String)] = []
        if let path = specification.profilePath {
            let profile = try ReaderProfile(contentsOfFile: path)
            for interface in profile.interfaces {
                let descriptor = try CCIDClassDescriptor(bytes: interface.classDescriptorBytes)
                let name = interface.name ?? profile.product ?? "Simulated reader"
                var configuration = VirtualReaderConfiguration(
                    name: name, manufacturer: profile.manufacturer ?? "", vendorID: profile.vendorID,
                    productID: profile.productID, bcdDevice: profile.bcdDevice, descriptor: descriptor,
                    hasInterruptEndpoint: interface.numberOfEndpoints >= 3, seed: specification.seed)
                configuration.timing = specification.timing
                configuration.timing.extraLatency = specification.latency
                configuration.chaos = specification.readerChaos
                configuration.timeExtensionsPerExchange = specification.timeExtensionsPerExchange
                configuration.supportedDataRates = interface.supportedDataRates
                configurations.append((configuration, interface.interfaceNumber, name))
            }
            guard !configurations.isEmpty else { throw SimulatorSetupError.profileWithoutInterfaces(path) }
        } else {
            var configuration = VirtualReaderConfiguration(seed: specification.seed)
            if let slotCount = specification.slotCount, slotCount > 1 {
                // The specification parser keeps slots= and busy-slots= within 1 ... 8.
                configuration.descriptor.maxSlotIndex = UInt8(truncatingIfNeeded: slotCount - 1)
                configuration.descriptor.maxBusySlots = UInt8(truncatingIfNeeded: specification.busySlots ?? slotCount)
                configuration.name += " (\(slotCount) slots)"
            }
            configuration.timing = specification.timing
            configuration.timing.extraLatency = specification.latency
            configuration.chaos = specification.readerChaos
            configuration.timeExtensionsPerExchange = specification.timeExtensionsPerExchange
            configurations.append((configuration, 0, configuration.name))
        }
        if let first = configurations.first?.0.descriptor, Self.needsContactCard(first, for: specification) {
            specification.contactInterface = Self.defaultContactInterface
            logger.debug(
                "the reader cannot talk to a contactless card: a dual-protocol contact card is on it",
                metadata: ["protocols": "\(first.protocols.names)", "level": "\(first.exchangeLevel)"])
        }
        self.specification = specification
        readers = configurations.map { configuration, interface, name in
            Reader(
                reader: VirtualCCIDReader(configuration: configuration, clock: clock, logger: logger),
                interfaceNumber: interface, name: name)
        }
        stateStore = specification.statePath.map { CardStateStore(path: $0) }

        guard let card = try Self.initialCard(for: specification, store: stateStore) else { return }
        let first = readers[0].reader
        await first.insert(card)
        for slot in 1..<max(1, first.configuration.descriptor.slotCount) {
            if let other = try Self.makeCard(
                specification.cardKind, seed: specification.seed &+ UInt64(slot),
                capacity: specification.capacity, specification: specification)
            {
                await first.insert(other, slot: slot)
            }
        }
        if let lift = specification.liftAfter {
            var replacement: (any VirtualCard)?
            if specification.swap {
                replacement = try Self.makeCard(
                    specification.cardKind, seed: specification.seed &+ 0x5EED,
                    capacity: specification.capacity, specification: specification)
            }
            await first.liftCard(afterAPDUs: lift, returnAfter: specification.returnAfter, replacement: replacement)
        }
    }

    /// The contact interface a card gets in a reader that cannot talk to a contactless card:
    /// both protocols, as most contact cards offer (the host picks what its reader has).
    public static let defaultContactInterface = ContactInterface(protocols: [0, 1], ta1: 0x96)

    /// Whether the ISO 7816 or APDU test card of `specification` must be a contact card to be
    /// reachable in a reader with this descriptor: a contactless card behind a reader runs T=1
    /// (PC/SC part 3), so a reader without T=1, or one the host drives character by character
    /// (only a contact card has an I/O line), cannot talk to it. `contact=` decides otherwise.
    public static func needsContactCard(
        _ descriptor: CCIDClassDescriptor, for specification: SimulatorSpecification
    ) -> Bool {
        guard specification.contactInterface == nil, !specification.contactlessCard,
            specification.cardKind == .iso7816 || specification.cardKind == .apduTest
        else { return false }
        return !descriptor.protocols.contains(.t1) || descriptor.exchangeLevel == .character
    }

    /// Writes the card's contents to the `state=PATH` file (no-op without one). The card saved
    /// is the one on the reader, or the one that last left it.
    public func saveCardState() async throws {
        guard let stateStore, let card = await readers[0].reader.lastKnownCard(slot: 0) else { return }
        guard let persistent = card as? any PersistentVirtualCard else {
            throw SimulatorSetupError.cardNotPersistent(card.kind)
        }
        try stateStore.save(persistent)
    }

    /// A fresh card of the given kind (nil for `none`).
    public static func makeCard(
        _ kind: SimulatedCardKind, seed: UInt64, capacity: Int? = nil,
        specification: SimulatorSpecification? = nil
    ) throws -> (any VirtualCard)? {
        switch kind {
        case .iso7816: return ISO7816Card(seed: seed, contactInterface: specification?.contactInterface)
        case .ndef4: return NDEFType4Tag(seed: seed, capacity: capacity ?? 1024)
        case .type2: return NDEFType2Tag(seed: seed, dataAreaSize: capacity ?? 144)
        case .iso15693:
            let blockSize = specification?.blockSize ?? 4
            return SimulatedISO15693Tag(
                seed: seed, blockSize: blockSize, blockCount: capacity.map { max(1, $0 / blockSize) } ?? 28,
                multipleBlockWrite: specification?.multipleBlockWrite ?? false,
                lockedBlocks: specification?.lockedBlocks ?? [], ndefFormatted: specification?.ndefFormatted ?? false)
        case .ton:
            return SimulatedTONCard(
                seed: seed,
                factoryData: try specification?.activationPath.map(TONFactoryData.init(contentsOfFile:)) ?? .vectorA)
        case .none: return nil
        case .desfire: return DESFireCard(seed: seed, randomUID: specification?.randomUID ?? false)
        case .ntag424: return SimulatedNTAG424Card(seed: seed)
        case .fuzz:
            let wrapped = try specification?.fuzzWrappedKind.flatMap { kind in
                try makeCard(kind, seed: seed, capacity: capacity, specification: specification)
            }
            let configuration = HostileCardConfiguration(
                seed: seed, hostilePercent: specification?.fuzzHostilePercent ?? 10,
                stickyPercent: specification?.fuzzStickyPercent ?? 5,
                maxResponseLength: specification?.fuzzMaxResponseLength ?? 1024)
            return HostileCard(configuration: configuration, wrapping: wrapped)
        case .apduTest: return APDUTestCard(seed: seed, contactInterface: specification?.contactInterface)
        // The reader tells the card its dialect when it places it (ReaderAwareVirtualCard).
        case .classic1k: return SimulatedMIFAREClassicCard(seed: seed, size: .oneK)
        case .classic4k: return SimulatedMIFAREClassicCard(seed: seed, size: .fourK)
        case .ntag213: return SimulatedNTAG21xCard(seed: seed, model: .ntag213)
        case .ntag215: return SimulatedNTAG21xCard(seed: seed, model: .ntag215)
        case .ntag216: return SimulatedNTAG21xCard(seed: seed, model: .ntag216)
        case .ultralightEV1: return SimulatedNTAG21xCard(seed: seed, model: .ultralightEV1)
        case .felicaLiteS:
            return SimulatedFeliCaLiteSCard(seed: seed, ndefFormatted: specification?.ndefFormatted ?? false)
        case .apduReplay:
            guard let path = specification?.recordingPath else { throw SimulatorSetupError.recordingMissing }
            return RecordedConversationCard(recording: try APDURecording(contentsOfFile: path))
        }
    }

    private static func initialCard(for specification: SimulatorSpecification, store: CardStateStore?) throws -> (
        any VirtualCard
    )? {
        guard let store, store.exists else {
            return try makeCard(
                specification.cardKind, seed: specification.seed, capacity: specification.capacity,
                specification: specification)
        }
        let kind = try store.storedKind()
        // Both MIFARE Classic sizes are one model, saved under its own kind.
        let isClassic = specification.cardKind == .classic1k || specification.cardKind == .classic4k
        let expected =
            isClassic
            ? SimulatedMIFAREClassicCard.persistentKind
            : specification.cardKind.type2Model != nil
                ? SimulatedNTAG21xCard.persistentKind : specification.cardKind.rawValue
        guard kind == expected else {
            throw SimulatorSetupError.stateOfAnotherKind(
                path: store.path, stored: kind, requested: specification.cardKind.rawValue)
        }
        switch specification.cardKind {
        case .iso7816: return try store.load(ISO7816Card.self)
        case .ndef4: return try store.load(NDEFType4Tag.self)
        case .type2: return try store.load(NDEFType2Tag.self)
        case .iso15693: return try store.load(SimulatedISO15693Tag.self)
        case .ton: return try store.load(SimulatedTONCard.self)
        case .none: return nil
        case .desfire: return try store.load(DESFireCard.self)
        case .ntag424: return try store.load(SimulatedNTAG424Card.self)
        case .classic1k, .classic4k:
            let card = try store.load(SimulatedMIFAREClassicCard.self)
            let size: SimulatedMIFAREClassicCard.Size = specification.cardKind == .classic1k ? .oneK : .fourK
            guard card.size == size else {
                throw SimulatorSetupError.stateOfAnotherKind(
                    path: store.path, stored: "\(card.kind) \(card.size.rawValue)",
                    requested: specification.cardKind.rawValue)
            }
            return card
        case .ntag213, .ntag215, .ntag216, .ultralightEV1:
            // All four are one model, saved under its own kind: the product must match too.
            let card = try store.load(SimulatedNTAG21xCard.self)
            guard card.model == specification.cardKind.type2Model else {
                throw SimulatorSetupError.stateOfAnotherKind(
                    path: store.path, stored: "\(card.kind) \(card.model.rawValue)",
                    requested: specification.cardKind.rawValue)
            }
            return card
        case .felicaLiteS: return try store.load(SimulatedFeliCaLiteSCard.self)
        case .fuzz, .apduTest, .apduReplay: throw SimulatorSetupError.cardNotPersistent(specification.cardKind.rawValue)
        }
    }
}

/// Why a simulator could not be set up.
public enum SimulatorSetupError: Error, Sendable, Hashable, CustomStringConvertible {
    case profileWithoutInterfaces(String)
    case stateOfAnotherKind(path: String, stored: String, requested: String)
    case cardNotPersistent(String)
    /// `sim:apdu-replay` built without `recording=PATH`.
    case recordingMissing

    public var description: String {
        switch self {
        case .profileWithoutInterfaces(let path): "reader profile \(path) describes no CCID interface"
        case .stateOfAnotherKind(let path, let stored, let requested):
            "state file \(path) holds a '\(stored)' card, not a '\(requested)' card; use another path or the matching card kind"
        case .cardNotPersistent(let kind): "the simulated '\(kind)' card cannot be saved"
        case .recordingMissing: "the replayed card needs its recording: sim:apdu-replay,recording=PATH"
        }
    }
}
