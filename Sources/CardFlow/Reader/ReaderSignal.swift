/// What a reader shows and sounds to the person holding the card: a light and a beep, as
/// readers with a bi-colour LED and a buzzer give them.
///
/// ```swift
/// try await reader.signal(.success)                                  // long green, one short beep
/// try await reader.signal(ReaderSignal(light: .red, beep: .double))
/// ```
public struct ReaderSignal: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The light.
    public enum Light: String, Sendable, Hashable, Codable, CaseIterable {
        /// No light.
        case none
        /// A long green light.
        case green
        /// A long red light.
        case red
        /// Green and red in turn.
        case alternating
        /// A flash.
        case flash
    }

    /// The sound.
    public enum Beep: String, Sendable, Hashable, Codable, CaseIterable {
        /// Silence.
        case none
        /// One short beep.
        case short
        /// One long beep.
        case long
        /// Two short beeps.
        case double
        /// Three short beeps.
        case triple
        /// A melody, on readers that have one.
        case melody
    }

    /// The light.
    public var light: Light
    /// The sound.
    public var beep: Beep

    /// A signal of `light` and `beep`.
    public init(light: Light = .none, beep: Beep = .none) {
        self.light = light
        self.beep = beep
    }

    /// Done: a long green light and one short beep.
    public static let success = ReaderSignal(light: .green, beep: .short)
    /// Not done: a long red light and one long beep.
    public static let failure = ReaderSignal(light: .red, beep: .long)

    enum CodingKeys: String, CodingKey { case light, beep }

    /// Reads `{"light": "green", "beep": "short"}`; a part left out is `none`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        light = try container.decodeIfPresent(Light.self, forKey: .light) ?? .none
        beep = try container.decodeIfPresent(Beep.self, forKey: .beep) ?? .none
    }

    /// "light green, beep short".
    public var description: String { "light \(light.rawValue), beep \(beep.rawValue)" }
}

/// A ``ReaderDriver`` whose reader has a light or a buzzer the host may drive.
/// ``Reader/signal(_:)`` uses it; a driver without it makes that call throw
/// ``ReaderSignalUnsupported``.
public protocol ReaderSignalling: ReaderDriver {
    /// Shows and sounds `signal` on the reader (the reader's own duration for each part).
    func signal(_ signal: ReaderSignal) async throws
}

/// The reader has no light or buzzer CardFlow can drive (or its backend does not know how), or
/// its family cannot show this particular signal (a blink on a reader with steady LEDs).
public struct ReaderSignalUnsupported: CategorizedError, Hashable, CustomStringConvertible {
    /// The reader's ``ReaderInfo/id`` (empty until ``Reader/signal(_:)`` fills it in).
    public var reader: String
    /// The reader's backend (``ReaderInfo/backend``).
    public var backend: String
    /// Why, when more is known than that the reader has no signal: the part of the signal the
    /// reader's family cannot show.
    public var reason: String?

    /// The reader `reader` of `backend` cannot show the signal, for `reason`.
    ///
    /// - Parameters:
    ///   - reader: the reader's id; backends that do not know it leave it empty for
    ///     ``Reader/signal(_:)`` to fill in.
    ///   - backend: the reader's backend, likewise.
    ///   - reason: why, when more is known.
    public init(reader: String = "", backend: String = "", reason: String? = nil) {
        self.reader = reader
        self.backend = backend
        self.reason = reason
    }

    /// Asking for a signal the reader cannot give is the caller's choice to change: usage.
    public var category: ErrorCategory { .usage }

    public var description: String {
        let what = "reader \(reader) (\(backend))"
        if let reason { return "\(what) cannot show this signal: \(reason)" }
        return "\(what) has no signal CardFlow can drive (uFR, ACS ACR122U and ACR1252U readers do)"
    }
}

extension Reader {
    /// Shows and sounds `signal` on the reader: a light and a beep to tell the person at the
    /// reader that their card was done (or not). Safe beside a running session: the backend
    /// serialises it with the session's exchanges.
    ///
    /// - Parameter signal: the light and beep to show.
    /// - Throws: ``ReaderSignalUnsupported`` when the reader's driver is no
    ///   ``ReaderSignalling``, or its family has no such signal (USB CCID and PC/SC readers
    ///   signal through their family's ``ReaderSignalDialect``); ``ReaderSignalRefused`` when
    ///   the reader turned a command down; otherwise what the backend throws.
    public func signal(_ signal: ReaderSignal) async throws {
        guard let signalling = driver as? any ReaderSignalling else {
            throw ReaderSignalUnsupported(reader: info.id, backend: info.backend)
        }
        do {
            try await signalling.signal(signal)
        } catch var error as ReaderSignalUnsupported {
            // Drivers know their device, not the reader's CardFlow identity.
            if error.reader.isEmpty { error.reader = info.id }
            if error.backend.isEmpty { error.backend = info.backend }
            throw error
        }
    }
}
