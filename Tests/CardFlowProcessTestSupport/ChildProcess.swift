import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A program the tests start, on posix_spawn: stdin is a pipe, /dev/null or a file, stdout and
/// stderr are collected by threads of their own (a full pipe can never block the child), or go to
/// /dev/null or a file, and a thread of its own waits for the exit.
///
/// Not Foundation's `Process`: in the parallel test process (1,500 tests, ~1,300 descriptors
/// open) swift-corelibs-foundation's `Process.run()` crashed now and then (a memcpy fault inside
/// it, seen in a fresh-clone CI run). Here the child gets only its 0, 1 and 2 (everything else is
/// closed in the child before exec), starts with no signal blocked and every signal at its
/// default, and the pipes of one child are never inherited by another started meanwhile.
public final class ChildProcess: Sendable {
    /// Where the child's stdin comes from.
    public enum Input: Sendable {
        /// /dev/null.
        case null
        /// A pipe the test writes with ``write(_:)`` and ends with ``closeInput()``.
        case pipe
    }

    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// Collected in memory: ``outputText``, ``nextOutputLine(timeout:)``, the result.
        case collect
        /// /dev/null.
        case null
        /// Appended to the file at the path (created if missing).
        case file(String)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        /// As Foundation's `terminationStatus`: the exit code, or the signal's number.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signalled(let signal): "signal \(signal)"
            }
        }
    }

    /// What a finished child left behind.
    public struct Result: Sendable, CustomStringConvertible {
        public let command: [String]
        public let termination: Termination
        public let output: Data
        public let errors: Data

        public var status: Int32 { termination.status }
        public var outputText: String { String(decoding: output, as: UTF8.self) }
        public var errorText: String { String(decoding: errors, as: UTF8.self) }

        public var description: String {
            "\(command.joined(separator: " ")) → \(termination)\n--- stdout\n\(outputText)--- stderr\n\(errorText)---"
        }
    }

    /// The program and its arguments.
    public let command: [String]
    /// The child's process id.
    public let pid: pid_t
    private let input: Mutex<Int32>
    private let output: CollectedStream?
    private let errors: CollectedStream?
    private let exit = ExitState()

    /// Starts `executable` (a path; a bare name is looked up in `PATH`) with `arguments`.
    /// `environment` nil gives the child this process's environment; `workingDirectory` nil this
    /// process's current directory.
    public init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        workingDirectory: String? = nil,
        input: Input = .null, output outputTarget: Output = .collect, errors errorTarget: Output = .collect
    ) throws {
        Self.ignoreBrokenPipes
        command = [executable] + arguments
        var opened: [Int32] = []
        var ours: [Int32] = []
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        do {
            var inputEnd: Int32 = -1
            switch input {
            case .null:
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            case .pipe:
                let ends = try Self.makePipe()
                opened += [ends.read, ends.write]
                posix_spawn_file_actions_adddup2(&actions, ends.read, 0)
                inputEnd = ends.write
            }
            var readEnds: [Int32?] = []
            for (target, descriptor) in [(outputTarget, Int32(1)), (errorTarget, Int32(2))] {
                switch target {
                case .collect:
                    let ends = try Self.makePipe()
                    opened += [ends.read, ends.write]
                    posix_spawn_file_actions_adddup2(&actions, ends.write, descriptor)
                    readEnds.append(ends.read)
                case .null:
                    posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
                    readEnds.append(nil)
                case .file(let path):
                    posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
                    readEnds.append(nil)
                }
            }
            // dup2 clears close-on-exec on 0, 1 and 2; nothing else reaches the child.
            _ = Self.closeFrom.map { $0(&actions, 3) }
            if let workingDirectory {
                guard let changeDirectory = Self.changeDirectory else {
                    throw ChildProcessError(description: "this C library cannot set a child's working directory")
                }
                _ = changeDirectory(&actions, workingDirectory)
            }
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var noSignals = sigset_t()
            sigemptyset(&noSignals)
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            var allSignals = sigset_t()
            sigfillset(&allSignals)
            posix_spawnattr_setsigdefault(&attributes, &allSignals)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
            let argv = command.map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            let variables = environment ?? ProcessInfo.processInfo.environment
            let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
            defer { for pointer in envp { free(pointer) } }
            var child: pid_t = 0
            let spawned =
                executable.contains("/")
                ? posix_spawn(&child, executable, &actions, &attributes, argv, envp)
                : posix_spawnp(&child, executable, &actions, &attributes, argv, envp)
            guard spawned == 0 else {
                throw ChildProcessError(
                    description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
            }
            // The child holds its ends now; the parent keeps the write end of stdin and the read
            // ends of the collected streams.
            ours = [inputEnd] + readEnds.compactMap { $0 }
            for descriptor in opened where !ours.contains(descriptor) { close(descriptor) }
            pid = child
            self.input = Mutex(inputEnd)
            output = readEnds[0].map { CollectedStream(draining: $0) }
            errors = readEnds[1].map { CollectedStream(draining: $0) }
        } catch {
            for descriptor in opened { close(descriptor) }
            throw error
        }
        exit.watch(pid)
    }

    /// A test that stops early (a failed `#require`, a thrown error) must not leave the child
    /// running; the exit watch reaps it.
    deinit {
        if exit.termination == nil { kill(pid, SIGKILL) }
        closeInput()
    }

    /// Writing to the stdin of a child that has ended must fail the write, not end the test
    /// process with SIGPIPE.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Glibc has `pipe2`, `posix_spawn_file_actions_addclosefrom_np` (2.34+) and `…_addchdir_np`
    /// (2.29+), but its Swift module does not export them (they need _GNU_SOURCE): found at run
    /// time.
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private typealias AddChangeDirectory =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?
        ) -> Int32
    private static let pipe2: Pipe2? = unsafeBitCast(dlsym(dlopen(nil, RTLD_NOW), "pipe2"), to: Pipe2?.self)
    private static let closeFrom: AddCloseFrom? = unsafeBitCast(
        dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np"), to: AddCloseFrom?.self)
    private static let changeDirectory: AddChangeDirectory? = unsafeBitCast(
        dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addchdir_np"), to: AddChangeDirectory?.self)

    /// A pipe whose both ends close at exec, so no child started by another thread inherits it.
    private static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        if let pipe2 {
            guard pipe2(&descriptors, O_CLOEXEC) == 0 else {
                throw ChildProcessError(description: "pipe2: \(String(cString: strerror(errno)))")
            }
        } else {
            guard pipe(&descriptors) == 0 else {
                throw ChildProcessError(description: "pipe: \(String(cString: strerror(errno)))")
            }
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        }
        return (descriptors[0], descriptors[1])
    }

    /// Writes every byte to the child's stdin (``Input/pipe``); a child that has ended makes the
    /// write fail quietly.
    public func write(_ bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        input.withLock { descriptor in
            var offset = 0
            while offset < bytes.count, descriptor >= 0 {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }

    /// Writes `text` as UTF-8 to the child's stdin.
    public func write(_ text: String) { write(Array(text.utf8)) }

    /// Closes the child's stdin (end of input).
    public func closeInput() {
        input.withLock { descriptor in
            if descriptor >= 0 {
                close(descriptor)
                descriptor = -1
            }
        }
    }

    /// How the child ended; nil while it runs.
    public var termination: Termination? { exit.termination }

    public var isRunning: Bool { exit.termination == nil }

    /// When the child's exit was seen (by a thread of its own, not the busy Swift pool).
    public var exitInstant: ContinuousClock.Instant? { exit.instant }

    /// Sends `signal` unless the child has ended.
    public func send(signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// What the child wrote to stdout (``Output/collect``) so far.
    public var outputText: String { output?.text ?? "" }
    /// What the child wrote to stderr (``Output/collect``) so far.
    public var errorText: String { errors?.text ?? "" }

    /// The next complete stdout line not handed out yet; nil at the end or after `timeout`.
    public func nextOutputLine(timeout: Duration = .seconds(10)) async -> String? {
        await output?.nextLine(deadline: ContinuousClock.now + timeout)
    }

    /// The next complete stderr line not handed out yet; nil at the end or after `timeout`.
    public func nextErrorLine(timeout: Duration = .seconds(10)) async -> String? {
        await errors?.nextLine(deadline: ContinuousClock.now + timeout)
    }

    /// Waits for the child to end and its collected streams to close; kills it and throws when
    /// that takes longer than `timeout`.
    public func waitForExit(timeout: Duration = .seconds(20)) async throws -> Result {
        let deadline = ContinuousClock.now + timeout
        guard await Self.poll(until: deadline, { self.exit.termination != nil }) else {
            kill(pid, SIGKILL)
            _ = await Self.poll(until: ContinuousClock.now + .seconds(2)) { self.exit.termination != nil }
            for stream in [output, errors] {
                _ = await stream?.waitForEnd(deadline: ContinuousClock.now + .seconds(2))
            }
            throw ChildProcessError(
                description: """
                    \(command.joined(separator: " ")) did not finish within \(timeout); killed it.
                    --- stdout so far
                    \(outputText)--- stderr so far
                    \(errorText)---
                    """)
        }
        closeInput()
        for stream in [output, errors] {
            guard await stream?.waitForEnd(deadline: ContinuousClock.now + .seconds(5)) ?? true else {
                throw ChildProcessError(
                    description: "\(command.joined(separator: " ")) exited but its output pipes stayed open")
            }
        }
        return Result(
            command: command, termination: exit.termination!, output: output?.data ?? Data(),
            errors: errors?.data ?? Data())
    }

    /// For a synchronous caller (a test trait's condition): closes stdin, then blocks the calling
    /// thread until the child has ended and its collected streams are closed. Async code uses
    /// ``waitForExit(timeout:)``.
    public func waitUntilExit() -> Result {
        closeInput()
        while exit.termination == nil || !(output?.isEnded ?? true) || !(errors?.isEnded ?? true) {
            usleep(1000)
        }
        return Result(
            command: command, termination: exit.termination!, output: output?.data ?? Data(),
            errors: errors?.data ?? Data())
    }

    /// Runs `executable arguments` to completion (at most `timeout`), stdin from `input`.
    public static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        input text: String? = nil, timeout: Duration = .seconds(20)
    ) async throws -> Result {
        let child = try ChildProcess(
            executable, arguments, environment: environment, input: text == nil ? .null : .pipe)
        if let text {
            child.write(text)
            child.closeInput()
        }
        return try await child.waitForExit(timeout: timeout)
    }

    /// Checks `condition` every 5 ms until it holds (true) or `deadline` passes (false). The
    /// states it reads are set by blocking threads, which cannot resume a task themselves.
    static func poll(until deadline: ContinuousClock.Instant, _ condition: () -> Bool) async -> Bool {
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// Why a child process could not be started or observed.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
}

/// A thread blocked in waitpid for one child.
private final class ExitState: Sendable {
    private let state = Mutex<(termination: ChildProcess.Termination?, instant: ContinuousClock.Instant?)>((nil, nil))

    var termination: ChildProcess.Termination? { state.withLock { $0.termination } }
    var instant: ContinuousClock.Instant? { state.withLock { $0.instant } }

    func watch(_ pid: pid_t) {
        let thread = Thread { [self] in
            var raw: Int32 = 0
            var termination: ChildProcess.Termination
            while true {
                if waitpid(pid, &raw, 0) >= 0 {
                    // WIFEXITED / WEXITSTATUS / WTERMSIG by hand: they are macros.
                    termination = raw & 0x7F == 0 ? .exited((raw >> 8) & 0xFF) : .signalled(raw & 0x7F)
                    break
                }
                if errno != EINTR {
                    // Not ours to reap any more: a failure, not a hang.
                    termination = .exited(127)
                    break
                }
            }
            let now = ContinuousClock.now
            state.withLock { $0 = (termination, now) }
        }
        thread.start()
    }
}
