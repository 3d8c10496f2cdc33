import Benchmark
import CardFlow
import CardFlowBenchSupport
import CardFlowCCIDProtocol
import CardFlowSimulator
import Logging

/// Every sample runs `batch` APDUs (one Flow per sample in the Flow benchmarks); the runner
/// divides wall clock and mallocs by `batch` to get per-APDU figures.
let batch = 100

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 20,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 5_000
    )

    // 1. Stack overhead: CommandAPDU encoding → CCID driver → in-memory transport → virtual
    //    reader (zero latency) → card → back, on each exchange level. At TPDU and character
    //    level the (contactless) bench card runs T=1; at character level each block is read as
    //    prologue, then LEN + EDC: two XfrBlocks per block.
    let levels: [(String, CCIDExchangeLevel)] = [
        ("Short", .shortAPDU), ("Extended", .extendedAPDU), ("TPDU", .tpdu),
        ("Character", .character),
    ]
    for (levelName, level) in levels {
        for exchange in [Exchange.tiny, Exchange.maxShort] {
            Benchmark("Driver-\(levelName)-\(exchange.name)") { benchmark in
                let driver = try await makePoweredDriver(level: level, exchange: exchange)
                benchmark.startMeasurement()
                for _ in 0..<batch {
                    let response = try await driver.transmit(exchange.command.encoded())
                    check(response, exchange)
                }
                benchmark.stopMeasurement()
            }
        }
    }

    // T=0 at TPDU level (a T=0-only contact card): case 4 travels as case 3 plus GET RESPONSE;
    // at character level each TPDU also goes by procedure bytes (header, then data or answer).
    for (levelName, level) in [("TPDU", CCIDExchangeLevel.tpdu), ("Character", .character)] {
        for exchange in [Exchange.tiny, Exchange.maxShort] {
            Benchmark("Driver-\(levelName)-T0-\(exchange.name)") { benchmark in
                let driver = try await makePoweredDriver(level: level, exchange: exchange, contact: .t0Only())
                let running = await driver.activeProtocol()
                precondition(running == .t0, "the T=0 benchmark runs \(running.map(\.description) ?? "no protocol")")
                benchmark.startMeasurement()
                for _ in 0..<batch {
                    let response = try await driver.transmit(exchange.command.encoded())
                    check(response, exchange)
                }
                benchmark.stopMeasurement()
            }
        }
    }

    // 2. Session layer on the short-APDU reader: CardSession.transmit with tracing off (.info)
    //    and on (.trace, records discarded), and a one-step Flow per batch of APDUs.
    for exchange in [Exchange.tiny, Exchange.maxShort] {
        for (traceName, level) in [("TraceOff", Logger.Level.info), ("TraceOn", Logger.Level.trace)] {
            Benchmark("Session-\(traceName)-Short-\(exchange.name)") { benchmark in
                let reader = await makeReader(level: .shortAPDU, exchange: exchange, logLevel: level)
                let session = try await reader.connect()
                benchmark.startMeasurement()
                for _ in 0..<batch {
                    let response = try await session.transmit(exchange.command)
                    precondition(response.statusWord == .success)
                }
                benchmark.stopMeasurement()
                await session.close()
            }
        }
        Benchmark("Flow-TraceOff-Short-\(exchange.name)") { benchmark in
            let reader = await makeReader(level: .shortAPDU, exchange: exchange, logLevel: .info)
            let command = exchange.command
            let flow = Flow.start("batch") { session in
                for _ in 0..<batch {
                    let response = try await session.transmit(command)
                    precondition(response.statusWord == .success)
                }
                return batch
            }
            benchmark.startMeasurement()
            let done = try await reader.run(flow).value
            benchmark.stopMeasurement()
            precondition(done == batch)
        }
    }

    // 5. Card level: DESFire enciphered file I/O and TON signing (CardBenchmarks.swift).
    registerCardBenchmarks()
    registerSUNBenchmarks()
    registerNTAGBenchmarks()
    registerStorageCardBenchmarks()
}
