import CardFlowDaemonControl

/// What a paced simulation (the soak) did: arrivals, faults by kind, and arrivals the daemon
/// never reported as handled within the bound (a hang, or a lost event).
public actor SimulationReport {
    public private(set) var arrivals = 0
    public private(set) var handled = 0
    /// Arrivals with no `cardHandled` within the bound.
    public private(set) var unhandled = 0
    public private(set) var replugs = 0
    /// Times the daemon still saw the last card when the next was due (after the bound).
    public private(set) var stillPresentAtNext = 0
    public private(set) var faults: [String: Int] = [:]

    public init() {}

    func arrived() { arrivals += 1 }
    func wasHandled(_ yes: Bool) { if yes { handled += 1 } else { unhandled += 1 } }
    func injected(_ fault: SimulationFault) { faults[fault.description, default: 0] += 1 }
    func replugged() { replugs += 1 }
    func stillPresent() { stillPresentAtNext += 1 }

    /// One JSON object: `{"arrivals":…,"handled":…,"unhandled":…,"replugs":…,"faults":{…}}`.
    public func json() -> String {
        JSONValue.object([
            "arrivals": .number(Double(arrivals)), "handled": .number(Double(handled)),
            "unhandled": .number(Double(unhandled)), "replugs": .number(Double(replugs)),
            "stillPresentAtNext": .number(Double(stillPresentAtNext)),
            "faults": .object(faults.mapValues { .number(Double($0)) }),
        ]).jsonLine()
    }
}
