import CardFlow
import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import Testing

@testable import CardFlowUFR

/// The termios serial link (`ufr:serial:PATH`) against the simulated reader on a pseudo-terminal.
@Suite("uFR serial link", .timeLimit(.minutes(1)))
struct UFRSerialLinkTests {
    @Test("a reader on a serial line: identity, a DESFire session, a lifted card")
    func serialLine() async throws {
        let line = try await SimulatedUFRSerialLine.start(reader: SimulatedUFRReader(card: DESFireCard(seed: 5)))
        var options = ReaderSourceOptions(logger: UFRTestSupport.logger)
        options.backendSettings[UFRSourceSettings.self] = UFRSourceSettings(timing: UFRTestSupport.timing)
        let opened = try await ReaderSelector(
            parsing: "ufr:serial:\(line.path),baud=115200", sources: [UFRReaderSource()]
        ).open(options: options)
        let reader = try #require(opened.readers.first)
        #expect(reader.info.id == "ufr:serial:\(line.path),baud=115200")
        #expect(reader.info.serialNumber == "ON123456")
        try await reader.withSession { session in
            let version = try await session.transmit(try CommandAPDU(bytes: UFRTestSupport.getVersion))
            #expect(version.sw1 == 0x91 && version.sw2 == 0xAF)
        }
        await line.reader.liftOnNextAPDU()
        let session = try await reader.connect()
        await #expect(throws: UFRError.readerError(.apduTransceive, .noCard)) {
            _ = try await session.transmit(try CommandAPDU(bytes: UFRTestSupport.getVersion))
        }
        await session.close()
        try await opened.close()
        await line.stop()
    }

    @Test("a path that is no terminal fails as a connection error")
    func notATerminal() async throws {
        await #expect(throws: UFRError.self) { try await UFRSerialPort.open(path: "/dev/null") }
        await #expect(throws: UFRError.self) { try await UFRSerialPort.open(path: "/nonexistent/ttyUSB9") }
    }
}
