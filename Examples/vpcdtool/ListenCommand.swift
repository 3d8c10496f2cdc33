import ArgumentParser
import CardFlow
import CardFlowVPCDProtocol
import Foundation

/// `vpcdtool listen`: the reader side. Waits for a card side (vicc, the phone app), powers it,
/// and sends the APDUs read from standard input.
struct ListenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "listen",
        abstract: "Listen for a vpcd card side, power it on and send APDUs from standard input.",
        discussion: """
            Input: one command APDU in hex per line; "reset" resets the card; "#" starts a comment.
            Output: "ATR <hex>" after power on (and after each reset), then one line per APDU:
            "OK <hex>" with the whole response, or "ERR <error>". With --repeat N the script runs
            N times and only the rate is printed: "RATE <apdus> <seconds> <apdus per second>".
            Exit status 1 when an APDU failed or no card came.
            """)

    @Option(help: "The address to listen on (loopback only unless --allow-remote).") var host = "127.0.0.1"
    @Option(help: "The port (35963 is vpcd's first slot).") var port = 35963
    @Flag(help: "Allow a non-loopback address (the protocol has no authentication or encryption).") var allowRemote =
        false
    @Option(help: "Seconds to wait for a card side to connect.") var wait = 20.0
    @Option(help: "Milliseconds an answer may take.") var timeoutMs = 5_000
    @Option(help: "Run the script this many times and print only the rate.") var `repeat` = 0
    @OptionGroup var common: CommonOptions

    func run() async throws {
        let logger = common.makeLogger()
        let script = Self.readScript()
        let configuration = VPCDListener.Configuration(timeouts: VPCDTimeouts(answer: .milliseconds(timeoutMs)))
        let failed = try await VPCDListener.withListener(
            host: host, port: port, allowRemote: allowRemote,
            configuration: configuration, logger: logger
        ) { listener in
            let card = try await Self.waitForCard(listener, seconds: wait)
            print("ATR \(try await card.powerOn().hexString)")
            if self.repeat > 0 { return try await Self.measure(script, times: self.repeat, on: card) }
            return try await Self.runScript(script, on: card)
        }
        if failed { throw ExitCode(1) }
    }

    enum Step: Sendable {
        case apdu([UInt8])
        case reset
    }

    static func readScript() -> [Step] {
        var steps: [Step] = []
        while let line = readLine() {
            let text =
                line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if trimmed.lowercased() == "reset" { steps.append(.reset); continue }
            guard let bytes = try? [UInt8](hex: trimmed) else {
                print("ERR not hex: \(trimmed)")
                continue
            }
            steps.append(.apdu(bytes))
        }
        return steps
    }

    static func waitForCard(_ listener: VPCDListener, seconds: Double) async throws -> VPCDCardConnection {
        try await withThrowingTaskGroup(of: VPCDCardConnection.self) { group in
            group.addTask { try await listener.waitForCard() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw ValidationError("no card side connected within \(seconds) s")
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }

    /// Returns whether any step failed.
    static func runScript(_ script: [Step], on card: VPCDCardConnection) async throws -> Bool {
        var failed = false
        for step in script {
            do {
                switch step {
                case .reset: print("ATR \(try await card.reset().hexString)")
                case .apdu(let apdu): print("OK \(try await card.transmit(apdu).hexString)")
                }
            } catch {
                print("ERR \(error)")
                failed = true
            }
        }
        return failed
    }

    static func measure(_ script: [Step], times: Int, on card: VPCDCardConnection) async throws -> Bool {
        let apdus = script.compactMap { step -> [UInt8]? in
            if case .apdu(let apdu) = step { return apdu } else { return nil }
        }
        guard !apdus.isEmpty else { return false }
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<times {
            for apdu in apdus { _ = try await card.transmit(apdu) }
        }
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let count = times * apdus.count
        print("RATE \(count) \(String(format: "%.3f", seconds)) \(String(format: "%.1f", Double(count) / seconds))")
        return false
    }
}
