import Logging

/// Where a `ufr:` selector points: `ufr:tcp:HOST[:PORT]`, `ufr:udp:HOST[:PORT]` (a uFR Nano
/// Online, port 8881 by default; an IPv6 address in brackets), `ufr:serial:PATH[,baud=N]` (a
/// serial device, 1 000 000 bps by default) or `ufr:usb[:SERIAL][,rts=low|high|off][,reset]`
/// (a USB reader's FTDI chip through libftdi1, see ``UFRFTDIOptions``).
///
/// ```swift
/// try UFREndpoint(selector: "ufr:udp:192.168.1.5")     // .udp(host: "192.168.1.5", port: 8881)
/// try UFREndpoint(selector: "ufr:serial:/dev/ttyUSB0,baud=115200")
/// try UFREndpoint(selector: "ufr:usb:UN123456")
/// ```
public enum UFREndpoint: Sendable, Hashable, CustomStringConvertible {
    /// TCP to a Nano Online.
    case tcp(host: String, port: Int)
    /// UDP to a Nano Online.
    case udp(host: String, port: Int)
    /// A serial device at a speed.
    case serial(path: String, baudRate: Int)
    /// A USB reader's FTDI chip (the first 0403:6001 device, or the one with the serial).
    case usb(UFRFTDIOptions)

    /// Parses a `ufr:` selector.
    ///
    /// - Throws: ``UFRSelectorError``.
    public init(selector: String) throws(UFRSelectorError) {
        guard selector.hasPrefix("ufr:") else { throw .notAUFRSelector }
        let rest = selector.dropFirst(4)
        if rest.hasPrefix("serial:") {
            let parts = rest.dropFirst(7).split(separator: ",", omittingEmptySubsequences: false)
            guard let path = parts.first, path.hasPrefix("/") else { throw .badSerialPath }
            var baudRate = UFRSerialPort.defaultBaudRate
            for option in parts.dropFirst() {
                guard option.hasPrefix("baud="), let value = Int(option.dropFirst(5)),
                    UFRSerialPort.speeds[value] != nil
                else { throw .badSerialOption(String(option)) }
                baudRate = value
            }
            self = .serial(path: String(path), baudRate: baudRate)
            return
        }
        if rest == "usb" || rest.hasPrefix("usb:") || rest.hasPrefix("usb,") {
            self = .usb(try Self.usbOptions(rest.dropFirst(3)))
            return
        }
        let isTCP = rest.hasPrefix("tcp:")
        guard isTCP || rest.hasPrefix("udp:") else { throw .notAUFRSelector }
        let (host, port) = try Self.hostAndPort(String(rest.dropFirst(4)))
        self = isTCP ? .tcp(host: host, port: port) : .udp(host: host, port: port)
    }

    /// `[:SERIAL][,rts=low|high|off][,reset]`.
    private static func usbOptions(_ text: Substring) throws(UFRSelectorError) -> UFRFTDIOptions {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        var options = UFRFTDIOptions()
        if let first = parts.first, !first.isEmpty {
            let serial = first.dropFirst()
            guard first.hasPrefix(":"), !serial.isEmpty, serial.allSatisfy({ $0.isASCII && !$0.isWhitespace })
            else { throw .badUSBSerial }
            options.serial = String(serial)
        }
        for option in parts.dropFirst() {
            if option == "reset" {
                options.resetOnOpen = true
            } else if option.hasPrefix("rts="),
                let level = UFRFTDIOptions.ReaderRun(rawValue: String(option.dropFirst(4)))
            {
                options.readerRunsWith = level
            } else {
                throw .badUSBOption(String(option))
            }
        }
        return options
    }

    private static func hostAndPort(_ text: String) throws(UFRSelectorError) -> (String, Int) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .badHost }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .badHost }
                portText = after.dropFirst()
            }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw .badHost }
            host = parts[0]
            portText = parts.count == 2 ? parts[1] : nil
        }
        guard !host.isEmpty, !host.contains(",") else { throw .badHost }
        guard let portText else { return (String(host), UFRNIOLink.defaultPort) }
        guard portText.allSatisfy(\.isASCII), let port = Int(portText), (1...65_535).contains(port) else {
            throw .badPort
        }
        return (String(host), port)
    }

    /// The selector text for this endpoint.
    public var description: String {
        switch self {
        case .tcp(let host, let port): "tcp:\(Self.hostText(host)):\(port)"
        case .udp(let host, let port): "udp:\(Self.hostText(host)):\(port)"
        case .serial(let path, let baudRate):
            baudRate == UFRSerialPort.defaultBaudRate ? "serial:\(path)" : "serial:\(path),baud=\(baudRate)"
        case .usb(let options):
            "usb" + (options.serial.map { ":\($0)" } ?? "")
                + (options.readerRunsWith == .rtsLow ? "" : ",rts=\(options.readerRunsWith.rawValue)")
                + (options.resetOnOpen ? ",reset" : "")
        }
    }

    private static func hostText(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }

    /// Opens the link this endpoint names.
    ///
    /// - Parameter logger: the USB link logs its set-up at trace.
    public func openLink(logger: Logger = Logger(label: "cardflow.ufr")) async throws -> any UFRLink {
        switch self {
        case .tcp(let host, let port): try await UFRNIOLink.tcp(host: host, port: port)
        case .udp(let host, let port): try await UFRNIOLink.udp(host: host, port: port)
        case .serial(let path, let baudRate): try await UFRSerialPort.open(path: path, baudRate: baudRate)
        case .usb(let options): try await UFRFTDILink.open(options: options, logger: logger)
        }
    }
}

/// A `ufr:` selector that cannot be parsed.
public enum UFRSelectorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not `ufr:tcp:…`, `ufr:udp:…` or `ufr:serial:…`.
    case notAUFRSelector
    /// An empty or malformed host.
    case badHost
    /// A port that is not a number from 1 to 65535.
    case badPort
    /// A serial path that is not absolute.
    case badSerialPath
    /// A serial option other than `baud=` with a speed termios sets.
    case badSerialOption(String)
    /// An empty or blank USB serial after `ufr:usb:`.
    case badUSBSerial
    /// A USB option other than `rts=low|high|off` or `reset`.
    case badUSBOption(String)

    public var description: String {
        switch self {
        case .notAUFRSelector:
            "expected ufr:tcp:HOST[:PORT], ufr:udp:HOST[:PORT], ufr:serial:PATH[,baud=N] or ufr:usb[:SERIAL]"
        case .badHost: "the host is empty or malformed (an IPv6 address goes in brackets)"
        case .badPort: "the port must be a number from 1 to 65535"
        case .badSerialPath: "the serial device must be an absolute path such as /dev/ttyUSB0"
        case .badSerialOption(let option):
            "unknown serial option '\(option)' (baud=N with N one of \(UFRSerialPort.speeds.keys.sorted()))"
        case .badUSBSerial: "the USB serial after ufr:usb: is empty or has blanks (such as ufr:usb:UN123456)"
        case .badUSBOption(let option): "unknown USB option '\(option)' (rts=low, rts=high, rts=off or reset)"
        }
    }
}
