import CardFlowCCIDProtocol
#if canImport(FuzzSupport)
import FuzzSupport
#endif

/// T=1: the block codec, and the host's state machine fed with whatever a card sends.
enum T1Fuzzing {
    /// A block that decodes encodes to the same bytes (the PCB check leaves no spare bits).
    static func block(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let checksum: T1Checksum = input.byte() & 1 == 0 ? .lrc : .crc
        let wire = input.rest()
        guard let block = try? T1Block(decoding: wire, checksum: checksum) else { return }
        fuzzCheck(
            block.information.count <= T1Block.maximumInformationLength, "INF of \(block.information.count) bytes")
        let encoded = try? block.encoded(checksum: checksum)
        fuzzCheck(encoded == wire, "T1Block does not encode back to its bytes")
    }

    /// Drives ``T1HostProtocol`` through exchanges whose card side comes from the input.
    ///
    /// Input: checksum/NAD byte, IFSC, IFSD, retry and resynchronisation limits, the response
    /// limit, then per exchange a start byte (command, IFSD negotiation, resynchronisation) and
    /// card events: a time-out, raw bytes, or a well-framed block (so the fuzzer explores the
    /// protocol instead of guessing checksums).
    static func hostProtocol(_ bytes: [UInt8]) {
        var input = FuzzInput(bytes)
        let setup = input.byte()
        let checksum: T1Checksum = setup & 1 == 0 ? .lrc : .crc
        let nodeAddress = setup & 0x02 == 0 ? 0 : (setup >> 4) & 0x07
        var host = T1HostProtocol(
            ifsc: Int(input.byte()), ifsd: Int(input.byte()), checksum: checksum, nodeAddress: nodeAddress,
            retryLimit: Int(input.byte() % 5), resynchronisationLimit: Int(input.byte() % 4),
            maximumResponseLength: Int(input.byte()) * 8)
        let cardAddress = nodeAddress << 4 | nodeAddress >> 4
        // Only time-outs in a row: each is a failure, so retries and resynchronisations must end it.
        let timeoutBound = (host.retryLimit + 1) * (host.resynchronisationLimit + 2) + 2
        var timeoutsInARow = 0

        while !input.isEmpty {
            if host.requiresCardReset { host.reset() }
            var action: T1HostAction
            let start = input.byte()
            switch start % 3 {
            case 0:
                let command = input.take(Int(input.byte()) * 2 + 1)
                action = host.begin(command: command)
            case 1: action = host.beginIFSDNegotiation(ifsd: Int(input.byte()))
            default: action = host.beginResynchronisation()
            }
            timeoutsInARow = 0
            // A block resent verbatim may predate the card's last S(IFS request).
            var largestIFSC = host.ifsc
            while case .send(let block, _) = action {
                largestIFSC = max(largestIFSC, host.ifsc)
                check(sent: block, by: host, ifscBound: largestIFSC)
                guard !input.isEmpty else { return }
                let event = input.byte()
                switch event {
                case 0xFF:
                    timeoutsInARow += 1
                    fuzzCheck(
                        timeoutsInARow <= timeoutBound, "\(timeoutsInARow) time-outs in a row and the exchange goes on")
                    action = host.timeoutOccurred()
                case 0x80..<0xFF:
                    timeoutsInARow = 0
                    action = host.receive(input.take(Int(event & 0x7F)))
                default:
                    timeoutsInARow = 0
                    let pcb = input.byte()
                    let information = input.take(Int(event) * 2)
                    var framed = [cardAddress, pcb, UInt8(information.count)] + information
                    framed += checksum.compute(framed)
                    action = host.receive(framed)
                }
            }
            switch action {
            case .completed(let response):
                fuzzCheck(
                    response.count <= host.maximumResponseLength, "response of \(response.count) bytes over the limit")
                fuzzCheck(!host.isExchangeInProgress, "exchange still in progress after completing")
            case .failed(let error):
                if error.requiresCardReset {
                    fuzzCheck(host.requiresCardReset, "\(error) needs a card reset but the host does not say so")
                }
            case .send:
                fuzzCheck(false, "unreachable")
            }
        }
    }

    /// Every block the host sends is well framed, addressed as configured and within IFSC.
    private static func check(sent bytes: [UInt8], by host: T1HostProtocol, ifscBound: Int) {
        guard let block = try? T1Block(decoding: bytes, checksum: host.checksum) else {
            fuzzCheck(false, "host sent a malformed block \(bytes)")
            return
        }
        fuzzCheck(block.nodeAddress == host.nodeAddress, "host sent NAD \(block.nodeAddress)")
        if case .information = block.kind {
            fuzzCheck(
                block.information.count <= ifscBound, "I-block of \(block.information.count) bytes, IFSC \(ifscBound)")
        }
    }
}
