import CardFlow

/// Readers the daemon runs in place of the configured ones, and what moves cards on and off
/// them: cardd's `--simulate` (`SimulationSchedule` in CardFlowDaemonSimulation). The daemon
/// library names no simulator; the program that wants one passes it to ``CardDaemon``.
///
/// ```swift
/// let schedule = try SimulationSchedule(readerCount: 2, arrivals: 10)
/// let daemon = try CardDaemon(configuration: store, socketPath: path, jobLogPath: nil,
///                             simulation: schedule, logger: logger)
/// ```
public protocol ReaderSimulation: Sendable {
    /// The simulated readers: the fleet supervises every reader it adds until it removes it.
    var registry: ManagedReaderRegistry { get }
    /// Whether the simulation ends by itself; the daemon then stops once ``run(bus:)`` has
    /// returned and the last job is done.
    var isBounded: Bool { get }
    /// Moves the cards until done or cancelled.
    ///
    /// - Parameter bus: the daemon's events, for a simulation paced by what the daemon reports.
    func run(bus: EventBus) async throws
}
