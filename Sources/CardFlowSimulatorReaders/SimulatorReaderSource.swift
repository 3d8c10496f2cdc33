import CardFlow
import CardFlowCCID
import CardFlowSimulator

/// The built-in simulator as a ``/CardFlow/ReaderSource``: selectors `sim`,
/// `sim:CARD[,option=value…]` and `sim,option=value…` (see
/// ``/CardFlowSimulator/SimulatorSpecification``) open simulated CCID readers, ids `sim:N` (a
/// multi-slot reader `sim:N/0`, `sim:N/1`, …), with the card on the first. Closing saves the
/// card's state when `state=PATH` was given.
///
/// Only programs that want simulated readers link it (cardctl, cardd, tests): the daemon library
/// takes sources and names none. The CCID driver's settings come from
/// ``/CardFlow/ReaderSourceOptions/backendSettings`` (`CCIDDriverConfiguration`) with the read
/// timeout and card protocol of the options on top.
///
/// ```swift
/// let sources: [any ReaderSource] = [SimulatorReaderSource()]
/// let selector = try ReaderSelector(parsing: "sim:desfire,latency=5", sources: sources)
/// ```
public struct SimulatorReaderSource: ReaderSource {
    public init() {}

    public var scheme: String { "sim" }

    public var forms: [String] { ["sim[:CARD][,option=value...]"] }

    public func check(_ selector: String) throws {
        _ = try SimulatorSpecification(parsing: selector)
    }

    public func open(_ selector: String, options: ReaderSourceOptions) async throws -> OpenedReaders {
        let specification = try SimulatorSpecification(parsing: selector)
        let clock: (any ElapsedClock)? = specification.virtualClock ? SkippingClock() : nil
        let setup = try await SimulatorSetup(
            specification: specification, clock: clock ?? RealClock(), logger: options.logger)
        let readers = setup.readers.enumerated().flatMap { index, simulated in
            // A multi-slot simulated reader is one CardFlow reader per slot.
            Reader.simulatedSlots(
                simulated.reader, id: "sim:\(options.firstIndex + index)",
                interfaceNumber: simulated.interfaceNumber, name: simulated.name,
                driverConfiguration: options.ccidDriverConfiguration,
                logger: options.logger, apduLogger: options.apduLogger)
        }
        return OpenedReaders(readers: readers, clock: clock, close: { try await setup.saveCardState() })
    }
}
