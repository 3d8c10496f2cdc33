import Crypto

@testable import CardFlowSimulator
@testable import CardFlowSimulatorCards

/// APDUs built from the TON card specification (independently of any client), and a card
/// session that tracks the sault and signs protected commands with vector A's K.
struct TONTestSession {
    static let selectTON: [UInt8] = bytes("00A404000C313132323333343435353636")
    static let selectTONWithLe: [UInt8] = bytes("00A404000C31313232333334343535363600")
    static let selectCoinManager: [UInt8] = bytes("00A4040008A000000151000000")
    static let getAppInfo: [UInt8] = bytes("B0C1000001")
    static let getSerialNumber: [UInt8] = bytes("B0C2000018")
    static let getSault: [UInt8] = bytes("B0BD000020")
    static let resetWallet: [UInt8] = bytes("80CB800005DFFE028205")
    static let getPINRTL: [UInt8] = bytes("80CB800005DFFF02810200")
    static let getPINTLT: [UInt8] = bytes("80CB800005DFFF02810300")
    static let getRootKeyStatus: [UInt8] = bytes("80CB800005DFFF02810500")

    static let password = bytes(TONFactoryData.vectorA.password)
    static let iv = bytes(TONFactoryData.vectorA.iv)
    static let h2 = bytes("112716D2053C2828DC265B5DF14F85F203F8350DCB5774950901F3136108FA2C")
    static let h3 = bytes("71106ED2161D12E5E59FA7FF298930F0F4BB398171A712CB26D947A0DAF5F0EF")
    static let hmacKey = bytes("903BB7913C2332455B97606381BB0CDE09E91EAD137F2CAFF4F6ACC7E0D2E318")
    static let serialOnWire = bytes("050004030904080002040303090001010206080103020306")

    static func generateSeed(pin: String) -> [UInt8] {
        bytes("80CB80000BDFFE0882030504") + Array(pin.utf8)
    }

    static func changePIN(old: String, new: String) -> [UInt8] {
        bytes("80CB800010DFFE0D82040A04") + Array(old.utf8) + [0x04] + Array(new.utf8)
    }

    static func verifyPassword(_ password: [UInt8] = password, iv: [UInt8] = iv) -> [UInt8] {
        [0xB0, 0x92, 0x00, 0x00, 0x90] + password + iv
    }

    static func mac(_ data: [UInt8], key: [UInt8] = hmacKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    var card: SimulatedTONCard

    init(card: SimulatedTONCard = SimulatedTONCard(seed: 42)) {
        self.card = card
        self.card.powerOn()
    }

    /// Sends raw bytes; returns (data, SW).
    @discardableResult
    mutating func send(_ command: [UInt8]) -> (data: [UInt8], sw: UInt16) {
        let response = card.process(command)
        guard response.count >= 2 else { return ([], 0) }
        let sw = UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
        return (Array(response.dropLast(2)), sw)
    }

    mutating func sw(_ command: [UInt8]) -> UInt16 { send(command).sw }

    /// A protected APDU: GET_SAULT, then `B0 ins p1 00 Lc payload|sault|mac [Le]`.
    mutating func protected(
        _ ins: UInt8, p1: UInt8 = 0, payload: [UInt8] = [], le: UInt8? = nil,
        key: [UInt8] = hmacKey
    ) -> (data: [UInt8], sw: UInt16) {
        let sault = send(Self.getSault).data
        return send(Self.protectedAPDU(ins, p1: p1, payload: payload, sault: sault, le: le, key: key))
    }

    static func protectedAPDU(
        _ ins: UInt8, p1: UInt8 = 0, payload: [UInt8], sault: [UInt8], le: UInt8?,
        key: [UInt8] = hmacKey
    ) -> [UInt8] {
        let body = payload + sault
        let data = body + mac(body, key: key)
        return [0xB0, ins, p1, 0x00, UInt8(data.count)] + data + (le.map { [$0] } ?? [])
    }

    /// CoinManager RESET_WALLET + GENERATE_SEED(5555), then SELECT of the TON applet.
    mutating func generateSeed() {
        _ = send(Self.selectCoinManager)
        _ = send(Self.resetWallet)
        _ = send(Self.generateSeed(pin: "5555"))
        _ = send(Self.selectTON)
    }

    /// The whole vector A activation (turnOnWallet without a new PIN): state `17`.
    mutating func activate() {
        generateSeed()
        _ = send(Self.verifyPassword())
    }

    /// An activated card with the PIN verified.
    static func activated(seed: UInt64 = 42) -> TONTestSession {
        var session = TONTestSession(card: SimulatedTONCard(seed: seed))
        session.activate()
        _ = session.protected(0xA2, payload: Array("5555".utf8))
        return session
    }

    var state: UInt8 {
        mutating get { send(Self.getAppInfo).data.first ?? 0 }
    }
}
