import ArgumentParser
import Dispatch
import Foundation

// Global options may precede the subcommand; ArgumentParser expects them after it.
let subcommandNames: Set<String> = ["list", "apdu", "shell", "help"]
let arguments = ArgumentOrder.normalise(Array(CommandLine.arguments.dropFirst()), subcommands: subcommandNames)

let command: any ParsableCommand
do {
    command = try CardCtl.parseAsRoot(arguments)
} catch {
    let code = CardCtl.exitCode(for: error)
    if code == .success {
        print(CardCtl.fullMessage(for: error))
        exit(0)
    }
    FileHandle.standardError.write(Data((CardCtl.fullMessage(for: error) + "\n").utf8))
    exit(ExitStatus.usage.rawValue)
}

// SIGINT cancels the running command; the command's cancellation path stops the transfer.
signal(SIGINT, SIG_IGN)
let work = Task<Int32, Never> {
    do {
        if var asyncCommand = command as? any AsyncParsableCommand {
            try await asyncCommand.run()
        } else {
            var syncCommand = command
            try syncCommand.run()
        }
        return ExitStatus.ok.rawValue
    } catch {
        let status = ExitStatus.of(error)
        if status == .cancelled {
            FileHandle.standardError.write(Data("cancelled\n".utf8))
        } else if let exit = error as? ExitCode {
            return exit.rawValue
        } else {
            FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        }
        return status.rawValue
    }
}
let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
interrupt.setEventHandler {
    work.cancel()
    // Should a blocking call ignore cancellation, still honour the user's interrupt promptly.
    DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(400)) {
        FileHandle.standardError.write(Data("cancelled\n".utf8))
        exit(ExitStatus.cancelled.rawValue)
    }
}
interrupt.resume()
Task {
    let status = await work.value
    exit(status)
}
dispatchMain()
