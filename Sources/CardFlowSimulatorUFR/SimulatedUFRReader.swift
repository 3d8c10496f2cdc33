import CardFlowSimulatorCards

/// A uFR reader written from ufr.md §7.1, holding any simulated card (``VirtualCard``): identity
/// commands, GET_CARD_ID_EX and the Digital Logic card type from the card model, the
/// ISO 14443-4 session (SET_ISO14443_4_MODE, APDU_TRANSCEIVE to the card, S_BLOCK_DESELECT), the
/// user-interface signals (recorded), SELF_RESET with the bootloader bytes. ``SimulatedUFROnline``
/// serves it over TCP and UDP.
///
/// Choices where the documents say nothing (ufr.md §9): APDU_TRANSCEIVE after the card left
/// answers NO_CARD (08) and ends the session; outside a session PARAMETERS_ERROR (0F);
/// SET_ISO14443_4_MODE for a card without ISO-DEP UNSUPPORTED_CARD_TYPE (11); an R-APDU longer
/// than one EXT BUFFER_OVERFLOW (05); GET_CARD_ID (13, 4-byte UIDs only) is not simulated
/// (COMMAND_NOT_SUPPORTED, like any other code it does not know).
///
/// **DESFire 8x commands** (issue 37; ufr.md §4, desfire.md §8, the wire decisions file): the
/// reader does the DESFire host work itself with CardFlow's `DESFireClient` over the card in the
/// field (``UFRDESFireCommandHandler``): 8D FREE_MEM, 8C FORMAT_CARD, 84 CREATE_APPLICATION,
/// 85 CREATE_STD_FILE, 83 READ_FROM_STD_FILE (data streamed as `00 n <n bytes>` chunks, then the
/// RSP), 82 WRITE_TO_STD_FILE (`DD`, then the RSP), 86 CHANGE_AES_KEY (with Par0 02 at AID
/// 000000 the DES→AES PICC master key change), 8E DESFIRE_WRITE_AES_KEY into the 16 reader key
/// slots (``readerKeys``; ``lockReaderKeys()``). RSP_EXT = status LE16 (3001 OK, 3003 when the
/// authentication step fails, `0x0C00 | status` for card errors), exec_time LE16, [extra]; no card
/// in the field: exec_time only. Choices the documents leave open: exec_time is a fixed 10 ms
/// (``setDESFireExecutionTime(_:)``); reads stream in chunks of up to 255 bytes
/// (``setDESFireReadChunkSize(_:)``); a CMD_EXT of the wrong length, a key source other than
/// 0/1 or a slot above 15 answers ERR PARAMETERS_ERROR (`EC 0F CE 00 00 00 34`, no `DD`); an
/// unknown comm value 0x0C9E; 3K3DES reader keys 3010; 82 with data count ≠ its length field
/// 0x0C7E (the multi-part `AD` write is not simulated: at most 160 bytes); a card that is not
/// ISO-DEP or does not answer as a DESFire 3009; a card changed or lifted during the
/// transaction 3005. Each command is one whole transaction; without an open 93 session the card
/// is powered on (activated) first. READER_KEYS_LOCK/UNLOCK (27/28) are not on the wire: lock
/// with ``lockReaderKeys()``.
///
/// ```swift
/// let reader = SimulatedUFRReader(card: DESFireCard(seed: 1))
/// await reader.lift()
/// await reader.place(DESFireCard(seed: 2))
/// ```
public actor SimulatedUFRReader {
    /// The reader type GET_READER_TYPE reports: uFR Nano Classic (`22 00 18 D1` on the wire).
    public static let readerType: UInt32 = 0xD118_0022
    /// The serial GET_SERIAL_NUMBER reports.
    public nonisolated let serialNumber: String

    private var card: (any VirtualCard)? {
        didSet { cardGeneration &+= 1 }
    }
    /// Counts every change of ``card``: a DESFire 8x transaction puts its card back only if no
    /// other command changed, lifted or replaced it while the transaction ran.
    private var cardGeneration: UInt64 = 0
    private var lastCard: (any VirtualCard)?
    private var selected = false
    private var fault: UFRSimulatorFault?
    private var liftOnNextAPDU = false
    private var apduGate: CheckedContinuation<Void, Never>?
    private var apduGateArmed = false
    private var apduGateWaiters: [CheckedContinuation<Void, Never>] = []
    /// Every command run, by code, in order (for tests that count them).
    public private(set) var commandLog: [UInt8] = []
    /// The command APDUs the card received, in order.
    public private(set) var apduLog: [[UInt8]] = []
    /// The last USER_INTERFACE_SIGNAL's light and beep modes.
    public private(set) var lastSignal: (light: UInt8, beep: UInt8)?
    /// The DESFire key slots (written by DESFIRE_WRITE_AES_KEY, 8E; readable here only).
    public private(set) var readerKeys = SimulatedUFRReaderKeys()
    private var desfireSettings = UFRDESFireCommandHandler.Settings(executionTime: 10, readChunkSize: 255)

    /// - Parameters:
    ///   - card: the card in the field, nil for none.
    ///   - serialNumber: the 8-character serial (`ON` + 6 digits for an Online).
    public init(card: (any VirtualCard)? = nil, serialNumber: String = "ON123456") {
        self.card = card
        self.lastCard = card
        self.serialNumber = serialNumber
    }

    /// Puts a card in the field (replacing any).
    public func place(_ card: any VirtualCard) {
        self.card = card
        lastCard = card
        selected = false
    }

    /// Takes the card away; returns it (with its state) for placing back.
    @discardableResult
    public func lift() -> (any VirtualCard)? {
        defer { card = nil }
        return card
    }

    /// The card in the field now.
    public var currentCard: (any VirtualCard)? { card }

    /// Whether an ISO 14443-4 session is open.
    public var isSessionOpen: Bool { selected }

    /// Makes every answer from now on misbehave (nil: answer well).
    public func setFault(_ fault: UFRSimulatorFault?) {
        self.fault = fault
    }

    /// The card leaves as the next APDU_TRANSCEIVE arrives (lifted mid-exchange).
    public func liftOnNextAPDU(_ enabled: Bool = true) {
        liftOnNextAPDU = enabled
    }

    /// Holds the next APDU_TRANSCEIVE before it reaches the card until ``releaseAPDU()``
    /// (``waitForHeldAPDU()`` returns once it is held).
    public func holdNextAPDU() {
        apduGateArmed = true
    }

    /// Returns once an APDU is held by ``holdNextAPDU()``.
    public func waitForHeldAPDU() async {
        if apduGate != nil { return }
        await withCheckedContinuation { apduGateWaiters.append($0) }
    }

    /// Lets a held APDU go on to the card.
    public func releaseAPDU() {
        apduGate?.resume()
        apduGate = nil
    }

    /// Locks the reader keys (as READER_KEYS_LOCK would): DESFIRE_WRITE_AES_KEY then answers
    /// KEYS_LOCKED (`00 76`); the DESFire commands still use the slots.
    public func lockReaderKeys() {
        readerKeys.isLocked = true
    }

    /// Unlocks the reader keys (as READER_KEYS_UNLOCK with the right password would).
    public func unlockReaderKeys() {
        readerKeys.isLocked = false
    }

    /// Writes `key` (16 bytes) into reader key `slot` (0–15) directly, whatever the lock (test
    /// set-up; on the wire it is DESFIRE_WRITE_AES_KEY). Returns false, storing nothing, for a
    /// slot outside 0–15 or a key of another length.
    @discardableResult
    public func setReaderKey(_ key: [UInt8], slot: Int) -> Bool {
        readerKeys.store(key, inSlot: slot)
    }

    /// The exec_time (ms) every DESFire 8x reply reports; 10 unless set (ufr.md's FREE_MEM example).
    public var desfireExecutionTime: UInt16 { desfireSettings.executionTime }

    /// Sets the exec_time (ms) of the DESFire 8x replies.
    public func setDESFireExecutionTime(_ milliseconds: UInt16) {
        desfireSettings.executionTime = milliseconds
    }

    /// The largest chunk (`00 n <n bytes>`) DESFIRE_READ_FROM_STD_FILE streams; 255 unless set.
    public var desfireReadChunkSize: Int { desfireSettings.readChunkSize }

    /// Sets the largest chunk of a streamed read, clamped to 1–255.
    public func setDESFireReadChunkSize(_ size: Int) {
        desfireSettings.readChunkSize = min(max(size, 1), 255)
    }

    /// A reset through the reset line (RTS): the ISO 14443-4 session is gone, as after SELF_RESET.
    func resetByLine() {
        selected = false
    }

    /// Runs one command and returns the reader's answer bytes (empty when silent).
    func run(code: UInt8, parameter0: UInt8, parameter1: UInt8, ext: [UInt8]) async -> [UInt8] {
        commandLog.append(code)
        let answer = await answer(code: code, parameter0: parameter0, parameter1: parameter1, ext: ext)
        return misbehave(answer)
    }

    private func misbehave(_ answer: [UInt8]) -> [UInt8] {
        guard let fault, !answer.isEmpty else { return answer }
        switch fault {
        case .badChecksums:
            var bytes = answer
            bytes[bytes.count - 1] ^= 0x5A
            return bytes
        case .shortFrames: return Array(answer.prefix(4))
        case .silence: return []
        case .wrongLengths:
            guard answer[0] == 0xDE else { return answer }
            var packet = Array(answer.prefix(6))
            packet[3] = packet[3] &+ 3
            return UFRWireFormat.withChecksum(packet) + answer.dropFirst(7)
        }
    }

    private func answer(code: UInt8, parameter0: UInt8, parameter1: UInt8, ext: [UInt8]) async -> [UInt8] {
        switch code {
        case 0x10: return UFRWireFormat.response(code: code, ext: Self.littleEndian(Self.readerType))
        case 0x11: return UFRWireFormat.response(code: code, ext: Self.littleEndian(0x5D1A_7E54))
        case 0x40: return UFRWireFormat.response(code: code, ext: Array(serialNumber.utf8.prefix(8)))
        case 0x29: return UFRWireFormat.response(code: code, value0: 5, value1: 0)
        case 0x2A: return UFRWireFormat.response(code: code, value0: 1, value1: 0)
        case 0x2B: return UFRWireFormat.response(code: code, value0: 60)
        case 0x2C: return cardID(of: card)
        case 0x7C: return cardID(of: lastCard)
        case 0x3C:
            guard let card else { return UFRWireFormat.error(0x08) }
            return UFRWireFormat.response(code: code, value0: Self.dLogicType(card))
        case 0x93: return selectISODEP()
        case 0x94: return await transceive(ext)
        case 0x92:
            selected = false
            return UFRWireFormat.response(code: code)
        case 0x26:
            lastSignal = (parameter0, parameter1)
            return UFRWireFormat.response(code: code)
        case 0x71, 0x6E, 0x73: return UFRWireFormat.response(code: code)
        case 0x30:
            selected = false
            return UFRWireFormat.response(code: code) + [0x03, 0x55, 0x55, 0xBB]
        case 0xE6:
            let state: UInt8 = selected ? 2 : 1
            return UFRWireFormat.response(code: code, ext: [state, 0, 0, 0])
        case 0x82, 0x83, 0x84, 0x85, 0x86, 0x8C, 0x8D:
            return await desfire(code: code, parameter0: parameter0, ext: ext)
        case 0x8E: return UFRDESFireCommandHandler.writeReaderKey(keyType: parameter0, ext: ext, into: &readerKeys)
        default: return UFRWireFormat.error(0x09)
        }
    }

    /// One DESFire 8x transaction on the card in the field (``UFRDESFireCommandHandler``). The
    /// card is put back only if nothing else changed it meanwhile; otherwise the command answers
    /// 3005 READER_CARD_COMM_ERROR (as a card leaving mid-transaction) and its changes are lost.
    private func desfire(code: UInt8, parameter0: UInt8, ext: [UInt8]) async -> [UInt8] {
        let generation = cardGeneration
        let transaction = await UFRDESFireCommandHandler.answer(
            code: code, parameter0: parameter0, ext: ext, card: card, sessionOpen: selected, keys: readerKeys,
            settings: desfireSettings)
        guard let after = transaction.card else { return transaction.answer }
        guard generation == cardGeneration else {
            return UFRDESFireCommandHandler.reply(
                code: code, status: UFRDESFireStatus.readerCardCommunicationError, settings: desfireSettings)
        }
        card = after
        lastCard = after
        apduLog += transaction.commands
        return transaction.answer
    }

    private func cardID(of card: (any VirtualCard)?) -> [UInt8] {
        guard let card else { return UFRWireFormat.error(0x08) }
        let uid = Array(card.uid.prefix(10))
        let padded = uid + [UInt8](repeating: 0, count: 10 - uid.count)
        // At most 10 (the prefix above).
        return UFRWireFormat.response(
            code: 0x2C, value0: Self.sak(card), value1: UInt8(truncatingIfNeeded: uid.count), ext: padded)
    }

    private func selectISODEP() -> [UInt8] {
        guard var card else { return UFRWireFormat.error(0x08) }
        guard card.technology.isISODEP else { return UFRWireFormat.error(0x11) }
        card.powerOn()
        self.card = card
        selected = true
        return UFRWireFormat.response(code: 0x93)
    }

    private func transceive(_ apdu: [UInt8]) async -> [UInt8] {
        if apduGateArmed {
            apduGateArmed = false
            await withCheckedContinuation { continuation in
                apduGate = continuation
                for waiter in apduGateWaiters { waiter.resume() }
                apduGateWaiters.removeAll()
            }
        }
        if liftOnNextAPDU {
            liftOnNextAPDU = false
            card = nil
        }
        guard selected else { return UFRWireFormat.error(0x0F) }
        guard var card else {
            selected = false
            return UFRWireFormat.error(0x08)
        }
        apduLog.append(apdu)
        let answer = card.process(apdu)
        self.card = card
        lastCard = card
        guard answer.count <= 254 else { return UFRWireFormat.error(0x05) }
        return UFRWireFormat.response(code: 0x94, ext: answer)
    }

    /// The SAK a card answers anticollision with: 20 for ISO-DEP (ISO 14443-4 compliant),
    /// 08/18 for MIFARE Classic 1K/4K, 00 for Type 2 tags.
    static func sak(_ card: any VirtualCard) -> UInt8 {
        switch card.technology {
        case .isoDepTypeA, .isoDepTypeB: 0x20
        case .storage(_, 0x0001): 0x08
        case .storage(_, 0x0002): 0x18
        default: 0x00
        }
    }

    /// The Digital Logic type (ufr.md §6): DESFire EV1 8K for the DESFire model (its 7936-byte
    /// memory), generic ISO 14443-4 for other ISO-DEP cards, Classic 1K/4K and Ultralight by
    /// their PC/SC card name, unknown otherwise.
    static func dLogicType(_ card: any VirtualCard) -> UInt8 {
        if card.kind == "desfire" { return 0x2A }
        switch card.technology {
        case .isoDepTypeA, .isoDepTypeB: return 0x40
        case .storage(_, 0x0001): return 0x21
        case .storage(_, 0x0002): return 0x22
        case .storage(_, 0x0003): return 0x01
        default: return 0x00
        }
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
