import ArgumentParser
import Dispatch
import Foundation

// Global options may come before or after the subcommand: see GlobalOptions.
let arguments = Array(CommandLine.arguments.dropFirst())

/// Parses and runs the command, then closes the readers it left open; returns the process exit
/// status.
@Sendable func runCardCtl() async -> Int32 {
    let status = await parseAndRunCardCtl()
    await OpenReaderConnections.shared.closeAll()
    return status
}

/// Parses and runs the command; returns the process exit status.
@Sendable func parseAndRunCardCtl() async -> Int32 {
    let command: any ParsableCommand
    do {
        command = try CardCtl.parseAsRoot(arguments)
    } catch {
        if CardCtl.exitCode(for: error) == .success {
            Output.standardOutput(CardCtl.fullMessage(for: error))
            return ExitStatus.ok.rawValue
        }
        Output.standardError(CardCtl.fullMessage(for: error))
        return ExitStatus.usage.rawValue
    }
    do {
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            var syncCommand = command
            try syncCommand.run()
        }
        return ExitStatus.ok.rawValue
    } catch let exit as ExitCode {
        return exit.rawValue
    } catch  where isArgumentParserOutcome(error) {
        // Help and usage requests surface from run(): print them as ArgumentParser would.
        let code = CardCtl.exitCode(for: error)
        if code == .success {
            Output.standardOutput(CardCtl.fullMessage(for: error))
            return ExitStatus.ok.rawValue
        }
        Output.standardError(CardCtl.fullMessage(for: error))
        return ExitStatus.usage.rawValue
    } catch {
        let status = ExitStatus.of(error)
        Output.standardError(status == .cancelled ? "cancelled" : "error: \(error)")
        return status.rawValue
    }
}

/// True for errors that ArgumentParser raises itself (help requested, validation, usage).
func isArgumentParserOutcome(_ error: any Error) -> Bool {
    if error is ValidationError || error is CleanExit { return true }
    return String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
}

// SIGINT, SIGTERM and SIGHUP cancel the running command; its cancellation path stops the USB
// transfer, and commands that hold state (export's `state=` card file) save it on the way out,
// whether Ctrl-C, kill, timeout or systemd stopped them. On Linux libdispatch installs its own
// signal handler when a source is resumed (replacing both the default action and an inherited
// SIG_IGN), so these signals must not be set to SIG_IGN afterwards.
let work = Task<Int32, Never> { await runCardCtl() }
let stopSignals: [DispatchSourceSignal] = [SIGINT, SIGTERM, SIGHUP].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
    source.setEventHandler {
        // `simulate`'s child owns SIGINT and SIGTERM while it runs (should this source see the
        // signal first).
        if ChildSignalForwarding.owns(number) {
            ChildSignalForwarding.deliver(number)
            return
        }
        InterruptGrace.received(number)
        work.cancel()
        // Should a blocking call ignore cancellation, still honour the signal promptly (a
        // second one at once).
        guard let grace = InterruptGrace.nextGraceMilliseconds() else {
            Output.standardError("cancelled")
            exit(InterruptGrace.exitStatus(ExitStatus.cancelled.rawValue))
        }
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(grace)) {
            Output.standardError("cancelled")
            exit(InterruptGrace.exitStatus(ExitStatus.cancelled.rawValue))
        }
    }
    source.resume()
    return source
}
Task {
    let status = await work.value
    withExtendedLifetime(stopSignals) {}
    exit(InterruptGrace.exitStatus(status))
}
dispatchMain()
