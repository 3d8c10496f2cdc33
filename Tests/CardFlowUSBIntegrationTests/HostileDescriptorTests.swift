import Foundation
import Testing

/// A USB reader whose CCID descriptor declares an absurd dwMaxCCIDMessageLength, seen through
/// libusb: `cardctl --reader usb list` under `cardctl simulate --reader-profile` used to allocate
/// a 4 GiB buffer and trap converting its length for libusb. Now the length is clamped with a
/// warning and the card answers.
extension USBIntegration {
    @Suite struct HostileDescriptor {
        /// A one-interface extended-APDU reader dump (the pcsc-lite `parse` format the profiles
        /// use) with the given dwMaxCCIDMessageLength.
        static func profile(maxMessageLength: UInt32) -> String {
            """
             idVendor: 0x1209
              iManufacturer: CardFlow
             idProduct: 0x2702
              iProduct: Hostile Descriptor Reader
             bcdDevice: 1.00 (firmware release?)
             bLength: 9
             bDescriptorType: 4
             bInterfaceNumber: 0
             bAlternateSetting: 0
             bNumEndpoints: 3
              bulk-IN, bulk-OUT and Interrupt-IN
             bInterfaceClass: 0x0B [Chip Card Interface Device Class (CCID)]
             bInterfaceSubClass: 0
             bInterfaceProtocol: 0
              bulk transfer, optional interrupt-IN (CCID)
             iInterface: 0
             CCID Class Descriptor
              bLength: 0x36
              bDescriptorType: 0x21
              bcdCCID: 1.10
              bMaxSlotIndex: 0x00
              bVoltageSupport: 0x07
               5.0V
               3.0V
               1.8V
              dwProtocols: 0x0000 0x0003
               T=0
               T=1
              dwDefaultClock: 4.000 MHz
              dwMaximumClock: 4.000 MHz
              bNumClockSupported: 0 (will use whatever is returned)
              dwDataRate: 10752 bps
              dwMaxDataRate: 250000 bps
              bNumDataRatesSupported: 0 (will use whatever is returned)
              dwMaxIFSD: 254
              dwSynchProtocols: 0x00000000
              dwMechanical: 0x00000000
               No special characteristics
              dwFeatures: 0x00040040
               ....40 Automatic parameters negotiation made by the CCID
               04.... Short and Extended APDU level exchange with CCID
              dwMaxCCIDMessageLength: \(maxMessageLength) bytes
              bClassGetResponse: 0x00
              bClassEnvelope: 0x00
              wLcdLayout: 0x0000
              bPINSupport: 0x00
              bMaxCCIDBusySlots: 1

            """
        }

        @Test(
            "a reader declaring a huge dwMaxCCIDMessageLength is listed, with a warning, and the process survives",
            arguments: [UInt32.max, 0x8000_0000, 0x1000_0000])
        func hugeMessageLengthOverLibUSB(length: UInt32) async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("cardflow-hostile-\(UUID().uuidString)", isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("reader.txt").path
            try Self.profile(maxMessageLength: length).write(toFile: path, atomically: true, encoding: .utf8)

            let cardctl = try Cardctl.executable()
            let run = try await Cardctl.run([
                "simulate", "--reader-profile", path, "--", cardctl, "--reader", "usb", "list",
            ])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("[1209:2702]"), "\(run)")
            #expect(run.stdout.contains("\(length)-byte messages"), "\(run)")
            #expect(run.stdout.contains("card present, ATR 3B"), "the card answered: \(run)")
            #expect(run.stderr.contains("dwMaxCCIDMessageLength"), "a warning names the field: \(run)")
        }
    }
}
