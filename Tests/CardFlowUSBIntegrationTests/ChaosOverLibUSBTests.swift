import CardFlow
import CardFlowCCID
import CardFlowCCIDProtocol
import CardFlowSimulator
import CardFlowSimulatorUSB
import Foundation
import Logging
import Testing

/// The chaos reader behind umockdev: the real libusb transport meets stalls, babble (oversized
/// answers), empty transfers, lies in dwLength, storms and lost answers. Every operation must end
/// in success or a typed error, promptly, and the process must survive.
/// `CARDFLOW_USB_CAMPAIGN_SESSIONS=N` runs more sessions.
extension USBIntegration {
    @Suite struct ChaosOverLibUSB {
        static let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
        static let readEF0101: [UInt8] = [0x00, 0xB0, 0x81, 0x00, 0x20]

        @Test(
            "sessions over libusb against a chaotic emulated reader end in success or typed errors",
            arguments: [CCIDExchangeLevel.extendedAPDU, .tpdu])
        func chaoticReaderOverLibUSB(level: CCIDExchangeLevel) async throws {
            guard let testbed = try MockEnvironment.testbed() else { return }
            let sessions =
                ProcessInfo.processInfo.environment["CARDFLOW_USB_CAMPAIGN_SESSIONS"].flatMap(Int.init) ?? 100
            var configuration = VirtualReaderConfiguration.level(level)
            let serial = "CFCHAOS\(UInt32.random(in: 0...UInt32.max))"
            configuration.serialNumber = serial
            configuration.chaos = ReaderChaos(
                seed: level == .tpdu ? 0x7D0 : 0xE47, rate: 0.2, stormInterval: .milliseconds(20))
            let virtual = VirtualCCIDReader(configuration: configuration)
            await virtual.insert(ISO7816Card(seed: 1))
            let emulated = try testbed.attach(virtual)
            let context = try LibUSBContext()
            // Short bounds, so lost answers and storms cost milliseconds, not minutes.
            var driverConfiguration = CCIDDriverConfiguration()
            driverConfiguration.readTimeout = .milliseconds(150)
            driverConfiguration.powerOnTimeout = .milliseconds(300)
            driverConfiguration.writeTimeout = .milliseconds(500)
            driverConfiguration.abortTimeout = .milliseconds(100)
            driverConfiguration.exchangeTimeLimit = .seconds(1)
            var quiet = Logger(label: "cardflow.ccid.chaos")
            quiet.logLevel = .error
            let (_, transport, driver) = try context.openDriver(
                .serialNumber(serial), configuration: driverConfiguration,
                logger: quiet)
            var failures: [String] = []
            var errorKinds: Set<String> = []
            var clean = 0
            var slowest: Duration = .zero
            for index in 0..<sessions {
                let started = ContinuousClock.now
                var errors = 0
                func attempt(_ body: () async throws -> Void) async {
                    do {
                        try await body()
                    } catch let error as CCIDDriverError {
                        errors += 1
                        errorKinds.insert(String("\(error)".prefix(40)))
                    } catch {
                        failures.append("session \(index): untyped error \(type(of: error)): \(error)")
                    }
                }
                await attempt { _ = try await driver.powerOn() }
                await attempt { _ = try await driver.transmit(Self.select) }
                await attempt { _ = try await driver.transmit(Self.readEF0101) }
                await attempt { try await driver.powerOff() }
                if errors == 0 { clean += 1 }
                let elapsed = ContinuousClock.now - started
                slowest = max(slowest, elapsed)
                // Four operations, each within its 1 s limit plus its abort handshake.
                if elapsed > .seconds(12) { failures.append("session \(index) took \(elapsed)") }
                if transport.isDeviceGone { failures.append("session \(index): the device went away"); break }
            }
            #expect(failures.isEmpty, "\(failures.prefix(10))")
            #expect(clean > 0 && clean < sessions, "\(clean) of \(sessions) sessions clean")
            #expect(errorKinds.count >= 3, "\(errorKinds.sorted())")
            transport.close()
            context.close()
            await emulated.unplug()
        }
    }
}
