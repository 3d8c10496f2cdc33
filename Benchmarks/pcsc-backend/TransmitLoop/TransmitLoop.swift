// The Swift side of Benchmarks/pcsc-backend/run.sh, twin of transmit-loop.c: the same APDU N
// times through PCSCCardConnection.transmit, from an ordinary task (each APDU hops to the
// context's PC/SC thread and back, as any caller's would); with -s, through a CardFlow session
// on the PC/SC reader backend (Reader over PCSCReaderDriver) instead.
// Usage: pcsc-transmit-loop [-s] [-n N] [-w WARMUP] READER_SUBSTRING
// Prints: swift N APDUs SECONDS s RATE APDU/s (session N APDUs … with -s)
import CardFlow
import CardFlowPCSC
import CardFlowPCSCLite
import Logging

#if canImport(Glibc)
import Glibc
#endif

@main
enum TransmitLoop {
    /// SELECT A0000002471001 with Le: the simulated ISO 7816 card answers its FCI + 90 00.
    static let apdu: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01, 0x00]

    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        var count = 2000
        var warmup = 50
        let throughSession = arguments.first == "-s"
        if throughSession { arguments.removeFirst() }
        while arguments.count > 1, let flag = arguments.first, flag.hasPrefix("-"), let value = Int(arguments[1]) {
            if flag == "-n" { count = value } else if flag == "-w" { warmup = value }
            arguments.removeFirst(2)
        }
        guard arguments.count == 1, count > 0, warmup >= 0 else {
            fail("usage: pcsc-transmit-loop [-s] [-n N] [-w WARMUP] READER_SUBSTRING", status: 2)
        }
        do {
            let context = try await PCSCContext(logger: Logger(label: "pcsc-transmit-loop"))
            guard let reader = try await context.readers().first(where: { $0.contains(arguments[0]) }) else {
                fail("pcsc-transmit-loop: no reader containing \"\(arguments[0])\"", status: 2)
            }
            if throughSession {
                try await sessionLoop(context: context, reader: reader, count: count, warmup: warmup)
                return
            }
            let card = try await context.connect(reader: reader)
            var start = ContinuousClock.now
            for index in -warmup..<count {
                if index == 0 { start = .now }
                let answer = try await card.transmit(apdu)
                guard answer.count >= 2, answer[answer.count - 2] == 0x90, answer[answer.count - 1] == 0x00 else {
                    fail("pcsc-transmit-loop: APDU \(index): answer \(answer)", status: 1)
                }
            }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                "swift \(count) APDUs \((seconds * 1000).rounded() / 1000) s \((Double(count) / seconds * 10).rounded() / 10) APDU/s"
            )
            try await card.disconnect()
        } catch {
            fail("pcsc-transmit-loop: \(error)", status: 2)
        }
    }

    /// The same loop through a CardFlow session (tracing off, metrics to nowhere).
    static func sessionLoop(context: PCSCContext, reader name: String, count: Int, warmup: Int) async throws {
        let reader = Reader(pcsc: name, context: context)
        let command = try CommandAPDU(bytes: apdu)
        let elapsed = try await reader.withSession { session in
            var start = ContinuousClock.now
            for index in -warmup..<count {
                if index == 0 { start = .now }
                let answer = try await session.transmit(command)
                guard answer.statusWord == .success else {
                    fail("pcsc-transmit-loop: APDU \(index): status \(answer.statusWord)", status: 1)
                }
            }
            return ContinuousClock.now - start
        }
        await reader.pcsc?.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "session \(count) APDUs \((seconds * 1000).rounded() / 1000) s \((Double(count) / seconds * 10).rounded() / 10) APDU/s"
        )
    }

    /// Writes to standard error and exits (the C `stderr` global is not concurrency-safe in Swift 6).
    static func fail(_ message: String, status: Int32) -> Never {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(status)
    }
}
