import CardFlowCCIDProtocol
import CardFlowSimulatorCards

// Reader firmware that answers APDUs itself (``SimulatedReaderFirmware``): the ACR122U's
// controller takes its pseudo-APDUs even with no card on the reader and none powered, as the
// real reader does (libnfc's acr122_usb and nfcpy talk to its PN532 before any IccPowerOn).
// Escape commands (LEDs, buzzer) go to the firmware too, card or no card.
extension VirtualCCIDReader {
    /// Answers `command` from the slot's firmware when it takes the APDU; false when the APDU
    /// goes the usual way (to the card).
    func answerFromFirmware(_ command: CCIDCommand, level: UInt16, apdu: [UInt8]) -> Bool {
        let index = Int(command.slot)
        let exchangeLevel = configuration.descriptor.exchangeLevel
        // Only whole APDUs in one message: chained or TPDU traffic is the card's.
        guard level == 0, exchangeLevel == .shortAPDU || exchangeLevel == .extendedAPDU,
            var firmware = slots[index].firmware
        else { return false }
        var field = slots[index].card
        slots[index].card = nil
        let answer = firmware.answer(apdu, field: &field)
        slots[index].card = field
        slots[index].firmware = firmware
        guard let answer else { return false }
        let time = configuration.timing.exchangeTime(
            commandLength: apdu.count, responseLength: answer.count, cardTime: .zero, usbMessages: 1)
        reply(dataBlock(command, data: answer), delay: time, cardExchange: true)
        return true
    }

    /// The slot's firmware's answer to a PC_to_RDR_Escape carrying `data`; nil when it has no
    /// firmware or the firmware does not know the command. A change on its panel (LEDs, buzzer)
    /// is logged.
    func escapeFromFirmware(_ data: [UInt8], slot index: Int) -> [UInt8]? {
        guard var firmware = slots[index].firmware else { return nil }
        var field = slots[index].card
        let before = firmware.panel
        let answer = firmware.escape(data, field: &field)
        slots[index].card = field
        slots[index].firmware = firmware
        if let shown = firmware.panel, shown != before {
            logger.debug("reader panel", metadata: ["slot": "\(index)", "panel": "\(shown)"])
        }
        return answer
    }

    /// What the reader's LEDs and buzzer have shown on `slot` (its firmware's
    /// ``/CardFlowSimulatorCards/SimulatedReaderFirmware/panel``), nil for a reader without.
    ///
    /// - Parameter slot: the slot whose firmware to ask.
    public func panel(slot: Int = 0) -> SimulatedReaderPanel? {
        guard slots.indices.contains(slot) else { return nil }
        return slots[slot].firmware?.panel
    }
}
