/// The interfaces of one USB configuration, and the search for the CCID functions among them.
///
/// This is the pure half of reader discovery: ``LibUSBContext`` copies libusb's parsed
/// configuration descriptor into this value, and tests write it by hand.
///
/// ```swift
/// let layout = USBConfigurationLayout(interfaces: [
///     USBInterfaceLayout(number: 0, interfaceClass: 0x0B, extra: descriptorBytes,
///                        endpoints: [.bulk(0x02), .bulk(0x82), .interrupt(0x83)]),
/// ])
/// layout.ccidInterfaces()   // one USBCCIDInterface for interface 0
/// ```
public struct USBConfigurationLayout: Sendable, Hashable {
    /// Interface descriptors in configuration order; several entries may share a number (one per
    /// alternate setting).
    public var interfaces: [USBInterfaceLayout]

    public init(interfaces: [USBInterfaceLayout]) {
        self.interfaces = interfaces
    }

    /// Every CCID function of the configuration, in interface order.
    ///
    /// The rules are those of the pcsc-lite CCID driver (`get_ccid_usb_interface()`,
    /// `get_ccid_device_descriptor()`): class 0x0B interfaces, and class 0xFF interfaces only
    /// when they carry exactly 54 bytes of descriptor (type 0x21 is also HID's, so the length
    /// tells them apart); the descriptor sits in the interface's extra bytes or, for O2Micro and
    /// Reiner SCT readers, in the last endpoint's; bulk-OUT and bulk-IN are required. Only the
    /// first alternate setting of each interface is looked at.
    public func ccidInterfaces() -> [USBCCIDInterface] {
        scanForCCIDInterfaces().found
    }

    /// Like ``ccidInterfaces()``, plus why each smart-card or vendor-class interface that was
    /// not taken was skipped (for debug logs).
    func scanForCCIDInterfaces() -> (found: [USBCCIDInterface], skipped: [(interface: UInt8, reason: String)]) {
        var found: [USBCCIDInterface] = []
        var skipped: [(interface: UInt8, reason: String)] = []
        var seen: Set<UInt8> = []
        for interface in interfaces {
            // Later entries with the same number are further alternate settings.
            guard seen.insert(interface.number).inserted else { continue }
            guard interface.interfaceClass == 0x0B || interface.interfaceClass == 0xFF else { continue }
            let descriptor: CCIDClassDescriptor
            do {
                descriptor = try CCIDClassDescriptor.locate(
                    interfaceClass: interface.interfaceClass,
                    interfaceExtra: interface.extra,
                    endpointExtras: interface.endpoints.map(\.extra))
            } catch {
                // Vendor-class interfaces without a CCID descriptor are ordinary vendor
                // interfaces (e.g. the PN533 of an SCL3711); only mention smart-card ones.
                if interface.interfaceClass == 0x0B { skipped.append((interface.number, "\(error)")) }
                continue
            }
            guard let endpoints = USBCCIDEndpoints(endpoints: interface.endpoints) else {
                skipped.append((interface.number, "no bulk-OUT/bulk-IN endpoint pair (ICCD readers are not supported)"))
                continue
            }
            found.append(
                USBCCIDInterface(
                    number: interface.number, alternateSetting: interface.alternateSetting,
                    interfaceClass: interface.interfaceClass,
                    interfaceProtocol: interface.interfaceProtocol,
                    nameIndex: interface.nameIndex, descriptor: descriptor, endpoints: endpoints))
        }
        return (found.sorted { $0.number < $1.number }, skipped)
    }
}
