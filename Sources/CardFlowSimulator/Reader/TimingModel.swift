/// How long a simulated reader takes to answer (reference: ccid.md 6.4):
/// `T = T_usb + T_firmware + T_rf + T_card + extra latency`.
///
/// The default is zero everywhere: answers are immediate, which is what unit tests and stack
/// overhead benchmarks want.
public struct TimingModel: Sendable, Hashable {
    /// One XfrBlock round trip over USB (full speed ≈ 1 ms, high speed ≈ 0.3 ms).
    public var usbRoundTrip: Duration = .zero
    /// Reader firmware time per exchange.
    public var readerFirmware: Duration = .zero
    /// ISO 14443 bit rate on the RF side, in kbit/s (106, 212, 424, 848); nil leaves RF time out.
    public var rfBitRate: Int? = nil
    /// Frame size of the card (FSC) for ISO 14443-4 block chaining on RF.
    public var frameSize: Int = 64
    /// Added to every exchange (the `latency=MS` option).
    public var extraLatency: Duration = .zero
    /// Time per byte of command APDU beyond the radio (the reader's USB and internal buses),
    /// the `cmd-byte=US` option: a linear cost `cardctl bench sweep` must find again.
    public var perCommandByte: Duration = .zero
    /// Time per byte of response APDU beyond the radio (`resp-byte=US`).
    public var perResponseByte: Duration = .zero

    public init(
        usbRoundTrip: Duration = .zero, readerFirmware: Duration = .zero, rfBitRate: Int? = nil,
        frameSize: Int = 64, extraLatency: Duration = .zero, perCommandByte: Duration = .zero,
        perResponseByte: Duration = .zero
    ) {
        self.usbRoundTrip = usbRoundTrip
        self.readerFirmware = readerFirmware
        self.rfBitRate = rfBitRate
        self.frameSize = frameSize
        self.extraLatency = extraLatency
        self.perCommandByte = perCommandByte
        self.perResponseByte = perResponseByte
    }

    /// No delay at all.
    public static let zero = TimingModel()

    /// A full-speed USB reader at the given RF bit rate (ccid.md 6.4's "+1 ms FS USB" column).
    public static func fullSpeedReader(rfBitRate: Int) -> TimingModel {
        TimingModel(usbRoundTrip: .milliseconds(1), rfBitRate: rfBitRate)
    }

    public var isZero: Bool {
        usbRoundTrip == .zero && readerFirmware == .zero && rfBitRate == nil && extraLatency == .zero
            && perCommandByte == .zero && perResponseByte == .zero
    }

    /// Time on air for one APDU exchange (ISO 14443-4 blocks of INF <= FSC - 4 bytes with CID,
    /// each block `(INF + 4)` bytes of 9 etu, plus 2 etu of SoF/EoF and the frame delay).
    public func radioTime(commandLength: Int, responseLength: Int) -> Duration {
        guard let rate = rfBitRate, rate > 0 else { return .zero }
        let etu = 128.0 / 13.56e6 * (106.0 / Double(rate)) // seconds per elementary time unit
        let byteTime = 9 * etu
        let fdt = 86.43e-6
        let maxInf = max(1, frameSize - 4)
        func blocks(_ length: Int) -> [Int] {
            guard length > maxInf else { return [length] }
            var sizes = Array(repeating: maxInf, count: length / maxInf)
            if length % maxInf != 0 { sizes.append(length % maxInf) }
            return sizes
        }
        let commandBlocks = blocks(commandLength)
        let responseBlocks = blocks(responseLength)
        var seconds = 0.0
        for inf in commandBlocks { seconds += Double(inf + 4) * byteTime + 2 * etu + fdt }
        for inf in responseBlocks { seconds += Double(inf + 4) * byteTime + 2 * etu }
        let extraBlocks = commandBlocks.count + responseBlocks.count - 2
        seconds += Double(max(0, extraBlocks)) * (4 * byteTime + 2 * fdt)
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// The whole time of one card exchange carried in `usbMessages` bulk round trips.
    public func exchangeTime(commandLength: Int, responseLength: Int, cardTime: Duration, usbMessages: Int = 1)
        -> Duration
    {
        scaled(usbRoundTrip, by: usbMessages) + readerFirmware
            + radioTime(commandLength: commandLength, responseLength: responseLength)
            + scaled(perCommandByte, by: commandLength) + scaled(perResponseByte, by: responseLength)
            + cardTime + extraLatency
    }

    /// `duration * count`, skipped for a zero duration: the standard library's multiplication
    /// is generic over the count and was not specialised here, a few percent of an exchange
    /// through the zero model (unit tests, overhead benchmarks), where every term is zero.
    private func scaled(_ duration: Duration, by count: Int) -> Duration {
        duration == .zero ? .zero : duration * count
    }

    /// Time of a message that does not reach the card (status, power, chaining steps).
    public var readerOnlyTime: Duration { usbRoundTrip + readerFirmware }
}
