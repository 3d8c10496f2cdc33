import Testing

/// `cardctl simulate-ufr --usb -- COMMAND`: the seed app's DESFire workflow with provided keys
/// through `cardctl --reader ufr:usb:…` (libftdi1) against the simulated USB uFR Nano.
extension USBIntegration {
    @Suite struct SimulateUFRUSBCommand {
        static let key = "00112233445566778899AABBCCDDEEFF"
        static let zero = String(repeating: "00", count: 16)

        @Test func desfireWorkflowOverUSB() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            let cardctl = try Cardctl.executable()
            // Each step is its own cardctl process opening the reader afresh, as a user runs them.
            let steps = [
                "desfire format",
                "desfire create-app --aid A1A2A3 --key-count 2",
                "desfire change-key --aid A1A2A3 --key \(Self.zero) --new-key \(Self.key)",
                "desfire create-file --aid A1A2A3 --key \(Self.key) --file 2 --size 32 --comm enc",
                "desfire write --aid A1A2A3 --key \(Self.key) --file 2 --data CAFEF00D",
                "desfire read --aid A1A2A3 --key \(Self.key) --file 2 --length 4 --json",
            ]
            let script =
                "set -e; echo \"selector=$CARDCTL_UFR_USB\"; "
                + steps.map { "\"$0\" --reader \"$CARDCTL_UFR_USB\" \($0)" }.joined(separator: "; ")
            let run = try await Cardctl.run([
                "simulate-ufr", "--usb", "--usb-serial", "UN654321", "--card", "desfire,seed=21", "--", "sh", "-c",
                script, cardctl,
            ])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("selector=ufr:usb:UN654321"), "\(run)")
            #expect(run.stdout.contains("\"CAFEF00D\""), "\(run)")
        }

        /// The reader-key mode: the reader runs each operation with keys from its slots; the
        /// last step reads over CardFlow's own secure messaging with the slot's key in hex.
        @Test func desfireWorkflowWithReaderKeysOverUSB() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            let cardctl = try Cardctl.executable()
            let steps = [
                "printf \(Self.key) | \"$0\" --reader \"$CARDCTL_UFR_USB\" ufr key-write 3 -",
                "\"$0\" --reader \"$CARDCTL_UFR_USB\" desfire des-to-aes --new-reader-key 3",
                "\"$0\" --reader \"$CARDCTL_UFR_USB\" desfire format --reader-key 3",
                "\"$0\" --reader \"$CARDCTL_UFR_USB\" desfire create-app --aid A1A2A3 --reader-key 3",
                "\"$0\" --reader \"$CARDCTL_UFR_USB\" desfire change-key --aid A1A2A3 --reader-key 0 --new-reader-key 3",
                "\"$0\" --reader \"$CARDCTL_UFR_USB\" desfire create-file --aid A1A2A3 --reader-key 3 --file 2 --size 32 --comm enc",
                "\"$0\" --reader \"$CARDCTL_UFR_USB\" desfire write --aid A1A2A3 --reader-key 3 --file 2 --data CAFEF00D --comm enc",
                "\"$0\" --reader \"$CARDCTL_UFR_USB\" desfire read --aid A1A2A3 --key \(Self.key) --file 2 --length 4 --json",
            ]
            let run = try await Cardctl.run([
                "simulate-ufr", "--usb", "--usb-serial", "UN654322", "--card", "desfire,seed=22", "--", "sh", "-c",
                "set -e; " + steps.joined(separator: "; "), cardctl,
            ])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("\"CAFEF00D\""), "\(run)")
        }

        @Test func usbNeedsACommand() async throws {
            guard try MockEnvironment.testbed() != nil else { return }
            let run = try await Cardctl.run(["simulate-ufr", "--usb"])
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.contains("--usb needs the command"), "\(run)")
        }
    }
}
