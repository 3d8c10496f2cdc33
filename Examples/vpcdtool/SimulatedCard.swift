import CardFlowSimulator
import CardFlowVPCDProtocol

/// A CardSimulator card model behind the vpcd card side.
actor SimulatedCard<Model: VirtualCard>: VPCDCard {
    private var model: Model
    private let answerToReset: [UInt8]

    init(_ model: Model) {
        self.model = model
        // The ATR a PC/SC contactless reader would report for this card.
        self.answerToReset = ContactlessATR.atr(for: model.technology)
    }

    func powerOn() { model.powerOn() }
    func powerOff() {}
    func reset() { model.powerOn() }
    func atr() -> [UInt8] { answerToReset }
    func transmit(_ apdu: [UInt8]) -> [UInt8] { model.process(apdu) }
}

/// The card models `export --card` offers.
enum CardKind: String, CaseIterable {
    case iso7816
    case apduTest = "apdu-test"
    case desfire

    func makeCard() -> any VPCDCard {
        switch self {
        case .iso7816: SimulatedCard(ISO7816Card())
        case .apduTest: SimulatedCard(APDUTestCard())
        case .desfire: SimulatedCard(DESFireCard(seed: 1))
        }
    }
}
