import Testing

@testable import CardFlowCCIDProtocol

/// USBCardEventSource meets an interrupt message it cannot decode: it asks the reader and
/// reports what changed, so an event the message stood for is not lost, and it keeps watching.
@Suite("USB card events: odd interrupt messages")
struct InterruptMessageRecoveryTests {
    typealias Scripted = USBCardEventSourceTests.ScriptedInterruptTransport

    @Test("an unknown or short message makes the source ask the reader and report the change")
    func oddMessageAsksTheReader() async {
        let transport = Scripted([
            .success([0x5F, 0x01]), // unknown type: the card was put down meanwhile
            .success([0x50]), // NotifySlotChange cut short: nothing changed
            .success([0x50, 0x02]), // a proper one: the card left
            .success([0x99]), // unknown again: the card is back
            .failure(.noDevice),
        ])
        let status = USBCardEventSourceTests.StatusScript([
            .success(false), .success(true), .success(true), .success(true),
        ])
        let log = CCIDLogCapture()
        let source = USBCardEventSource(transport: transport, interruptPacketLength: 8, logger: log.logger()) {
            try status.next($0)
        }
        let messages = await USBCardEventSourceTests.collect(source.events())
        #expect(
            messages == [
                USBCardEventSourceTests.change(false, changed: false),
                USBCardEventSourceTests.change(true, changed: true),
                USBCardEventSourceTests.change(false, changed: true),
                USBCardEventSourceTests.change(true, changed: true),
            ])
        #expect(transport.reads == 5, "the source kept reading until the unplug")
        #expect(log.warnings(containing: "unexpected interrupt message").count == 1)
    }
}
