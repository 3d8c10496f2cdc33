// Real-time benchmarks that package-benchmark's sampling does not suit: the simulator's latency
// model (how close the stack gets to the model's bound), multi-reader scaling and the DESFire
// provisioning flow on a modelled reader. Prints JSON.
//
// Usage: cardflow-bench [--apdus N] [--scaling-apdus N]
import BenchSupport
import CCID
import CardFlow
import CardSimulator
import Foundation

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func argument(_ name: String, default value: Int) -> Int {
    let args = CommandLine.arguments
    if let i = args.firstIndex(of: name), i + 1 < args.count, let n = Int(args[i + 1]) { return n }
    return value
}

let apdus = argument("--apdus", default: 200)
let scalingAPDUs = argument("--scaling-apdus", default: 200)
let clock = ContinuousClock()

/// Times `count` APDUs through a CardSession (tracing off) and returns APDU/s.
func sessionRate(_ session: CardSession, _ exchange: Exchange, count: Int) async throws -> Double {
    for _ in 0..<5 { _ = try await session.transmit(exchange.command) }  // warm-up
    let start = clock.now
    for _ in 0..<count {
        let response = try await session.transmit(exchange.command)
        precondition(response.statusWord == .success)
    }
    return Double(count) / seconds(start.duration(to: clock.now))
}

/// The same number of plain sleeps of `duration` (what the simulator's RealClock does once per
/// exchange): the timer's own floor, to tell stack overhead from sleep overshoot.
func sleepRate(_ duration: Duration, count: Int) async throws -> Double {
    let start = clock.now
    for _ in 0..<count { try await clock.sleep(for: duration) }
    return Double(count) / seconds(start.duration(to: clock.now))
}

// 3. Latency-model efficiency: achieved APDU/s divided by the model's bound 1 / exchangeTime.
var latency: [[String: Any]] = []
for rate in [106, 424] {
    for exchange in [Exchange.tiny, Exchange.medium] {
        let timing = TimingModel.fullSpeedReader(rfBitRate: rate)
        let virtual = await makeVirtualReader(level: .shortAPDU, exchange: exchange, timing: timing)
        let reader = Reader.simulated(virtual, logger: discardingLogger(level: .info))
        let session = try await reader.connect()
        let before = await virtual.commandsReceived
        let achieved = try await sessionRate(session, exchange, count: apdus)
        // CCID messages the reader received per APDU (5 warm-up APDUs included): 1 means no extra round trips.
        let messagesPerAPDU = Double(await virtual.commandsReceived - before) / Double(apdus + 5)
        await session.close()
        let exchangeTime = timing.exchangeTime(commandLength: exchange.commandLength,
                                               responseLength: exchange.responseLength, cardTime: .zero)
        let bound = 1 / seconds(exchangeTime)
        let timerFloor = try await sleepRate(exchangeTime, count: apdus)
        latency.append(["name": "Latency-\(rate)k-\(exchange.name)", "rfBitRate": rate,
                        "commandLength": exchange.commandLength, "responseLength": exchange.responseLength,
                        "apdus": apdus, "achievedAPDUsPerSecond": achieved, "modelBoundAPDUsPerSecond": bound,
                        "efficiency": achieved / bound, "sleepOnlyAPDUsPerSecond": timerFloor,
                        "efficiencyVsSleepOnly": achieved / timerFloor,
                        "ccidMessagesPerAPDU": messagesPerAPDU])
    }
}

// 4. Multi-reader scaling: N readers, each with its own driver and session, in parallel, 1 ms USB.
var scaling: [[String: Any]] = []
var single = 0.0
for n in [1, 2, 4, 8] {
    let timing = TimingModel(usbRoundTrip: .milliseconds(1))
    var sessions: [CardSession] = []
    for i in 0..<n {
        let reader = await makeReader(level: .shortAPDU, exchange: .tiny, logLevel: .info, timing: timing, id: "sim:\(i)")
        sessions.append(try await reader.connect())
    }
    let start = clock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for session in sessions {
            group.addTask {
                for _ in 0..<scalingAPDUs {
                    let response = try await session.transmit(Exchange.tiny.command)
                    precondition(response.statusWord == .success)
                }
            }
        }
        try await group.waitForAll()
    }
    let total = Double(n * scalingAPDUs) / seconds(start.duration(to: clock.now))
    for session in sessions { await session.close() }
    if n == 1 { single = total }
    scaling.append(["name": "Scaling-\(n)", "readers": n, "apdusPerReader": scalingAPDUs,
                    "totalAPDUsPerSecond": total, "efficiency": total / (Double(n) * single)])
}

// 6. DESFire provisioning flow: APDU count and time on a full-speed USB reader at 106 kbit/s.
//    The first run, at zero latency, warms up and gives the stack's own time for the flow.
let zeroRun = try await provisionRun(timing: .zero)
let provisionTiming = TimingModel.fullSpeedReader(rfBitRate: 106)
var provisionRuns: [ProvisionRun] = []
for _ in 0..<3 { provisionRuns.append(try await provisionRun(timing: provisionTiming)) }
let medianRun = provisionRuns.sorted { $0.wallTime < $1.wallTime }[provisionRuns.count / 2]
let provision: [String: Any] = [
    "name": "DESFire-Provision-106k", "rfBitRate": 106, "usbRoundTripMs": 1,
    "apdus": medianRun.apdus, "cardAPDUs": medianRun.cardAPDUs, "ccidMessages": medianRun.ccidMessages,
    "modelSeconds": seconds(medianRun.modelTime), "wallSeconds": seconds(medianRun.wallTime),
    "wallSecondsRuns": provisionRuns.map { seconds($0.wallTime) },
    "zeroLatencyWallSeconds": seconds(zeroRun.wallTime), "zeroLatencyAPDUs": zeroRun.apdus,
]

let output: [String: Any] = ["latencyModel": latency, "scaling": scaling, "provision": provision]
let data = try JSONSerialization.data(withJSONObject: output, options: [.prettyPrinted, .sortedKeys])
print(String(decoding: data, as: UTF8.self))
