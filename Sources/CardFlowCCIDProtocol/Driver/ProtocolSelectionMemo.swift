/// The last ATR a driver parsed and the protocol it chose for it, kept so that the same ATR is
/// not parsed and negotiated on paper again. A reader powers the same kind of card on over and
/// over (a contactless reader makes up one ATR per card type; a production line feeds one card
/// model), and parsing the ATR and choosing the protocol were six of a power-on's allocations.
///
/// Only the inputs that can change are compared: the driver's descriptor is fixed, and its data
/// rates are asked once (``CCIDDriver``'s `readerDataRates()`), before the first memo is made.
struct ProtocolSelectionMemo: Sendable {
    let atrBytes: [UInt8]
    let preference: ProtocolPreference
    let atr: AnswerToReset
    let selection: ProtocolSelection

    /// The parsed ATR and the selection for `bytes` under `preference`, when they are the memo's.
    func recall(atr bytes: [UInt8], preference: ProtocolPreference) -> (AnswerToReset, ProtocolSelection)? {
        guard preference == self.preference, bytes == atrBytes else { return nil }
        return (atr, selection)
    }
}
