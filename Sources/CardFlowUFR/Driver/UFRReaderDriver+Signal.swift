import CardFlow

/// uFR readers have a bi-colour LED and a buzzer, driven by USER_INTERFACE_SIGNAL (0x26):
/// Par0 the light (0 none, 1 long green, 2 long red, 3 alternation, 4 flash), Par1 the beep
/// (0 none, 1 short, 2 long, 3 double, 4 triple, 5 melody), as the COM protocol document lists
/// them.
extension UFRReaderDriver: ReaderSignalling {
    public func signal(_ signal: ReaderSignal) async throws {
        try await device.signal(light: Self.lightMode(signal.light), beep: Self.beepMode(signal.beep))
    }

    /// The USER_INTERFACE_SIGNAL light mode (Par0) for `light`.
    public static func lightMode(_ light: ReaderSignal.Light) -> UInt8 {
        switch light {
        case .none: 0
        case .green: 1
        case .red: 2
        case .alternating: 3
        case .flash: 4
        }
    }

    /// The USER_INTERFACE_SIGNAL beep mode (Par1) for `beep`.
    public static func beepMode(_ beep: ReaderSignal.Beep) -> UInt8 {
        switch beep {
        case .none: 0
        case .short: 1
        case .long: 2
        case .double: 3
        case .triple: 4
        case .melody: 5
        }
    }
}

extension UFRReaderDevice {
    /// Sends USER_INTERFACE_SIGNAL with light mode `light` (Par0) and beep mode `beep` (Par1).
    /// Not repeated when a datagram's reply is lost: a second signal would beep twice.
    public func signal(light: UInt8, beep: UInt8) async throws {
        _ = try await expectResponse(try UFRCommand(.userInterfaceSignal, parameter0: light, parameter1: beep))
    }
}
