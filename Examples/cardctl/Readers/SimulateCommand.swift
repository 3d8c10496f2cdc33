import ArgumentParser
import CardFlowSimulator
import CardFlowSimulatorUSB
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `cardctl simulate … -- COMMAND`: runs COMMAND with a simulated USB CCID reader plugged in.
/// cardctl becomes the emulator process (umockdev); COMMAND and its children see the reader
/// through libusb (`LD_PRELOAD` and `UMOCKDEV_DIR` are set for them).
struct SimulateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Run a command with a simulated USB CCID reader plugged in (umockdev).",
        discussion: """
            COMMAND runs with LD_PRELOAD=\(USBTestbed.preloadLibrary) and UMOCKDEV_DIR set, so libusb programs \
            (pcscd, cardctl --reader usb, …) find the simulated reader on an emulated USB bus. \
            Without --reader-profile the reader is 1209:2702, which pcsc-lite's CCID driver lists. \
            SIGINT and SIGTERM are passed on to COMMAND; cardctl exits with COMMAND's status \
            (128+N when a signal N ended it, 127 when COMMAND cannot be found).
            With --replay LOG the reader is the one of a pcscd + libccid debug log (LIBCCID_ifdLogLevel=0x000F \
            pcscd --foreground --debug --apdu, as pasted): it answers each CCID message the recording accepts with \
            the recorded answer and stays silent otherwise; when COMMAND has ended, what matched and what did not \
            is printed on standard error. Its descriptor comes from --reader-profile or the log's # descriptor: \
            line (in --fixtures).
            Example: cardctl simulate --card iso7816,seed=3 -- pcscd --foreground
            Example: cardctl simulate --replay Tests/Fixtures/transcripts/pcsc-71-gemalto-ct40-t1.log -- pcscd -f
            """
    )

    /// Identity of the simulated reader when no profile is given: pid.codes' test PID, listed
    /// in pcsc-lite's CCID driver without quirks.
    static let defaultVendorID: UInt16 = 0x1209
    static let defaultProductID: UInt16 = 0x2702

    /// Set in the re-executed process, so a preload that does not load cannot loop.
    static let reexecMarker = "CARDCTL_SIMULATE_REEXEC"

    @OptionGroup(title: "Global Options") var global: GlobalOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A reader descriptor dump to mimic (its VID:PID and CCID interfaces).",
            valueName: "PATH"))
    var readerProfile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The card on the reader, with sim options: iso7816|apdu-test|none[,seed=N][,latency=MS][,lift-after=N][,return-after=MS][,swap][,state=PATH][,contact=t0|t1|dual[,ta1=HH][,specific][,pps=MODE][,edc=lrc|crc]|contact=none]; a profile without T=1 or at character level gets a dual-protocol contact card unless contact= says otherwise.",
            valueName: "KIND[,options]"))
    var card: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Replay the reader of a pcscd + libccid debug log instead of simulating one.", valueName: "LOG"))
    var replay: String?

    @Option(
        name: .long,
        help: ArgumentHelp("With --replay: the folder of reader descriptor dumps.", valueName: "DIR"))
    var fixtures: String = "Tests/Fixtures/ccid-readers"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "When COMMAND has ended, write what each simulated reader's LEDs and buzzer showed to PATH (one line per reader slot with a panel).",
            valueName: "PATH"))
    var panelLog: String?

    @Argument(parsing: .postTerminator, help: ArgumentHelp("The command to run, after --.", valueName: "COMMAND"))
    var command: [String] = []

    func validate() throws {
        if command.isEmpty {
            throw ValidationError("give the command to run after --, e.g. cardctl simulate -- pcscd --foreground")
        }
        if replay != nil, card != nil || panelLog != nil {
            throw ValidationError("--replay plays a recorded reader and card: --card and --panel-log do not apply")
        }
    }

    func run() async throws {
        try Self.ensurePreloaded()
        let logger = CommandLogging.logger(trace: global.trace)
        if let replay {
            try await runReplay(log: replay, logger: logger)
            return
        }
        let card = card ?? "iso7816"
        var selector = card.hasPrefix("sim") ? card : "sim:" + card
        if let readerProfile { selector += ",profile=" + readerProfile }
        let specification = try SimulatorSpecification(parsing: selector)
        let simulation = try await SimulatedReaders(specification: specification, logger: logger)

        let testbed = try USBTestbed.shared()
        let devices = try simulation.readers.map { reader throws(USBEmulationError) in
            try testbed.attach(reader, logger: logger)
        }
        let status: Int32
        do {
            status = try await Self.runChild(command, environment: Self.childEnvironment(testbed))
        } catch {
            devices.forEach { $0.close() }
            throw error
        }
        for device in devices { await device.unplug(); device.close() }
        try await simulation.saveCardState()
        if let panelLog { try await simulation.writePanels(to: panelLog) }
        throw ExitCode(status)
    }

    // MARK: - Preload

    /// umockdev delivers uevents only from a preloaded process: re-executes cardctl with
    /// `LD_PRELOAD=libumockdev-preload.so.0` when it runs without.
    static func ensurePreloaded() throws {
        if USBTestbed.inMockEnvironment { return }
        let environment = ProcessInfo.processInfo.environment
        if environment[reexecMarker] != nil {
            throw SimulateError(
                "\(USBTestbed.preloadLibrary) did not load; is umockdev installed (apt-get install umockdev)?")
        }
        var path = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        guard length > 0 else { throw SimulateError("cannot find cardctl's own executable to restart it preloaded") }
        let executable = String(decoding: path.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)

        var variables = environment
        let inherited = environment["LD_PRELOAD"].map { ":" + $0 } ?? ""
        variables["LD_PRELOAD"] = USBTestbed.preloadLibrary + inherited
        variables[reexecMarker] = "1"
        let arguments = CommandLine.arguments.map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        execve(executable, arguments, envp)
        throw SimulateError("cannot restart cardctl preloaded: \(String(cString: strerror(errno)))")
    }

    static func childEnvironment(_ testbed: USBTestbed) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment[reexecMarker] = nil
        for (key, value) in testbed.childEnvironment(inheritedPreload: environment["LD_PRELOAD"]) {
            environment[key] = value
        }
        return environment
    }

    // MARK: - Child

    /// Runs the command to its end, passing SIGINT and SIGTERM on; returns its exit status
    /// (128+N for signal N, 127 when it cannot be found, 126 when it cannot be run).
    static func runChild(_ command: [String], environment: [String: String]) async throws -> Int32 {
        guard let executable = resolve(command[0], path: environment["PATH"]) else {
            Output.standardError("cardctl simulate: \(command[0]): command not found")
            return 127
        }
        // The child decides how to end: SIGINT and SIGTERM go to it (main.swift's SIGINT source
        // also defers to it while it runs).
        let savedActions = ChildSignalForwarding.install()
        defer { ChildSignalForwarding.restore(savedActions) }

        // posix_spawn rather than Foundation's Process: the child must start with default
        // signal dispositions and an empty mask, not cardctl's ignored SIGINT/SIGTERM.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, nil, &attributes, argv, envp)
        guard spawned == 0 else {
            Output.standardError("cardctl simulate: \(command[0]): \(String(cString: strerror(spawned)))")
            return spawned == ENOENT ? 127 : 126
        }
        ChildSignalForwarding.started(pid)
        let spawnedPID = pid

        // Wait on a thread of its own: waitpid blocks.
        let status: Int32 = await withCheckedContinuation { continuation in
            Thread {
                var raw: Int32 = 0
                while waitpid(spawnedPID, &raw, 0) < 0 && errno == EINTR {}
                continuation.resume(returning: raw)
            }.start()
        }
        let signalNumber = status & 0x7f
        return signalNumber == 0 ? (status >> 8) & 0xff : 128 + signalNumber
    }

    /// The executable COMMAND names, found through PATH when it has no slash.
    static func resolve(_ name: String, path: String?) -> String? {
        if name.contains("/") { return name } // posix_spawn tells missing (127) from not runnable (126)
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }
}

/// The simulated readers for `simulate`: a profile's interfaces through ``SimulatorSetup``, or
/// one default reader with the 1209:2702 identity.
struct SimulatedReaders {
    let readers: [VirtualCCIDReader]
    private let setup: SimulatorSetup?
    private let specification: SimulatorSpecification

    init(specification: SimulatorSpecification, logger: Logger) async throws {
        self.specification = specification
        if specification.profilePath != nil {
            let setup = try await SimulatorSetup(specification: specification, logger: logger)
            self.setup = setup
            readers = setup.readers.map(\.reader)
            return
        }
        // SimulatorSetup's default reader has another identity: build the reader here, and let
        // SimulatorSetup provide the card (fresh, or loaded from state=PATH).
        var cardOnly = specification
        cardOnly.liftAfter = nil
        cardOnly.returnAfter = nil
        cardOnly.swap = false
        cardOnly.latency = .zero
        let cardSource = try await SimulatorSetup(specification: cardOnly, logger: logger)
        let card = await cardSource.readers[0].reader.removeCard()

        var configuration = VirtualReaderConfiguration(
            vendorID: SimulateCommand.defaultVendorID,
            productID: SimulateCommand.defaultProductID,
            serialNumber: "CARDFLOW-SIM-\(specification.seed)",
            seed: specification.seed)
        configuration.timing.extraLatency = specification.latency
        configuration.chaos = specification.readerChaos
        let reader = VirtualCCIDReader(configuration: configuration, logger: logger)
        if let card { await reader.insert(card) }
        if let lift = specification.liftAfter {
            var replacement: (any VirtualCard)?
            if specification.swap {
                replacement = try SimulatorSetup.makeCard(specification.cardKind, seed: specification.seed &+ 0x5EED)
            }
            await reader.liftCard(afterAPDUs: lift, returnAfter: specification.returnAfter, replacement: replacement)
        }
        setup = nil
        readers = [reader]
    }

    /// Writes one line per reader slot whose firmware has LEDs or a buzzer: `READER/SLOT: PANEL`
    /// (``SimulatedReaderPanel``'s description), for scripts that check a signal arrived.
    func writePanels(to path: String) async throws {
        var lines: [String] = []
        for (index, reader) in readers.enumerated() {
            for slot in 0..<reader.configuration.descriptor.slotCount {
                if let panel = await reader.panel(slot: slot) { lines.append("\(index)/\(slot): \(panel)") }
            }
        }
        try (lines.map { $0 + "\n" }.joined()).write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Writes the card back to `state=PATH` (when given).
    func saveCardState() async throws {
        if let setup {
            try await setup.saveCardState()
            return
        }
        guard let path = specification.statePath, let card = await readers[0].lastKnownCard(slot: 0) else { return }
        guard let persistent = card as? any PersistentVirtualCard else {
            throw SimulatorSetupError.cardNotPersistent(card.kind)
        }
        try CardStateStore(path: path).save(persistent)
    }
}

struct SimulateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
