import CardFlow
import CardFlowCCIDProtocol
import Logging
import Metrics

extension Reader {
    /// One ``Reader`` per slot of a CCID interface, all on the same `driver`: a multi-slot
    /// device (bMaxSlotIndex > 0, such as a reader with SAM slots) is several readers with
    /// their own sessions, which run side by side as far as the device's bMaxCCIDBusySlots
    /// allows.
    ///
    /// A single-slot device gives one reader with `info` unchanged. A multi-slot device gives
    /// readers whose ids are `info.id` followed by `/` and the slot number (`usb:1:4:0/1`) and
    /// whose names end in "slot N".
    ///
    /// ```swift
    /// for reader in Reader.slotReaders(info: info, driver: driver) { await registry.add(reader) }
    /// ```
    public static func slotReaders(
        info: ReaderInfo, driver: CCIDDriver, logger: Logger = Logger(label: "cardflow.reader"),
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) -> [Reader] {
        let slotCount = driver.descriptor.slotCount
        guard slotCount > 1 else {
            return [Reader(info: info, driver: driver, slot: 0, logger: logger, metricsFactory: metricsFactory)]
        }
        return (0..<slotCount).map { slot in
            Reader(
                info: slotInfo(info, slot: slot), driver: driver, slot: UInt8(truncatingIfNeeded: slot),
                logger: logger, metricsFactory: metricsFactory)
        }
    }

    /// The identity of one slot of a multi-slot device: `info.id` + `/N`, the name + " slot N".
    public static func slotInfo(_ info: ReaderInfo, slot: Int) -> ReaderInfo {
        var slotInfo = info
        slotInfo.id = "\(info.id)/\(slot)"
        slotInfo.name = "\(info.name) slot \(slot)"
        return slotInfo
    }
}
