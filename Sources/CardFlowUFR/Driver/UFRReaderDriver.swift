import CardFlow
import Logging

/// A uFR reader as a CardFlow ``/CardFlow/ReaderDriver``: every call goes to its
/// ``UFRReaderDevice``, whose executor ``/CardFlow/Reader`` and ``/CardFlow/CardSession`` share.
/// The reader announces nothing, so ``/CardFlow/Reader`` polls ``presence()`` (one
/// GET_CARD_ID_EX per poll interval, far below the 10–15 polls a second the API allows).
///
/// ```swift
/// let reader = Reader(info: UFRReaderDriver.info(endpoint: link.endpoint, identity: identity),
///                     driver: UFRReaderDriver(device: device), logger: logger)
/// ```
public struct UFRReaderDriver: ReaderDriver {
    /// The reader.
    public let device: UFRReaderDevice

    /// - Parameter device: the reader.
    public init(device: UFRReaderDevice) {
        self.device = device
    }

    /// The reader identity: id `ufr:<endpoint>`, backend `ufr`, commands up to 254 bytes (one
    /// APDU_TRANSCEIVE frame), UID answered by the driver.
    public static func info(endpoint: String, identity: UFRReaderIdentity) -> ReaderInfo {
        var details = ["link": endpoint, "reader type": identity.readerTypeText]
        details["firmware"] = "\(identity.firmware.major).\(identity.firmware.minor)"
        return ReaderInfo(
            id: "ufr:\(endpoint)", name: "\(identity.modelName ?? "uFR reader") \(identity.serialNumber ?? endpoint)",
            backend: "ufr", serialNumber: identity.serialNumber,
            capabilities: ReaderCapabilities(
                maximumCommandLength: UFRCommand.maximumExtensionDataCount, announcesPresence: false,
                readsCardUID: true),
            details: details)
    }

    public var unownedExecutor: UnownedSerialExecutor { device.unownedExecutor }

    public func powerOn(protocol cardProtocol: CardProtocol?) async throws -> [UInt8] {
        try await device.powerOn()
    }

    public func powerOff() async throws {
        try await device.powerOff()
    }

    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        try await device.transmit(command)
    }

    public func presence() async throws -> CardPresence {
        try await device.presence()
    }

    public func nextPresenceNotice(timeout: Duration) async throws -> PresenceNotice {
        .unsupported
    }
}
