import CardFlow
import CardFlowDESFire
import CardFlowSimulatorCards
import CardFlowSimulatorUFR
import CardFlowSimulatorUSB
import Logging
import Testing

@testable import CardFlowUFR

/// `ufr:usb` (libftdi1) against a simulated uFR Nano behind the emulated FTDI chip: the real
/// libftdi → libusb → usbdevfs path, with nothing of the client in the device model.
extension USBIntegration {
    @Suite(.timeLimit(.minutes(2))) struct UFROverFTDI {
        static let logger = Logger(label: "cardflow.ufr.usb.test")
        static let timing = UFRTiming(replyTimeout: .milliseconds(800))
        static let getVersion: [UInt8] = [0x90, 0x60, 0x00, 0x00, 0x00]

        /// A USB uFR Nano with `card`, and the backend's reader on it through the source plug.
        static func open(
            _ testbed: USBTestbed, serial: String, card: (any VirtualCard)? = DESFireCard(seed: 7),
            selectorOptions: String = "", resetWhenRTSAsserted: Bool = true
        ) async throws -> (EmulatedFTDIUFRReader, OpenedReaders) {
            let device = try testbed.attachUFR(
                SimulatedUFRReader(card: card, serialNumber: serial), resetWhenRTSAsserted: resetWhenRTSAsserted)
            var options = ReaderSourceOptions(logger: logger)
            options.backendSettings[UFRSourceSettings.self] = UFRSourceSettings(timing: timing)
            do {
                let opened = try await ReaderSelector(
                    parsing: "ufr:usb:\(serial)\(selectorOptions)", sources: [UFRReaderSource()]
                ).open(options: options)
                return (device, opened)
            } catch {
                device.close()
                throw error
            }
        }

        /// The device straight on a connection, for tests below the Reader.
        static func device(_ serial: String) async throws -> UFRReaderDevice {
            let link = try await UFRFTDILink.open(options: UFRFTDIOptions(serial: serial), logger: logger)
            return UFRReaderDevice(
                connection: UFRConnection(link: link, timing: timing, logger: logger), logger: logger)
        }

        @Test("opening sets the chip up as the vendor does and identifies the reader")
        func identityAndLine() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let (device, opened) = try await Self.open(testbed, serial: "UN100001")
            defer { device.close() }
            let info = try #require(opened.readers.first).info
            #expect(info.backend == "ufr")
            #expect(info.id == "ufr:usb:UN100001")
            #expect(info.serialNumber == "UN100001")
            let line = device.line
            #expect(line == SimulatedUFRUART.Line(baudRate: 1_000_000, rtsAsserted: false), "\(line)")
            #expect(device.latencyMilliseconds == 2)
            #expect(device.uart.resetCount == 0, "no reset pulse unless asked")
            try await opened.close()
        }

        @Test("no such serial: a typed connection failure naming the endpoint")
        func noSuchDevice() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let device = try testbed.attachUFR(SimulatedUFRReader(serialNumber: "UN100002"))
            defer { device.close() }
            do {
                _ = try await UFRFTDILink.open(options: UFRFTDIOptions(serial: "UN999999"), logger: Self.logger)
                Issue.record("a device that is not there opened")
            } catch let error as UFRError {
                guard case .connectionFailed(let endpoint, _) = error else {
                    Issue.record("unexpected \(error)")
                    return
                }
                #expect(endpoint == "usb:UN999999")
                #expect(error.category == .reader)
            }
        }

        @Test("DESFire through ufr:usb: authenticate, create an AES application and file, write, read back")
        func desfireFlow() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let (device, opened) = try await Self.open(testbed, serial: "UN100003", card: DESFireCard(seed: 3))
            defer { device.close() }
            let reader = try #require(opened.readers.first)
            let aid = try DESFireApplicationID(hex: "0A0B0C")
            let appKey = try DESFireKey(type: .aes, bytes: Array(0x10..<0x20))
            let text = Array("CARDFLOW THROUGH uFR OVER USB, MORE THAN ONE 62-BYTE FTDI PACKET".utf8)
            try await reader.withSession { session in
                #expect(await session.identity.atr == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80])
                let client = DESFireClient(channel: session)
                try await client.authenticate(keyNumber: 0, key: .defaultDES)
                try await client.createApplication(aid, settings: 0x0F, keyCount: 2, keyType: .aes)
                try await client.selectApplication(aid)
                try await client.authenticate(keyNumber: 0, key: .defaultAES)
                try await client.changeKey(keyNumber: 1, to: appKey, oldKey: .defaultAES)
                try await client.createDataFile(
                    file: 1, size: 96, commMode: .enciphered,
                    accessRights: DESFireAccessRights(read: 1, write: 1, readWrite: 1, change: 0))
                try await client.authenticate(keyNumber: 1, key: appKey)
                try await client.writeData(file: 1, data: text)
            }
            let read = try await reader.withSession { session in
                let client = DESFireClient(channel: session)
                try await client.selectApplication(aid)
                try await client.authenticate(keyNumber: 1, key: appKey)
                return try await client.readData(file: 1, offset: 0, length: text.count)
            }
            #expect(read == text)
            #expect(await device.reader.isSessionOpen == false, "the session ends with a deselect")
            try await opened.close()
        }

        @Test("a card lifted mid-exchange is the typed card loss; the reader then finds no card")
        func liftedMidExchange() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let (device, opened) = try await Self.open(testbed, serial: "UN100004")
            defer { device.close() }
            let reader = try #require(opened.readers.first)
            let session = try await reader.connect()
            await device.reader.liftOnNextAPDU()
            do {
                _ = try await session.transmit(try CommandAPDU(bytes: Self.getVersion))
                Issue.record("an APDU to a lifted card returned")
            } catch {
                #expect(error.meansCardLost, "\(error)")
                #expect(error.errorCategory == .card)
            }
            await session.close()
            let driver = try #require(reader.driver as? UFRReaderDriver)
            #expect(try await driver.device.presence() == .absent)
            try await opened.close()
        }

        @Test("cancelling mid-APDU returns at once and leaves the reader usable")
        func cancellationMidAPDU() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let device = try testbed.attachUFR(SimulatedUFRReader(card: DESFireCard(seed: 5), serialNumber: "UN100005"))
            defer { device.close() }
            let ufr = try await Self.device("UN100005")
            _ = try await ufr.powerOn()
            await device.reader.holdNextAPDU()
            let pending = Task { try await ufr.transmit(Self.getVersion) }
            await device.reader.waitForHeldAPDU()
            pending.cancel()
            let outcome = await pending.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            await device.reader.releaseAPDU()
            // The held GetVersion's late answer (91 AF) must not be taken for this one's.
            let answer = try await ufr.transmit([0x90, 0x6E, 0x00, 0x00, 0x00]) // GetFreeMemory
            #expect(answer.suffix(2) == [0x91, 0x00], "\(answer)")
            await ufr.connection.close()
        }

        @Test("every hostile mode ends in a typed error within the deadline", arguments: UFRSimulatorFault.allCases)
        func hostile(_ fault: UFRSimulatorFault) async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let serial = "UN2000\(UFRSimulatorFault.allCases.firstIndex(of: fault)!)0"
            let device = try testbed.attachUFR(SimulatedUFRReader(card: DESFireCard(seed: 6), serialNumber: serial))
            defer { device.close() }
            let ufr = try await Self.device(serial)
            _ = try await ufr.powerOn()
            await device.reader.setFault(fault)
            let clock = ContinuousClock()
            let started = clock.now
            do {
                _ = try await ufr.transmit(Self.getVersion)
                Issue.record("a hostile reader's answer was taken")
            } catch let error as UFRError {
                switch error {
                case .timedOut, .corruptReply: #expect(error.category != .usage)
                default: Issue.record("unexpected error \(error)")
                }
            }
            #expect(clock.now - started < Self.timing.replyTimeout * 3)
            await ufr.connection.close()
        }

        @Test("unplugged: the next command fails as a closed link, within the transfer bound")
        func unplugged() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let device = try testbed.attachUFR(SimulatedUFRReader(card: DESFireCard(seed: 8), serialNumber: "UN100006"))
            defer { device.close() }
            let ufr = try await Self.device("UN100006")
            #expect(try await ufr.presence() == .present)
            device.unplug()
            do {
                _ = try await ufr.presence()
                Issue.record("a command to an unplugged reader returned")
            } catch let error as UFRError {
                switch error {
                case .sendFailed, .linkClosed: #expect(error.category == .reader)
                default: Issue.record("unexpected error \(error)")
                }
            }
            await ufr.connection.close()
        }

        @Test("RTS polarity is an option: a reader wired the other way stays in reset until rts=high")
        func rtsPolarity() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            // The reader runs only while RTS is asserted: the default (RTS cleared) finds it mute.
            await #expect(throws: UFRError.self) {
                _ = try await Self.open(testbed, serial: "UN100007", resetWhenRTSAsserted: false)
            }
            let (device, opened) = try await Self.open(
                testbed, serial: "UN100008", selectorOptions: ",rts=high", resetWhenRTSAsserted: false)
            defer { device.close() }
            #expect(device.line.rtsAsserted)
            #expect(try #require(opened.readers.first).info.serialNumber == "UN100008")
            try await opened.close()
        }

        @Test("reset on open: the RTS pulse restarts the reader and its bootloader bytes are dropped")
        func resetOnOpen() async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let (device, opened) = try await Self.open(testbed, serial: "UN100009", selectorOptions: ",reset")
            defer { device.close() }
            #expect(try #require(opened.readers.first).info.serialNumber == "UN100009")
            #expect(device.line.rtsAsserted == false)
            #expect(device.uart.resetCount == 1, "one reset pulse, one restart")
            try await opened.close()
        }
    }
}
